"""Fixtures shared by the test modules (helpers live in support.py)."""

import pytest

from support import profile  # noqa: F401  (the session-wide canonical profile fixture)


@pytest.fixture(autouse=True)
def _plain_terminal(monkeypatch):
    """Reports are pinned without colour, whatever the environment asks for."""
    monkeypatch.delenv("FORCE_COLOR", raising=False)
    monkeypatch.delenv("NO_COLOR", raising=False)
