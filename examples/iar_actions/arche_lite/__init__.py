"""A miniature action engine in the IAR dialect (reply-audit's bundled example)."""
