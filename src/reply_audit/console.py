"""What the command line shows: stdout reports written whole, notes on stderr, colour and a progress bar.

`write_output` prints a report or writes it atomically through `safe_write`
(a reader never sees half a report; a device or a named pipe is written to,
never replaced); `say` is one `reply-audit: …` line on stderr; `colour()`
follows NO_COLOR and FORCE_COLOR; `Progress` draws a bar on a terminal's
stderr once the work has taken a second. A reader that closed its pipe is
`OutputClosed`, which the command line ends on quietly (`stop_writing`).
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .errors import OutputClosed, UserError
from .safe_write import WriteRefused, replace

if TYPE_CHECKING:  # pragma: no cover
    import rich.progress


def echo(text: str, err: bool = False, nl: bool = True) -> None:
    """TEXT on stdout (stderr with ERR), then a newline unless NL is false. Written as UTF-8 whatever the
    terminal's locale says (a path or a rule page is never lost to an ASCII locale), and nothing at all when the
    stream is closed."""
    _write((text + ("\n" if nl else "")).encode("utf-8", "surrogateescape"), sys.stderr if err else sys.stdout)


def _write(data: bytes, stream: Any) -> None:
    if stream is None:   # started with the stream closed (`reply-audit rules >&-`)
        return
    try:
        stream.flush()
        buffer = getattr(stream, "buffer", None)
        if buffer is not None:
            _write_all(buffer, data)
        else:   # a text-only stream (a test's StringIO)
            stream.write(data.decode("utf-8", "surrogateescape"))
            stream.flush()
    except BrokenPipeError:
        raise OutputClosed from None


def _write_all(buffer: Any, data: bytes) -> None:
    """DATA written whole to BUFFER, a binary stream: unbuffered (`python -u`, PYTHONUNBUFFERED), its `write`
    may take only part, and on a non-blocking descriptor none for now; a reader gone meanwhile is a
    BrokenPipeError at the next write."""
    view = memoryview(data)
    while view:
        try:
            written = buffer.write(view)
        except BlockingIOError as exc:   # (a buffered stream over a non-blocking descriptor)
            written = exc.characters_written
        if not written:   # full for now: wait until it takes more
            import select

            select.select([], [buffer], [])
            continue
        view = view[written:]
    buffer.flush()


def say(text: str) -> None:
    """One line on stderr, `reply-audit: TEXT`."""
    echo(f"reply-audit: {text}", err=True)


def write_output(text: str | bytes, out: Path | None) -> None:
    """Print, or write OUT atomically with the usual permissions (the umask's). Bytes are written as they are."""
    data = text if isinstance(text, bytes) else text.encode("utf-8", "surrogateescape")
    if out is None:
        _write(data, sys.stdout)
        return
    if out.is_dir():
        raise UserError(f"--out {str(out)!r} is a directory; name a file")
    if out.exists() and not out.resolve().is_file():
        _write_special(out, data)   # `-o /dev/stdout`, `-o /dev/null`, a named pipe: written to, never replaced
        return
    out = out.resolve() if out.is_symlink() else out   # (the link is kept; the file it names is replaced)
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        umask = os.umask(0)
        os.umask(umask)
        replace(out, data, 0o666 & ~umask, durable=False)
    except OSError as exc:
        raise UserError(f"cannot write {str(out)!r}: {exc.strerror or exc}") from None
    except WriteRefused as exc:
        raise UserError(f"cannot write {str(out)!r}: {exc.reason.removeprefix('cannot write: ')}") from None


def stop_writing() -> None:
    """Send what is still to be written to standard output and error to the null device: a reader that closed
    its pipe asked for no more, and Python's exit would otherwise fail to flush it and print a traceback."""
    null = os.open(os.devnull, os.O_WRONLY)
    for stream in (sys.stdout, sys.stderr):
        try:
            if stream is not None:
                os.dup2(null, stream.fileno())
        except (OSError, ValueError):   # (a stream that is no file: a test's)
            pass
    os.close(null)


def _write_special(out: Path, data: bytes) -> None:
    """DATA written to OUT, a device, a named pipe or a socket: replacing it with a file, as a report file is
    replaced, would put a regular file where the device was (as root, `/dev/null` itself)."""
    try:
        with open(out, "wb") as handle:
            _write_all(handle, data)
    except BrokenPipeError:
        raise OutputClosed from None
    except OSError as exc:
        raise UserError(f"cannot write {str(out)!r}: {exc.strerror or exc}") from None


def colour() -> bool:
    """Colour on a terminal, unless NO_COLOR is set (no-color.org); FORCE_COLOR asks for it anywhere."""
    if os.environ.get("NO_COLOR"):
        return False
    return bool(os.environ.get("FORCE_COLOR")) or (sys.stdout is not None and sys.stdout.isatty())


class Progress:
    """A progress bar on a terminal's stderr, shown once the work has taken a second (nothing for quick runs,
    CI logs or pipes); it disappears when done. Entering gives the callback `update(stage, done, total)`."""

    DELAY = 1.0

    def __enter__(self) -> Callable[[str, int, int], None]:
        self.bar: rich.progress.Progress | None = None
        self.live = sys.stderr is not None and sys.stderr.isatty() and not os.environ.get("CI")
        self.started = time.monotonic()
        self.tasks: dict[str, Any] = {}   # stage -> rich's task id
        return self.update

    def update(self, stage: str, done: int, total: int) -> None:
        if not self.live:
            return
        if self.bar is None:
            if time.monotonic() - self.started < self.DELAY:
                return
            from rich.console import Console
            from rich.progress import Progress as Bar

            self.bar = Bar(transient=True, console=Console(stderr=True))
            self.bar.start()
        if stage not in self.tasks:
            self.tasks[stage] = self.bar.add_task(stage, total=total)
        self.bar.update(self.tasks[stage], completed=done)

    def __exit__(self, *exc: object) -> None:
        if self.bar is not None:
            self.bar.stop()
