"""notesvc: a small notes service exposed as MCP tools, half-way through a reply-system migration."""
