"""Fixtures shared by the test modules (helpers live in support.py)."""

from support import profile  # noqa: F401  (the session-wide canonical profile fixture)
