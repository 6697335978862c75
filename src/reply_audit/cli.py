"""The `reply-audit` command line (typer).

Commands: `scan PATH`, `migrate PATH`, `rules`, `codemods`, `profile show [NAME]`,
`profile list`. Exit codes: 0 success, 1 findings (scan) or changes pending /
refused rewrites (migrate), 2 usage or configuration error (one line on
stderr, no traceback).
"""

from __future__ import annotations

import os
import sys
from enum import Enum
from pathlib import Path
from typing import Annotated, Optional

import typer

from . import __version__
from .errors import EXIT_FINDINGS, EXIT_OK, EXIT_USAGE, UserError

def _plain_argument_help() -> None:
    """An argument with a metavar (PATH, FILE, RULE) is shown by it alone, not followed by its Python type
    (`<list[Path]>`); left as it is if typer's help classes change."""
    argument = getattr(getattr(typer, "core", None), "TyperArgument", None)
    shown = getattr(argument, "display_type_rich", None)
    if argument is None or shown is None or getattr(shown, "_reply_audit", False):
        return

    def display_type_rich(self, ctx):
        return None if self.metavar else shown(self, ctx)

    display_type_rich._reply_audit = True   # type: ignore[attr-defined]
    argument.display_type_rich = display_type_rich


_plain_argument_help()


def _one_line_usage_errors() -> None:
    """A usage error (an unknown option, a bad choice, a missing argument) is one line on stderr, like every
    other bad input, with the help command to run; exit 2 as before. Left as it is if typer's classes change."""
    exceptions = getattr(getattr(typer, "_click", None), "exceptions", None)
    usage_error = getattr(exceptions, "UsageError", None)
    if usage_error is None or getattr(usage_error.show, "_reply_audit", False):
        return

    def show(self, file=None) -> None:
        ctx = getattr(self, "ctx", None)
        hint = f" (see `{ctx.command_path} --help`)" if ctx is not None else ""
        message = " ".join(self.format_message().split()).replace("Value error, ", "")
        typer.echo(f"reply-audit: error: {message}{hint}", err=True)

    show._reply_audit = True   # type: ignore[attr-defined]
    usage_error.show = show


_one_line_usage_errors()

app = typer.Typer(
    name="reply-audit",
    help="Audit and migrate Python codebases onto a canonical reply system.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,   # `[default: high]` and `[tool.reply-audit]` are text, not markup
)
profile_app = typer.Typer(help="Show the rule profiles (the spec as data).", no_args_is_help=True,
                          rich_markup_mode=None)
app.add_typer(profile_app, name="profile")


ConfigOption = Annotated[Optional[Path], typer.Option(
    "--config", metavar="FILE", help="Settings from this file (a pyproject.toml's [tool.reply-audit] table, or a "
                                     "TOML file holding that table's keys) instead of the nearest pyproject.toml "
                                     "above PATH.")]


class ScanFormat(str, Enum):
    table = "table"
    json = "json"
    md = "md"
    sarif = "sarif"
    github = "github"
    csv = "csv"


class FailOn(str, Enum):
    critical = "critical"
    high = "high"
    medium = "medium"
    low = "low"
    none = "none"


def _fail_level(fail_on: "FailOn | None", profile) -> str:
    """--fail-on, else the profile's [rules] fail-on (checked), else high."""
    from .engine import FAIL_LEVELS

    level = fail_on.value if fail_on else str(profile.section("rules").get("fail_on", "high"))
    if level not in FAIL_LEVELS:
        raise UserError(f"[rules] fail-on = {level!r}: use one of {', '.join(FAIL_LEVELS)}")
    return level


def _cache_dir(path: Path, given: Path | None, off: bool) -> Path | None:
    """--cache-dir, else one cache at the project's root (see profile.project_root), whatever part is scanned."""
    from .cache import DEFAULT_DIR
    from .profile import project_root

    if off:
        return None
    return given if given is not None else project_root(path) / DEFAULT_DIR


ExcludeOption = Annotated[Optional[list[str]], typer.Option(
    "--exclude", metavar="PATTERN", help="Folders and files to leave out, replacing the profile's [scan] exclude "
                                         "(names or globs, comma-separated or repeated).")]
ExtendExcludeOption = Annotated[Optional[list[str]], typer.Option(
    "--extend-exclude", metavar="PATTERN", help="Folders and files to leave out as well as the profile's.")]
ForceExcludeOption = Annotated[bool, typer.Option(
    "--force-exclude", help="Leave out a file named as PATH too when the excludes or a .gitignore cover it (for "
                            "editors and hooks that pass files one by one).")]


def _selected(path: Path, profile, exclude, extend_exclude, force_exclude: bool):
    """The profile with the command line's excludes, and whether PATH itself is to be left out."""
    from .discovery import excluded
    from .profile import with_excludes

    effective = with_excludes(profile, _split(exclude), _split(extend_exclude))
    skipped = force_exclude and path.is_file() and excluded(path, effective.scan_list("exclude"))
    if skipped:
        typer.echo(f"reply-audit: {path.as_posix()} is excluded (--force-exclude): nothing to check", err=True)
    return effective, skipped


def _load_profile(spec: str | None, root: Path | None, **kwargs):
    """The effective profile (profile.load_profile); an old spelling of a key is a warning on stderr."""
    from .profile import load_profile

    effective = load_profile(spec, root, **kwargs)
    for note in effective.warnings:
        typer.echo(f"reply-audit: warning: {note}", err=True)
    return effective


def _split(values: list[str] | None) -> list[str] | None:
    if not values:
        return None
    return [v.strip() for value in values for v in value.split(",") if v.strip()]


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


def write_output(text: str | bytes, out: Path | None) -> None:
    """Print, or write OUT atomically (a reader never sees half a report). Bytes are written as they are."""
    data = text if isinstance(text, bytes) else text.encode("utf-8", "surrogateescape")
    if out is None:
        sys.stdout.flush()
        sys.stdout.buffer.write(data)
        sys.stdout.buffer.flush()
        return
    if out.is_dir():
        raise UserError(f"--out {str(out)!r} is a directory; name a file")
    from .safe_write import WriteRefused, replace

    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        umask = os.umask(0)
        os.umask(umask)
        replace(out, data, 0o666 & ~umask, durable=False)
    except OSError as exc:
        raise UserError(f"cannot write {str(out)!r}: {exc.strerror or exc}") from None
    except WriteRefused as exc:
        raise UserError(f"cannot write {str(out)!r}: {exc.reason.removeprefix('cannot write: ')}") from None


@app.command()
def scan(
    path: Annotated[Path, typer.Argument(metavar="PATH", help="Directory (or file) to scan.")],
    format: Annotated[ScanFormat, typer.Option("--format", "-f", help="Output format.")] = ScanFormat.table,
    out: Annotated[Optional[Path], typer.Option("--out", "-o", metavar="FILE", help="Write the report to this file.")] = None,
    profile: Annotated[Optional[str], typer.Option(
        "--profile", metavar="NAME|FILE", help="Built-in profile name or a profile .toml file (default: the repository's "
                          "[tool.reply-audit] or 'canonical').")] = None,
    mapping: Annotated[Optional[list[Path]], typer.Option(
        "--mapping", metavar="FILE", help="Extra legacy→canonical mapping file (.toml or .csv); repeatable.")] = None,
    select: Annotated[Optional[list[str]], typer.Option(
        "--select", metavar="RULES", help="Rules to run: ids or prefixes (RA1, RA303), comma-separated or repeated.")] = None,
    ignore: Annotated[Optional[list[str]], typer.Option("--ignore", metavar="RULES", help="Rules not to run.")] = None,
    fail_on: Annotated[Optional[FailOn], typer.Option(
        "--fail-on", help="Exit 1 when a finding at or above this severity remains (the profile's own level, "
                          "when it sets one).  [default: high]")] = None,
    baseline: Annotated[Optional[Path], typer.Option(
        "--baseline", metavar="FILE", help="Report only findings not recorded in this baseline file.")] = None,
    write_baseline: Annotated[Optional[Path], typer.Option(
        "--write-baseline", metavar="FILE", help="Record the current findings as a baseline file and exit 0.")] = None,
    show_suppressed: Annotated[bool, typer.Option(
        "--show-suppressed", help="List the findings silenced by `# reply-audit: ignore[...]` comments.")] = False,
    jobs: Annotated[Optional[int], typer.Option(
        "--jobs", "-j", metavar="N", min=1, help="Processes that parse files [default: one per CPU, for large trees].")] = None,
    cache_dir: Annotated[Optional[Path], typer.Option(
        "--cache-dir", metavar="DIR", help="Where facts per file are kept between scans [default: .reply-audit-cache at the "
                            "project's root: the folder of its configuration, else of .git, else PATH].")]
    = None,
    no_cache: Annotated[bool, typer.Option("--no-cache", help="Neither read nor write the cache.")] = False,
    config: ConfigOption = None,
    exclude: ExcludeOption = None,
    extend_exclude: ExtendExcludeOption = None,
    force_exclude: ForceExcludeOption = False,
    statistics: Annotated[bool, typer.Option(
        "--statistics", help="The table format: a count per rule instead of a line per finding.")] = False,
    verbose: Annotated[bool, typer.Option(
        "--verbose", "-v", help="The table format: the inventory (registries, legacy codes, builders, handlers) "
                                "before the findings.")] = False,
    quiet: Annotated[bool, typer.Option(
        "--quiet", "-q", help="The table format: only the finding lines (and files not read); no summary.")]
    = False,
) -> None:
    """Audit PATH: the findings (the table format), or the full audit with inventory and compliance scorecard
    (md, json), or CI formats (sarif, github, csv)."""
    from .api import evaluate
    from .engine import baseline_text, exit_code, load_baseline
    from .profile import load_profile
    from .scan import scan as run_scan

    try:
        if not path.exists():
            raise UserError(f"path {str(path)!r} does not exist")
        if statistics + verbose + quiet > 1:
            raise UserError("--statistics, --verbose and --quiet exclude each other")
        mode = "statistics" if statistics else "verbose" if verbose else "quiet" if quiet else "findings"
        root_dir = path if path.is_dir() else path.parent
        effective, skipped = _selected(path, _load_profile(profile, root_dir, config=config), exclude,
                                       extend_exclude, force_exclude)
        level = _fail_level(fail_on, effective)   # every setting checked before anything is written
        if skipped:
            raise typer.Exit(EXIT_OK)
        known = load_baseline(baseline) if baseline else None
        with _progress() as progress:
            result = run_scan(path, effective, list(mapping or []), display_root=path.as_posix(), jobs=jobs,
                              cache_dir=_cache_dir(path, cache_dir, no_cache), progress=progress)
        evaluation = evaluate(result, _split(select), _split(ignore), known)   # (checks --select and --ignore)
        if not result.files and not result.discovery_problems:
            raise UserError(f"no Python files in {str(path)!r} (none there, or all excluded or gitignored): "
                            "nothing to check")
        if write_baseline is not None:
            write_output(baseline_text(evaluation.findings), write_baseline)
            typer.echo(f"reply-audit: wrote {len(evaluation.findings)} findings to {write_baseline}", err=True)
            raise typer.Exit(0)
        text = render(format, result, evaluation, show_suppressed, mode, colour=out is None and _colour())
        write_output(text, out)
    except UserError as exc:
        typer.echo(f"reply-audit: error: {exc.message}", err=True)
        raise typer.Exit(EXIT_USAGE) from None
    raise typer.Exit(exit_code(evaluation, level))


def _colour() -> bool:
    """Colour on a terminal, unless NO_COLOR is set (no-color.org); FORCE_COLOR asks for it anywhere."""
    if os.environ.get("NO_COLOR"):
        return False
    return bool(os.environ.get("FORCE_COLOR")) or sys.stdout.isatty()


def render(format: ScanFormat, result, evaluation, show_suppressed: bool = False, mode: str = "findings",
           colour: bool = False) -> str:
    if format is ScanFormat.json:
        from .report.json_report import render_json

        return render_json(result, evaluation)
    if format is ScanFormat.md:
        from .report.markdown import render_markdown

        return render_markdown(result, evaluation, show_suppressed)
    if format is ScanFormat.sarif:
        from .report.sarif import render_sarif

        return render_sarif(result, evaluation)
    if format is ScanFormat.github:
        from .report.annotations import render_github

        return render_github(result, evaluation)
    if format is ScanFormat.csv:
        from .report.annotations import render_csv

        return render_csv(result, evaluation)
    from .report.table import render_table

    return render_table(result, evaluation, show_suppressed, mode, colour)


class MigrateFormat(str, Enum):
    diff = "diff"
    json = "json"


@app.command()
def migrate(
    path: Annotated[Path, typer.Argument(metavar="PATH", help="Directory (or file) to migrate.")],
    select: Annotated[Optional[list[str]], typer.Option(
        "--select", metavar="CODEMODS", help="Codemods to run (comma-separated or repeated); `reply-audit codemods` lists them.")] = None,
    phase: Annotated[Optional[int], typer.Option(
        "--phase", metavar="N", help="Only the codemods of one migration phase: 1 safety net, 2 domain adoption, "
                        "3 strict mode.")] = None,
    apply: Annotated[bool, typer.Option("--apply", help="Write the rewritten files (default: only show the diff).")]
    = False,
    check: Annotated[bool, typer.Option("--check", help="Exit 1 when anything would change.")] = False,
    allow_dirty: Annotated[bool, typer.Option(
        "--allow-dirty", help="With --apply, also rewrite files that have uncommitted changes in git.")] = False,
    force: Annotated[bool, typer.Option("--force", help="With --apply, also rewrite read-only files.")] = False,
    resume: Annotated[bool, typer.Option(
        "--resume", help="Finish a `migrate --apply` that was interrupted (its journal is in PATH).")] = False,
    rollback: Annotated[bool, typer.Option(
        "--rollback", help="Undo a `migrate --apply` that was interrupted (its journal is in PATH).")] = False,
    format: Annotated[MigrateFormat, typer.Option("--format", "-f", help="diff (unified diff on stdout) or json.")]
    = MigrateFormat.diff,
    out: Annotated[Optional[Path], typer.Option("--out", "-o", metavar="FILE", help="Write the diff or JSON to this file.")] = None,
    profile: Annotated[Optional[str], typer.Option(
        "--profile", metavar="NAME|FILE", help="Built-in profile name or a profile .toml file.")] = None,
    mapping: Annotated[Optional[list[Path]], typer.Option(
        "--mapping", metavar="FILE", help="Extra mapping file (.toml or .csv): legacy codes, [tools.HANDLER] codes.")] = None,
    decisions: Annotated[Optional[Path], typer.Option(
        "--decisions", metavar="FILE", help="A decisions file (TOML): when it does not exist, write there the type and code "
                            "proposed for every converted return, with evidence, for a human to review (nothing "
                            "is applied); when it exists, apply its reviewed choices.")] = None,
    config: ConfigOption = None,
    exclude: ExcludeOption = None,
    extend_exclude: ExtendExcludeOption = None,
    force_exclude: ForceExcludeOption = False,
) -> None:
    """Rewrite PATH onto canonical builder calls: show the diff, or write it with --apply."""
    from .codemods import decisions as decisions_file, select_codemods
    from .migrate import migrate as run_migrate, write
    from .profile import load_profile
    from .report.migrate_report import render_json, render_summary
    from .scan import scan as run_scan

    try:
        if not path.exists():
            raise UserError(f"path {str(path)!r} does not exist")
        if apply and check:
            raise UserError("--apply and --check exclude each other: --check only reports")
        chosen = select_codemods(_split(select), phase)
        root_dir = path if path.is_dir() else path.parent
        if _settle_journal(root_dir, apply, resume, rollback):
            raise typer.Exit(EXIT_OK)
        effective, skipped = _selected(path, _load_profile(profile, root_dir, config=config), exclude,
                                       extend_exclude, force_exclude)
        if skipped:
            raise typer.Exit(EXIT_OK)
        reviewed = decisions_file.read(decisions) if decisions is not None and decisions.exists() else None
        with _progress() as progress:
            scanned = run_scan(path, effective, list(mapping or []), display_root=path.as_posix(),
                               progress=progress)
            if not scanned.files and not scanned.discovery_problems:
                raise UserError(f"no Python files in {str(path)!r} (none there, or all excluded or gitignored): "
                                "nothing to migrate")
            result = run_migrate(scanned, chosen, reviewed, progress)
        proposing = decisions is not None and reviewed is None
        if proposing:
            write_output(decisions_file.render(result.decided).encode("utf-8"), decisions)
            typer.echo(f"{path.as_posix()}: wrote {len(result.decided)} decision(s) to {decisions.as_posix()}: "
                       "review them, then run again with --decisions "
                       f"{decisions.as_posix()}" + (" (nothing was applied)" if apply else ""), err=True)
        if apply and not proposing:
            write(result, allow_dirty=allow_dirty, force=force)
        display = path.as_posix()
        if format is MigrateFormat.json:
            write_output(render_json(result, apply, display), out)
        elif not apply or out is not None:
            from .discovery import repo_prefix

            write_output(result.diff(repo_prefix(path)), out)
        typer.echo(render_summary(result, apply, display), err=True, nl=False)
    except UserError as exc:
        typer.echo(f"reply-audit: error: {exc.message}", err=True)
        raise typer.Exit(EXIT_USAGE) from None
    if result.refused or (check and result.changed) or (apply and proposing):
        raise typer.Exit(EXIT_FINDINGS)
    raise typer.Exit(EXIT_OK)


def _settle_journal(root: Path, apply: bool, resume: bool, rollback: bool) -> bool:
    """Deal with the journal of an interrupted `--apply` in ROOT: finish or undo it (True: done, nothing
    else to do), refuse to write over it, or warn in a dry run."""
    from .journal import FOLDER, Journal

    if resume and rollback:
        raise UserError("--resume and --rollback exclude each other")
    journal = Journal.find(root)
    if journal is None:
        if resume or rollback:
            raise UserError(f"no interrupted migrate to {'resume' if resume else 'roll back'} in {str(root)!r}")
        return False
    if resume or rollback:
        done = journal.resume() if resume else journal.rollback()
        verb = "finished" if resume else "rolled back"
        typer.echo(f"{root.as_posix()}: {verb} the interrupted migrate: {len(done.written)} file(s) written, "
                   f"{len(done.unchanged)} already done", err=True)
        if done.conflicts:
            raise UserError(f"changed since the interrupted run, left alone: {', '.join(done.conflicts)} "
                            f"(the journal stays in {FOLDER})")
        return True
    message = (f"an interrupted `migrate --apply` left its journal in {(root / FOLDER).as_posix()} "
               f"({len(journal.entries)} file(s)): run with --resume to finish it or --rollback to undo it")
    if apply:
        raise UserError(message)
    typer.echo(f"reply-audit: warning: {message}", err=True)
    return False


@app.command()
def hook(
    files: Annotated[Optional[list[Path]], typer.Argument(metavar="FILE", help="Files to report on (pre-commit passes the "
                                                                  "changed ones).")] = None,
    root: Annotated[Path, typer.Option("--root", metavar="DIR", help="The repository to scan for context.")] = Path("."),
    profile: Annotated[Optional[str], typer.Option("--profile", metavar="NAME|FILE", help="Built-in profile name or a .toml file.")]
    = None,
    fail_on: Annotated[Optional[FailOn], typer.Option(
        "--fail-on", help="Fail when a finding at or above this severity is in FILES [default: the profile's].")]
    = None,
    all_findings: Annotated[bool, typer.Option(
        "--all", help="Report every finding in FILES, not only those the change introduces against HEAD.")] = False,
    config: ConfigOption = None,
) -> None:
    """The pre-commit hook: scan the repository (with the cache and the pool), report the findings the change
    introduces in FILES against HEAD (exit 1 on failing ones); files outside --root are not its business."""
    from .codemods.planner import mark_fixable
    from .engine import evaluate, exit_code
    from .scan import scan as run_scan

    try:
        if not root.is_dir():
            raise UserError(f"--root {str(root)!r} is not a directory")
        effective = _load_profile(profile, root, config=config)
        level = _fail_level(fail_on, effective)
        base = root.resolve()
        wanted = set()
        missing = [f.as_posix() for f in files or [] if not f.exists()]
        if missing:
            raise UserError(f"no such file: {', '.join(missing)}")
        for f in files or []:
            full = f.resolve() if f.is_absolute() else (Path.cwd() / f).resolve()
            try:
                wanted.add(full.relative_to(base).as_posix())
            except ValueError:
                continue   # a file outside --root (a commit touching docs/ beside src/): not this hook's
        result = run_scan(root, effective, jobs=None, cache_dir=_cache_dir(root, None, False))
        evaluation = evaluate(result)
        evaluation.findings = [f for f in evaluation.findings if f.path in wanted]
        if evaluation.findings and not all_findings:
            evaluation.findings = _new_against_head(result, evaluation.findings, wanted,
                                                    _cache_dir(root, None, False))
        if evaluation.findings:   # the codemods (and libcst) are loaded only when there is something to mark
            mark_fixable(result, evaluation.findings)
    except UserError as exc:
        typer.echo(f"reply-audit: error: {exc.message}", err=True)
        raise typer.Exit(EXIT_USAGE) from None
    from .report.table import finding_line, shown_from

    colour, prefix = _colour(), shown_from(root)
    for f in evaluation.findings:
        typer.echo(finding_line(f, colour, prefix))
    if evaluation.findings:
        fixable = sum(1 for f in evaluation.findings if f.fixable)
        typer.echo(f"{len(evaluation.findings)} finding(s) in {len(wanted)} file(s)"
                   + (f"; {fixable} fixable with `reply-audit migrate`" if fixable else ""))
    raise typer.Exit(exit_code(evaluation, level))


def _new_against_head(result, findings, wanted: set[str], cache_dir: Path | None = None):
    """Of FINDINGS (in WANTED files), those the change introduces: the same tree with each changed file as HEAD
    has it (in memory, only those re-read) gives the findings that were there before; a finding is old when its
    fingerprint was there. Outside a git repository, or with no HEAD, every finding counts."""
    import subprocess

    from .engine import evaluate
    from .scan import rescan

    before: dict[str, bytes] = {}
    for rel in sorted(wanted):
        done = subprocess.run(["git", "-C", str(result.root), "show", f"HEAD:./{rel}"], capture_output=True,
                              timeout=60)
        if done.returncode == 0:
            before[rel] = done.stdout
    if not before:
        return findings
    old = {f.fingerprint for f in evaluate(rescan(result, before, cache_dir)).findings if f.path in before}
    return [f for f in findings if f.path not in before or f.fingerprint not in old]


class ScorecardFormat(str, Enum):
    md = "md"
    json = "json"
    github = "github"


@app.command()
def scorecard(
    path: Annotated[Path, typer.Argument(metavar="PATH", help="The repository, or a directory in it, to compare.")] = Path("."),
    base: Annotated[str, typer.Option("--base", metavar="REV", help="The revision the pull request starts from (its base).")]
    = "",
    head: Annotated[str, typer.Option("--head", metavar="REV", help="The revision to judge.")] = "HEAD",
    base_tip: Annotated[bool, typer.Option(
        "--base-tip", help="Compare with the base revision itself, not with the merge-base of base and head "
                           "(BASE...HEAD, the default).")] = False,
    format: Annotated[ScorecardFormat, typer.Option(
        "--format", "-f", help="md (the PR comment), json (the delta) or github (annotations for new findings).")]
    = ScorecardFormat.md,
    out: Annotated[Optional[Path], typer.Option("--out", "-o", metavar="FILE", help="Write to this file.")] = None,
    repo_url: Annotated[Optional[str], typer.Option(
        "--repo-url", metavar="URL", help="https://github.com/OWNER/REPO, to link findings to their lines [default: from "
                           "GITHUB_SERVER_URL and GITHUB_REPOSITORY].")] = None,
    profile: Annotated[Optional[str], typer.Option(
        "--profile", metavar="NAME|FILE", help="Built-in profile name or a profile .toml file [default: the head's [tool.reply-audit] "
                          "or 'canonical'].")] = None,
    mapping: Annotated[Optional[list[Path]], typer.Option("--mapping", metavar="FILE", help="Extra mapping file.")] = None,
    fail_on: Annotated[Optional[FailOn], typer.Option(
        "--fail-on", help="Exit 1 when the PR introduces a finding at or above this severity [default: the "
                          "profile's, high].")] = None,
    annotate: Annotated[bool, typer.Option(
        "--annotate", help="Also print GitHub annotations for the new findings on stdout, from the same two "
                           "scans (the report goes to --out).")] = False,
    config: ConfigOption = None,
) -> None:
    """Compare reply compliance at two git revisions: the pull-request comment, or its JSON delta."""
    from .delta import compare, revision_texts, scan_revision
    from .gitrev import merge_base, prefix_of, resolve
    from .profile import load_profile
    from .report.pr_comment import render_annotations, render_comment, render_json
    from .engine import failing

    try:
        if not base:
            raise UserError("--base is required: the revision the pull request starts from (e.g. origin/main)")
        if annotate and out is None and format is not ScorecardFormat.github:
            raise UserError("--annotate prints annotations on stdout: write the report with --out FILE")
        repo = path if path.is_dir() else path.parent
        prefix = prefix_of(path)
        base_rev, head_rev = resolve(repo, base), resolve(repo, head)
        if not base_tip:   # what the pull request changed, not what its base branch did since it left
            base_rev = merge_base(repo, base_rev, head_rev)
        texts = revision_texts(repo, head_rev, prefix, ["pyproject.toml"])
        effective = _load_profile(profile, repo, pyproject_text=texts.get("pyproject.toml", ""), config=config)
        level = _fail_level(fail_on, effective)
        extra = list(mapping or [])
        with _progress() as progress:
            delta = compare(scan_revision(repo, base_rev, prefix, effective, extra, "base", progress),
                            scan_revision(repo, head_rev, prefix, effective, extra, "head", progress), prefix)
        if repo_url is None and os.environ.get("GITHUB_REPOSITORY"):
            repo_url = f"{os.environ.get('GITHUB_SERVER_URL', 'https://github.com')}/{os.environ['GITHUB_REPOSITORY']}"
        if format is ScorecardFormat.json:
            text = render_json(delta, level)
        elif format is ScorecardFormat.github:
            text = render_annotations(delta)
        else:
            text = render_comment(delta, level, repo_url)
        write_output(text, out)
        if annotate and not (format is ScorecardFormat.github and out is None):
            write_output(render_annotations(delta), None)
    except UserError as exc:
        typer.echo(f"reply-audit: error: {exc.message}", err=True)
        raise typer.Exit(EXIT_USAGE) from None
    raise typer.Exit(EXIT_FINDINGS if failing(delta.introduced, level) else EXIT_OK)


def _list_or_explain(kind: str, name: str | None, format: str, items, find, explain, table, markdown) -> None:
    """The shared body of `rules` and `codemods`: explain NAME, or list ITEMS as text or Markdown."""
    if name:
        found = find(name)
        if found is None:
            typer.echo(f"reply-audit: error: unknown {kind} {name!r}; `reply-audit {kind}s` lists them", err=True)
            raise typer.Exit(EXIT_USAGE)
        typer.echo(explain(found), nl=False)
    elif format in ("md", "text"):
        typer.echo((markdown if format == "md" else table)(items), nl=False)
    else:
        typer.echo(f"reply-audit: error: --format {format!r}: use text or md", err=True)
        raise typer.Exit(EXIT_USAGE)


@app.command()
def codemods(
    name: Annotated[Optional[str], typer.Argument(metavar="CODEMOD", help="A codemod to explain.")] = None,
    format: Annotated[str, typer.Option("--format", "-f", metavar="text|md", help="text or md (the docs/codemods.md page).")] = "text",
) -> None:
    """List the codemods of `migrate`, or explain one."""
    from .codemods import all_codemods, get_codemod
    from .report.codemods_doc import codemods_markdown, codemods_table, explain_codemod

    _list_or_explain("codemod", name, format, all_codemods(), get_codemod, explain_codemod, codemods_table,
                     codemods_markdown)


@app.command()
def rules(
    rule_id: Annotated[Optional[str], typer.Argument(metavar="RULE", help="A rule id (RA101) to explain.")] = None,
    format: Annotated[str, typer.Option("--format", "-f", metavar="text|md", help="text or md (the docs/rules.md page).")] = "text",
) -> None:
    """List the rules, or explain one."""
    from .rules import all_rules, get_rule
    from .report.rules_doc import explain, rules_markdown, rules_table

    _list_or_explain("rule", rule_id, format, all_rules(), get_rule, explain, rules_table, rules_markdown)


@app.command()
def history(
    path: Annotated[Path, typer.Argument(metavar="PATH", help="The repository, or a directory in it.")] = Path("."),
    rev_range: Annotated[Optional[str], typer.Option(
        "--rev-range", metavar="RANGE", help="Commits to scan, as git log takes them (A..B) [default: all of HEAD's history].")]
    = None,
    max_commits: Annotated[Optional[int], typer.Option("--max-commits", metavar="N", min=1, help="Only the last N commits.")]
    = None,
    out: Annotated[Optional[Path], typer.Option(
        "--out", "-o", metavar="DIR", help="Directory for history.csv, .json, .png and .svg [default: reply-audit-history at the "
                            "project's root, wherever it runs from].")] = None,
    jobs: Annotated[Optional[int], typer.Option("--jobs", "-j", metavar="N", min=1, help="Processes that parse files "
                                                                               "[default: one per CPU].")] = None,
    profile: Annotated[Optional[str], typer.Option("--profile", metavar="NAME|FILE", help="Built-in profile name or a .toml file.")]
    = None,
    title: Annotated[Optional[str], typer.Option("--title", metavar="TEXT", help="The chart's title.")] = None,
    config: ConfigOption = None,
) -> None:
    """Compliance over a git history: a table per commit (CSV, JSON) and a chart (PNG, SVG)."""
    from .delta import revision_texts
    from .gitrev import prefix_of, resolve
    from .history import chart, history as run_history
    from .profile import project_root

    try:
        repo = path if path.is_dir() else path.parent
        out = out if out is not None else project_root(repo) / "reply-audit-history"
        prefix = prefix_of(path)
        head = resolve(repo, "HEAD")
        texts = revision_texts(repo, head, prefix, ["pyproject.toml"])
        effective = _load_profile(profile, repo, pyproject_text=texts.get("pyproject.toml", ""), config=config)
        with _progress() as progress:
            table = run_history(repo, prefix, effective, rev_range, max_commits, jobs, progress)
        try:
            out.mkdir(parents=True, exist_ok=True)
            table.assign(date=table["date"].dt.strftime("%Y-%m-%dT%H:%M:%SZ")).to_csv(out / "history.csv",
                                                                                        index=False)
            table.to_json(out / "history.json", orient="records", date_format="iso", indent=2)
            name = (prefix.rstrip("/") or repo.resolve().name)
            written = "history.csv, .json"
            try:
                chart(table, out / "history.png", out / "history.svg", title or f"reply compliance of {name}")
                written += ", .png, .svg"
            except ImportError:   # the chart is an extra: pip install "reply-audit[chart]"
                typer.echo("reply-audit: no chart: matplotlib is not installed (pip install 'reply-audit[chart]'); "
                           "history.csv and history.json are written", err=True)
        except OSError as exc:
            raise UserError(f"cannot write to {str(out)!r}: {exc.strerror or exc}") from None
    except UserError as exc:
        typer.echo(f"reply-audit: error: {exc.message}", err=True)
        raise typer.Exit(EXIT_USAGE) from None
    stats = table.attrs["stats"]
    first, last = table.iloc[0], table.iloc[-1]
    typer.echo(f"{stats['commits']} commits ({stats['blobs']} unique files parsed, {stats['evaluated']} "
               f"evaluated): findings {first['findings']} -> {last['findings']}, score {first['score']} -> "
               f"{last['score']}; wrote {out.as_posix()}/{written}")


class MergeFormat(str, Enum):
    md = "md"
    csv = "csv"


@app.command()
def merge(
    reports: Annotated[list[Path], typer.Argument(metavar="REPORT", help="JSON reports (reply-audit scan --format json), one per "
                                                       "repository.")],
    format: Annotated[MergeFormat, typer.Option("--format", "-f", help="md or csv.")] = MergeFormat.md,
    out: Annotated[Optional[Path], typer.Option("--out", "-o", metavar="FILE", help="Write to this file.")] = None,
) -> None:
    """The fleet scorecard: per-repository reports merged into one table with totals."""
    from .fleet import load, markdown

    try:
        table = load(reports)
        write_output(markdown(table) if format is MergeFormat.md else table.to_csv(index=False), out)
    except UserError as exc:
        typer.echo(f"reply-audit: error: {exc.message}", err=True)
        raise typer.Exit(EXIT_USAGE) from None


class _progress:
    """A progress bar on a terminal's stderr, shown once the work has taken a second (nothing for quick runs,
    CI logs or pipes); it disappears when done."""

    DELAY = 1.0

    def __enter__(self):
        import time

        self.bar = None
        self.live = sys.stderr.isatty() and not os.environ.get("CI")
        self.started = time.monotonic()
        self.tasks: dict[str, int] = {}
        return self.update

    def update(self, stage: str, done: int, total: int) -> None:
        import time

        if not self.live:
            return
        if self.bar is None:
            if time.monotonic() - self.started < self.DELAY:
                return
            from rich.console import Console
            from rich.progress import Progress

            self.bar = Progress(transient=True, console=Console(stderr=True))
            self.bar.start()
        if stage not in self.tasks:
            self.tasks[stage] = self.bar.add_task(stage, total=total)
        self.bar.update(self.tasks[stage], completed=done)

    def __exit__(self, *exc) -> None:
        if self.bar is not None:
            self.bar.stop()


cache_app = typer.Typer(help="The facts cache (.reply-audit-cache).", no_args_is_help=True, rich_markup_mode=None)
app.add_typer(cache_app, name="cache")


@cache_app.command("clear")
def cache_clear(
    path: Annotated[Path, typer.Argument(metavar="PATH", help="The scanned directory whose cache to clear.")] = Path("."),
    cache_dir: Annotated[Optional[Path], typer.Option("--cache-dir", metavar="DIR", help="A cache directory to remove.")] = None,
) -> None:
    """Remove the facts cache."""
    from .cache import clear

    if cache_dir is None and not path.is_dir():
        typer.echo(f"reply-audit: error: {str(path)!r} is not a directory", err=True)
        raise typer.Exit(EXIT_USAGE)
    target = _cache_dir(path, cache_dir, False)
    if not target.exists():
        typer.echo(f"reply-audit: no cache at {target}")
        return
    try:
        removed = clear(target)
    except (ValueError, OSError) as exc:
        typer.echo(f"reply-audit: error: {exc}", err=True)
        raise typer.Exit(EXIT_USAGE) from None
    typer.echo(f"reply-audit: removed {target} ({removed} entries)")


@profile_app.command("show")
def profile_show(
    name: Annotated[Optional[str], typer.Argument(metavar="NAME|FILE", help="Built-in name or profile file (default: effective).")] = None,
    path: Annotated[Path, typer.Option("--path", metavar="DIR", help="Repository whose [tool.reply-audit] is layered on.")] = Path("."),
    config: ConfigOption = None,
) -> None:
    """Print the effective profile as TOML; a value set above the built-in profile says where, in a comment."""
    from .profile import load_profile

    try:
        effective = _load_profile(name, path if path.is_dir() else None, config=config)
    except UserError as exc:
        typer.echo(f"reply-audit: error: {exc.message}", err=True)
        raise typer.Exit(EXIT_USAGE) from None
    typer.echo(f"# profile {effective.name} from {' + '.join(effective.sources)} (digest {effective.digest})")
    typer.echo("# a value with no `# from` comment comes from the built-in profile")
    typer.echo(effective.to_toml(origins=True), nl=False)


@profile_app.command("list")
def profile_list() -> None:
    """List the built-in profiles."""
    from .profile import builtin_names, load_profile

    for name in builtin_names():
        typer.echo(f"{name}\t{load_profile(name).data.get('profile', {}).get('title', '')}")


@app.command()
def init(
    path: Annotated[Path, typer.Argument(metavar="PATH", help="The repository to look at.")] = Path("."),
    write: Annotated[bool, typer.Option(
        "--write", help="Append the section to PATH/pyproject.toml (refused when it has one already).")] = False,
) -> None:
    """Propose a starter [tool.reply-audit] section from what the code shows (handler decorators, register
    calls, dispatch tables, reply functions, code Enums, envelope classes, IAR reflections)."""
    from .init import base_profile, collect, propose, write_section
    from .init_vet import vet

    try:
        if not path.is_dir():
            raise UserError(f"path {str(path)!r} is not a directory")
        evidence = collect(path)
        vetted = vet(propose(evidence), path, base_profile(evidence))
        text = vetted.text
        left = sum(1 for _ in evidence.scope.left_out) if evidence.scope else 0
        typer.echo(f"reply-audit: looked at {evidence.files} Python files ({evidence.unparseable} unparseable; "
                   f"{left} test or example folder(s) not taken as evidence)", err=True)
        base = base_profile(evidence)
        typer.echo(f"reply-audit: findings with the built-in {base} profile {vetted.baseline}, with this section "
                   f"{vetted.findings}" + (f"; {len(vetted.left_out)} key(s) left out as comments"
                                           if vetted.left_out else "")
                   + (f"; the default profile, canonical, gives {vetted.default}" if vetted.default is not None
                      else ""), err=True)
        if vetted.scope_added or vetted.scope_removed:
            typer.echo(f"reply-audit: the proposed excludes leave out {vetted.scope_removed} finding(s) and find "
                       f"{vetted.scope_added} more in the code that stays (what the copies had made ambiguous)",
                       err=True)
        if write:
            written = write_section(path, text)
            typer.echo(f"reply-audit: wrote the [tool.reply-audit] section to {written}", err=True)
        else:
            typer.echo(text, nl=False)
    except UserError as exc:
        typer.echo(f"reply-audit: error: {exc.message}", err=True)
        raise typer.Exit(EXIT_USAGE) from None


def main() -> None:
    app()


if __name__ == "__main__":
    main()
