"""What the command line accepts: every option declared once, shared by the commands that take it.

Also the two adjustments to typer's help and errors: an argument shows by its
metavar alone (PATH, not `<list[Path]>`), and a usage error is one line on
stderr like every other bad input.
"""

from __future__ import annotations

from enum import Enum
from pathlib import Path
from typing import IO, Annotated, Any, cast

import typer


def _plain_argument_help() -> None:
    """An argument with a metavar is shown by it alone; left as it is if typer's help classes change."""
    argument = getattr(getattr(typer, "core", None), "TyperArgument", None)
    shown = getattr(argument, "display_type_rich", None)
    if argument is None or shown is None or getattr(shown, "_reply_audit", False):
        return

    def display_type_rich(self: Any, ctx: Any) -> Any:   # typer's own classes, found with getattr
        return None if self.metavar else shown(self, ctx)

    display_type_rich._reply_audit = True   # type: ignore[attr-defined]
    argument.display_type_rich = display_type_rich


def _one_line_usage_errors() -> None:
    """A usage error (an unknown option, a bad choice, a missing argument) is one line on stderr with the help
    command to run; exit 2 as before. Left as it is if typer's classes change."""
    exceptions = getattr(getattr(typer, "_click", None), "exceptions", None)
    usage_error = getattr(exceptions, "UsageError", None)
    if usage_error is None or getattr(usage_error.show, "_reply_audit", False):
        return

    def show(self: Any, file: IO[str] | None = None) -> None:
        ctx = getattr(self, "ctx", None)
        hint = f" (see `{ctx.command_path} --help`)" if ctx is not None else ""
        message = " ".join(self.format_message().split()).replace("Value error, ", "")
        typer.echo(f"reply-audit: error: {message}{hint}", err=True)

    show._reply_audit = True   # type: ignore[attr-defined]
    usage_error.show = show


_plain_argument_help()
_one_line_usage_errors()


class ScanFormat(str, Enum):
    table = "table"
    json = "json"
    md = "md"
    sarif = "sarif"
    github = "github"
    csv = "csv"


class MigrateFormat(str, Enum):
    diff = "diff"
    json = "json"


class ScorecardFormat(str, Enum):
    md = "md"
    json = "json"
    github = "github"


class MergeFormat(str, Enum):
    md = "md"
    csv = "csv"


class FailOn(str, Enum):
    critical = "critical"
    high = "high"
    medium = "medium"
    low = "low"
    none = "none"


def _opt(*names: str, help: str, **kwargs: Any) -> typer.models.OptionInfo:
    return cast(typer.models.OptionInfo, typer.Option(*names, help=help, **kwargs))


def _paths(help: str, metavar: str = "PATH") -> typer.models.ArgumentInfo:
    return cast(typer.models.ArgumentInfo, typer.Argument(metavar=metavar, help=help))


RepoPath = Annotated[Path, _paths("The repository, or a directory in it.")]
Out = Annotated[Path | None, _opt("--out", "-o", metavar="FILE", help="Write to this file (atomically).")]
Profile = Annotated[str | None, _opt(
    "--profile", metavar="NAME|FILE",
    help="Built-in profile name or a profile .toml file [default: the repository's [tool.reply-audit] profile, "
         "else 'canonical'].")]
Config = Annotated[Path | None, _opt(
    "--config", metavar="FILE",
    help="Settings from this file (a pyproject.toml's [tool.reply-audit] table, or a TOML file holding that "
         "table's keys) instead of the nearest pyproject.toml above PATH.")]
Mapping = Annotated[list[Path] | None, _opt(
    "--mapping", metavar="FILE",
    help="Extra legacy→canonical mapping file (.toml or .csv; [tools.HANDLER] codes); repeatable.")]
Select = Annotated[list[str] | None, _opt(
    "--select", metavar="RULES", help="Rules to run: ids or prefixes (RA1, RA303), comma-separated or repeated.")]
Ignore = Annotated[list[str] | None, _opt("--ignore", metavar="RULES", help="Rules not to run.")]
FailLevel = Annotated[FailOn | None, _opt(
    "--fail-on", help="Exit 1 when a finding at or above this severity remains (the profile's own level, when it "
                      "sets one).  [default: high]")]
Jobs = Annotated[int | None, _opt(
    "--jobs", "-j", metavar="N", min=1, help="Processes that parse files [default: one per CPU, for large trees].")]
CacheDir = Annotated[Path | None, _opt(
    "--cache-dir", metavar="DIR",
    help="Where facts per file are kept between scans [default: .reply-audit-cache at the project's root: the "
         "folder of its configuration, else of .git, else PATH].")]
NoCache = Annotated[bool, _opt("--no-cache", help="Neither read nor write the cache.")]
Exclude = Annotated[list[str] | None, _opt(
    "--exclude", metavar="PATTERN",
    help="Folders and files to leave out, replacing the profile's [scan] exclude (names or globs, "
         "comma-separated or repeated).")]
ExtendExclude = Annotated[list[str] | None, _opt(
    "--extend-exclude", metavar="PATTERN", help="Folders and files to leave out as well as the profile's.")]
ForceExclude = Annotated[bool, _opt(
    "--force-exclude", help="Leave out a file named as PATH too when the excludes or a .gitignore cover it (for "
                            "editors and hooks that pass files one by one).")]


def _flag(*names: str, help: str) -> typer.models.OptionInfo:
    return cast(typer.models.OptionInfo, typer.Option(*names, help=help))


# scan
ScanPath = Annotated[Path, _paths("Directory (or file) to scan.")]
ScanFormatOption = Annotated[ScanFormat, _opt("--format", "-f", help="Output format.")]
Baseline = Annotated[Path | None, _opt(
    "--baseline", metavar="FILE", help="Report only findings not recorded in this baseline file.")]
WriteBaseline = Annotated[Path | None, _opt(
    "--write-baseline", metavar="FILE", help="Record the current findings as a baseline file and exit 0.")]
ShowSuppressed = Annotated[bool, _flag(
    "--show-suppressed", help="List the findings silenced by `# reply-audit: ignore[...]` comments.")]
Statistics = Annotated[bool, _flag(
    "--statistics", help="The table format: a count per rule instead of a line per finding.")]
Verbose = Annotated[bool, _flag(
    "--verbose", "-v", help="The table format: the inventory (registries, legacy codes, builders, handlers) "
                            "before the findings.")]
Quiet = Annotated[bool, _flag(
    "--quiet", "-q", help="The table format: only the finding lines (and files not read); no summary.")]

# migrate
MigratePath = Annotated[Path, _paths("Directory (or file) to migrate.")]
Codemods = Annotated[list[str] | None, _opt(
    "--select", metavar="CODEMODS",
    help="Codemods to run (comma-separated or repeated); `reply-audit codemods` lists them.")]
Phase = Annotated[int | None, _opt(
    "--phase", metavar="N",
    help="Only the codemods of one migration phase: 1 safety net, 2 domain adoption, 3 strict mode.")]
Apply = Annotated[bool, _flag("--apply", help="Write the rewritten files (default: only show the diff).")]
Check = Annotated[bool, _flag("--check", help="Exit 1 when anything would change.")]
AllowDirty = Annotated[bool, _flag(
    "--allow-dirty", help="With --apply, also rewrite files that have uncommitted changes in git.")]
Force = Annotated[bool, _flag("--force", help="With --apply, also rewrite read-only files.")]
Resume = Annotated[bool, _flag(
    "--resume", help="Finish a `migrate --apply` that was interrupted (its journal is in PATH).")]
Rollback = Annotated[bool, _flag(
    "--rollback", help="Undo a `migrate --apply` that was interrupted (its journal is in PATH).")]
MigrateFormatOption = Annotated[MigrateFormat, _opt(
    "--format", "-f", help="diff (unified diff on stdout) or json.")]
Decisions = Annotated[Path | None, _opt(
    "--decisions", metavar="FILE",
    help="A decisions file (TOML): when it does not exist, write there the type and code proposed for every "
         "converted return, with evidence, for a human to review (nothing is applied); when it exists, apply its "
         "reviewed choices.")]

# hook
HookFiles = Annotated[list[Path] | None, _paths("Files to report on (pre-commit passes the changed ones).", "FILE")]
HookRoot = Annotated[Path, _opt("--root", metavar="DIR", help="The repository to scan for context.")]
HookFailOn = Annotated[FailOn | None, _opt(
    "--fail-on", help="Fail when a finding at or above this severity is in FILES [default: the profile's].")]
AllFindings = Annotated[bool, _flag(
    "--all", help="Report every finding in FILES, not only those the change introduces against HEAD.")]

# scorecard
ComparedPath = Annotated[Path, _paths("The repository, or a directory in it, to compare.")]
Base = Annotated[str, _opt("--base", metavar="REV", help="The revision the pull request starts from (its base).")]
Head = Annotated[str, _opt("--head", metavar="REV", help="The revision to judge.")]
BaseTip = Annotated[bool, _flag(
    "--base-tip", help="Compare with the base revision itself, not with the merge-base of base and head "
                       "(BASE...HEAD, the default).")]
ScorecardFormatOption = Annotated[ScorecardFormat, _opt(
    "--format", "-f", help="md (the PR comment), json (the delta) or github (annotations for new findings).")]
RepoUrl = Annotated[str | None, _opt(
    "--repo-url", metavar="URL", help="https://github.com/OWNER/REPO, to link findings to their lines [default: "
                                      "from GITHUB_SERVER_URL and GITHUB_REPOSITORY].")]
ScorecardFailOn = Annotated[FailOn | None, _opt(
    "--fail-on", help="Exit 1 when the PR introduces a finding at or above this severity [default: the "
                      "profile's, high].")]
Annotate = Annotated[bool, _flag(
    "--annotate", help="Also print GitHub annotations for the new findings on stdout, from the same two scans "
                       "(the report goes to --out).")]

# rules, codemods
RuleId = Annotated[str | None, _paths("A rule id (RA101) to explain.", "RULE")]
CodemodName = Annotated[str | None, _paths("A codemod to explain.", "CODEMOD")]
ListFormat = Annotated[str, _opt("--format", "-f", metavar="text|md", help="text, or md (the docs page).")]

# history
RevRange = Annotated[str | None, _opt(
    "--rev-range", metavar="RANGE", help="Commits to scan, as git log takes them (A..B) [default: all of HEAD's "
                                         "history].")]
MaxCommits = Annotated[int | None, _opt("--max-commits", metavar="N", min=1, help="Only the last N commits.")]
HistoryOut = Annotated[Path | None, _opt(
    "--out", "-o", metavar="DIR", help="Directory for history.csv, .json, .png and .svg [default: "
                                       "reply-audit-history at the project's root, wherever it runs from].")]
Title = Annotated[str | None, _opt("--title", metavar="TEXT", help="The chart's title.")]

# reply-audit --version
def _print_version(value: bool) -> None:
    if value:
        from . import __version__

        typer.echo(f"reply-audit {__version__}")
        raise typer.Exit()


Version = Annotated[bool | None, typer.Option("--version", callback=_print_version, is_eager=True,
                                              help="Print the version and exit.")]

# merge, cache, profile, init
Reports = Annotated[list[Path], _paths("JSON reports (reply-audit scan --format json), one per repository.",
                                       "REPORT")]
MergeFormatOption = Annotated[MergeFormat, _opt("--format", "-f", help="md or csv.")]
CachePath = Annotated[Path, _paths("The scanned directory whose cache to clear.")]
CacheFolder = Annotated[Path | None, _opt("--cache-dir", metavar="DIR", help="A cache directory to remove.")]
ProfileName = Annotated[str | None, _paths("Built-in name or profile file (default: effective).", "NAME|FILE")]
ProfilePath = Annotated[Path, _opt("--path", metavar="DIR", help="Repository whose [tool.reply-audit] is layered on.")]
InitPath = Annotated[Path, _paths("The repository to look at.")]
Write = Annotated[bool, _flag(
    "--write", help="Append the section to PATH/pyproject.toml (refused when it has one already).")]
