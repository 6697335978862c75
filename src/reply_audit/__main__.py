"""`python -m reply_audit` runs the command-line interface."""

from .cli import main

if __name__ == "__main__":  # not when a spawned worker process imports this module
    main()
