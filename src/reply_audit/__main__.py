"""`python -m reply_audit` runs the command-line interface."""

from .cli import main

main()
