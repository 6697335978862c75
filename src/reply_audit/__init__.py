"""reply-audit: audit and migrate Python codebases onto a canonical reply system."""

__version__ = "0.3.0"
