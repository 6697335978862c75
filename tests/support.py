"""Shared test helpers: extract facts from inline source, scan a tree written by a test."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from reply_audit.facts.model import FileFacts
from reply_audit.file_facts import facts_for_source
from reply_audit.profile import Profile, load_profile
from reply_audit.scan import ScanResult, scan

REPO = Path(__file__).resolve().parent.parent
EXAMPLE = REPO / "examples" / "legacy_mcp"


@pytest.fixture(scope="session")
def profile() -> Profile:
    return load_profile("canonical")


def facts_of(source: str, profile: Profile, path: str = "mod.py") -> FileFacts:
    return facts_for_source(textwrap.dedent(source).encode("utf-8"), path, profile)


def write_tree(root: Path, files: dict[str, str]) -> Path:
    for rel, text in files.items():
        target = root / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(textwrap.dedent(text), encoding="utf-8")
    return root


def scan_tree(root: Path, files: dict[str, str], profile: Profile | None = None, **kwargs) -> ScanResult:
    write_tree(root, files)
    return scan(root, profile or load_profile("canonical", root), **kwargs)
