"""Shared test helpers: extract facts from inline source, scan a tree written by a test."""

from __future__ import annotations

import io
import sys
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


class Invocation:
    """What one run of the command line printed and returned (stdout, stderr, both as a terminal shows them)."""

    def __init__(self, exit_code: int, out: bytes, err: bytes, both: bytes, exception: BaseException | None):
        self.exit_code, self.stdout_bytes, self.exception = exit_code, out, exception
        self.stdout = out.decode("utf-8", "replace")
        self.stderr = err.decode("utf-8", "replace")
        self.output = both.decode("utf-8", "replace")


class _Tee(io.RawIOBase):
    def __init__(self, own: io.BytesIO, both: io.BytesIO) -> None:
        self.own, self.both = own, both

    def writable(self) -> bool:
        return True

    def write(self, data) -> int:
        self.own.write(data)
        self.both.write(data)
        return len(data)


class CliRunner:
    """Runs `reply_audit.cli.app` in this process with stdout and stderr captured (as a terminal would show
    them, and apart). An exception other than SystemExit is kept on the result, not raised."""

    def invoke(self, app, args) -> Invocation:
        own_out, own_err, both = io.BytesIO(), io.BytesIO(), io.BytesIO()
        streams = [io.TextIOWrapper(io.BufferedWriter(_Tee(own, both)), encoding="utf-8", write_through=True)
                   for own in (own_out, own_err)]
        saved = sys.stdout, sys.stderr
        sys.stdout, sys.stderr = streams
        exception = None
        try:
            code = app([str(a) for a in args])
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
        except Exception as exc:
            exception, code = exc, 1
        finally:
            for stream in streams:
                stream.flush()
            sys.stdout, sys.stderr = saved
        return Invocation(code, own_out.getvalue(), own_err.getvalue(), both.getvalue(), exception)
