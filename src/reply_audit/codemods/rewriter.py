"""Where `migrate` rewrites a file: in a helper process that readied libcst while migrate scanned and planned, or
in this one.

Before it can rewrite anything, a migrate run imports libcst (about a quarter
of a second); before that it scans and plans, which need no libcst and take
as long again. `Rewriter.start()` forks a helper at the start of the run: the
helper imports the rewriter (`apply`, libcst with it) while this process
scans and plans, then rewrites one file per request over a pipe. It answers
with what `apply.rewrite_source` answers in this process; the edits of the
answer are this process's own objects again. Told which files to `expect`
(those with findings a codemod fixes), it parses them as soon as it can,
while this process plans, before the requests that follow.

The helper is started only where it pays and is safe: on Linux (fork), when
libcst is not imported yet (a process that has it gains nothing), and when
this process runs no other thread. Anything wrong with it (it cannot start,
dies, answers what it should not, a request does not pickle) sends that file
and the rest to `apply.rewrite_source` here: the run is the same, only
slower.
"""

from __future__ import annotations

import ast
import os
import pickle
import struct
import sys
import threading
from dataclasses import replace
from pathlib import Path
from typing import Any, BinaryIO

from .base import Edit, RewriteOutcome

_LENGTH = struct.Struct("!Q")


def _local(source: bytes, edits: list[Edit]) -> RewriteOutcome:
    from .apply import rewrite_source

    return rewrite_source(source, edits)


class Rewriter:
    """Rewrites files, in the helper process while it answers, else here."""

    def __init__(self) -> None:
        self.pid: int | None = None
        self._asked = 0   # requests sent: each answer names the one it answers
        self._requests: BinaryIO | None = None
        self._answers: BinaryIO | None = None

    @classmethod
    def start(cls, helper: bool | None = None) -> Rewriter:
        """A rewriter, with a helper process when HELPER is True (where this system can fork) or None (where it
        pays and is safe, as above); False: none."""
        rewriter = cls()
        if helper is None:
            helper = sys.platform.startswith("linux") and "libcst" not in sys.modules \
                and threading.active_count() == 1
        if helper and hasattr(os, "fork"):
            rewriter._fork()
        return rewriter

    @property
    def helped(self) -> bool:
        return self.pid is not None

    def _fork(self) -> None:
        requests_read, requests_write = os.pipe()
        answers_read, answers_write = os.pipe()
        for stream in (sys.stdout, sys.stderr):
            if stream is not None:   # (started with the stream closed)
                stream.flush()
        try:
            pid = os.fork()
        except OSError:
            for fd in (requests_read, requests_write, answers_read, answers_write):
                os.close(fd)
            return
        if pid == 0:   # the helper: it never returns into the caller's code
            os.close(requests_write)
            os.close(answers_read)
            _serve(requests_read, answers_write)
        os.close(requests_read)
        os.close(answers_write)
        self.pid = pid
        self._requests = os.fdopen(requests_write, "wb")
        self._answers = os.fdopen(answers_read, "rb")

    def expect(self, path: Path) -> None:
        """A file a request will likely bring (one with findings a codemod fixes): the helper reads and parses it
        (`hollow.parse`) before the requests that follow, while this process plans, and uses the tree if a
        request brings the same bytes."""
        if self._requests is None:
            return
        try:
            _send(self._requests, ("expect", str(path)))
        except (OSError, ValueError):
            self.close()

    def rewrite(self, source: bytes, edits: list[Edit]) -> RewriteOutcome:
        """`apply.rewrite_source(SOURCE, EDITS)`, by the helper when it answers."""
        if self.pid is not None:
            answer = self._ask(source, edits)
            if answer is not None:
                return answer
            self.close()   # it failed once: the rest is rewritten here
        return _local(source, edits)

    def _ask(self, source: bytes, edits: list[Edit]) -> RewriteOutcome | None:
        assert self._requests is not None and self._answers is not None
        self._asked += 1
        try:
            # the findings an edit fixes are the plan's business, not the rewriter's: they stay here
            _send(self._requests, ("rewrite", self._asked, source, [replace(e, findings=[]) for e in edits]))
            answer = _receive(self._answers)
        except (OSError, EOFError, pickle.PickleError, AttributeError, TypeError, ValueError, struct.error):
            return None
        except BaseException:   # (Ctrl-C between request and answer: an answer may be left unread; no reuse)
            self.close()
            raise
        if not isinstance(answer, tuple) or len(answer) != 5 or answer[0] != self._asked:
            return None   # (the helper's own failure, or an answer to another request: this one is done here)
        _number, new_source, applied, refused, problem = answer
        try:
            return RewriteOutcome(source=source, new_source=new_source, applied=[edits[i] for i in applied],
                                  refused=[(edits[i], reason) for i, reason in refused], problem=problem)
        except (IndexError, TypeError):
            return None

    def close(self) -> None:
        """Let the helper go and wait for it to exit."""
        if self.pid is None:
            return
        try:   # said, not only by closing: a process forked from this one since (a pool's worker) holds the pipe too
            if self._requests is not None:
                _send(self._requests, None)
        except (OSError, ValueError):
            pass
        for stream in (self._requests, self._answers):
            try:
                if stream is not None:
                    stream.close()
            except OSError:
                pass
        try:
            os.waitpid(self.pid, 0)
        except OSError:
            pass
        self.pid = self._requests = self._answers = None

    def __enter__(self) -> Rewriter:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _serve(requests_fd: int, answers_fd: int) -> None:   # pragma: no cover - runs in the forked helper
    """The helper's life: import the rewriter, then answer each request until they end; exit, never return."""
    try:
        devnull = os.open(os.devnull, os.O_RDWR)
        for fd in (0, 1, 2):   # the caller's terminal and pipes are not the helper's to write to or hold open
            os.dup2(devnull, fd)
        from . import all_codemods
        from .apply import rewrite_source
        from .hollow import parse

        all_codemods()   # the modules of the edits' classes, imported before a request needs them to unpickle
        with os.fdopen(requests_fd, "rb") as requests, os.fdopen(answers_fd, "wb") as answers:
            trees: dict[bytes, ast.Module | None] = {}   # the files expected, parsed ahead
            while True:
                try:
                    request = _receive(requests)
                except EOFError:
                    break
                if request is None:
                    break
                if request[0] == "expect":
                    try:
                        with open(request[1], "rb") as expected:
                            source = expected.read()
                    except OSError:
                        continue
                    trees[source] = parse(source)
                    continue
                _kind, number, source, edits = request
                try:
                    outcome = rewrite_source(source, edits, trees.pop(source, None))
                    where = {id(edit): i for i, edit in enumerate(edits)}
                    answer: Any = (number, outcome.new_source, [where[id(e)] for e in outcome.applied],
                                   [(where[id(e)], reason) for e, reason in outcome.refused], outcome.problem)
                except Exception:
                    answer = (number, "failed")   # the caller rewrites the file itself, and meets the failure there
                _send(answers, answer)
    except BaseException:
        pass
    finally:
        os._exit(0)


def _send(stream: BinaryIO, value: object) -> None:
    data = pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL)
    stream.write(_LENGTH.pack(len(data)) + data)
    stream.flush()


def _receive(stream: BinaryIO) -> Any:
    head = stream.read(_LENGTH.size)
    if len(head) < _LENGTH.size:
        raise EOFError("the other end closed")
    size = _LENGTH.unpack(head)[0]
    data = stream.read(size)
    if len(data) < size:
        raise EOFError("the other end closed")
    return pickle.loads(data)
