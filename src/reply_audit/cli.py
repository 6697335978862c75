"""The `reply-audit` command line (typer).

Commands: `scan PATH`, `profile show [NAME]`, `profile list`. Exit codes:
0 success, 2 usage or configuration error (one line on stderr, no traceback).
"""

from __future__ import annotations

import os
import sys
import tempfile
from enum import Enum
from pathlib import Path
from typing import Annotated, Optional

import typer

from . import __version__
from .errors import EXIT_USAGE, UserError

app = typer.Typer(
    name="reply-audit",
    help="Audit and migrate Python codebases onto a canonical reply system.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)
profile_app = typer.Typer(help="Show the rule profiles (the spec as data).", no_args_is_help=True)
app.add_typer(profile_app, name="profile")


class ScanFormat(str, Enum):
    json = "json"
    md = "md"
    table = "table"


def _version(value: bool) -> None:
    if value:
        typer.echo(f"reply-audit {__version__}")
        raise typer.Exit()


@app.callback()
def root(
    version: Annotated[Optional[bool], typer.Option("--version", callback=_version, is_eager=True,
                                                    help="Print the version and exit.")] = None,
) -> None:
    """Audit and migrate Python codebases onto a canonical reply system."""


def write_output(text: str, out: Path | None) -> None:
    """Print, or write OUT atomically (a reader never sees half a report)."""
    if out is None:
        sys.stdout.write(text)
        return
    out.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=out.parent, prefix=f".{out.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as handle:
            handle.write(text)
        os.replace(tmp, out)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


@app.command()
def scan(
    path: Annotated[Path, typer.Argument(help="Directory (or file) to scan.")],
    format: Annotated[ScanFormat, typer.Option("--format", "-f", help="Output format.")] = ScanFormat.table,
    out: Annotated[Optional[Path], typer.Option("--out", "-o", help="Write the report to this file.")] = None,
    profile: Annotated[Optional[str], typer.Option(
        "--profile", help="Built-in profile name or a profile .toml file (default: the repository's "
                          "[tool.reply-audit] or 'canonical').")] = None,
    mapping: Annotated[Optional[list[Path]], typer.Option(
        "--mapping", help="Extra legacy→canonical mapping file (.toml or .csv); repeatable.")] = None,
) -> None:
    """Inventory registries, mappings, builders, calls and handlers of PATH."""
    from .profile import load_profile
    from .scan import scan as run_scan

    try:
        if not path.exists():
            raise UserError(f"path {str(path)!r} does not exist")
        root_dir = path if path.is_dir() else path.parent
        effective = load_profile(profile, root_dir)
        result = run_scan(path, effective, list(mapping or []), display_root=path.as_posix())
        if format is ScanFormat.json:
            from .report.json_report import render_json

            text = render_json(result)
        elif format is ScanFormat.md:
            from .report.markdown import render_markdown

            text = render_markdown(result)
        else:
            from .report.table import render_table

            text = render_table(result)
        write_output(text, out)
    except UserError as exc:
        typer.echo(f"reply-audit: error: {exc.message}", err=True)
        raise typer.Exit(EXIT_USAGE) from None


@profile_app.command("show")
def profile_show(
    name: Annotated[Optional[str], typer.Argument(help="Built-in name or profile file (default: effective).")] = None,
    path: Annotated[Path, typer.Option("--path", help="Repository whose [tool.reply-audit] is layered on.")] = Path("."),
) -> None:
    """Print the effective profile as TOML."""
    from .profile import load_profile

    try:
        effective = load_profile(name, path if path.is_dir() else None)
    except UserError as exc:
        typer.echo(f"reply-audit: error: {exc.message}", err=True)
        raise typer.Exit(EXIT_USAGE) from None
    typer.echo(f"# profile {effective.name} from {' + '.join(effective.sources)} (digest {effective.digest})")
    typer.echo(effective.to_toml(), nl=False)


@profile_app.command("list")
def profile_list() -> None:
    """List the built-in profiles."""
    from .profile import builtin_names, load_profile

    for name in builtin_names():
        typer.echo(f"{name}\t{load_profile(name).data.get('profile', {}).get('title', '')}")


def main() -> None:
    app()


if __name__ == "__main__":
    main()
