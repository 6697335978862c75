"""What the command line accepts: every option declared once, as data, shared by the commands that take it.

An `Opt` is an option, an `Arg` a positional argument; `add(parser, *params)` puts them on an argparse parser.
The standard library's argparse, not a framework: `reply-audit` starts in the time Python takes to start, which
a hook or an editor running it on every save pays each time. A bad value is a usage error (`UsageError`): one
line on stderr with the help command to run, exit 2 (cli.main prints it).
"""

from __future__ import annotations

import argparse
import re
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, TypeVar

from .console import echo
from .record_class import record

SCAN_FORMATS = ("table", "json", "md", "sarif", "github", "csv")
MIGRATE_FORMATS = ("diff", "json")
SCORECARD_FORMATS = ("md", "json", "github")
MERGE_FORMATS = ("md", "csv")
FAIL_LEVELS = ("critical", "high", "medium", "low", "none")


P = TypeVar("P", bound=argparse.ArgumentParser)


class UsageError(Exception):
    """A command line the parser refuses; PROG is the command whose help to read."""

    def __init__(self, message: str, prog: str) -> None:
        super().__init__(message)
        self.message, self.prog = message, prog


class Parser(argparse.ArgumentParser):
    """argparse, with its errors raised as one-line UsageErrors instead of printed with the usage."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.commands: dict[str, Parser] = {}   # the parser of each command (or group) under this one, by name

    def error(self, message: str) -> Any:   # argparse's hook: never returns
        raise UsageError(message, self.prog)

    def _print_message(self, message: str, file: Any = None) -> None:   # help and usage, as UTF-8 like the rest
        if message:
            echo(message, err=file is sys.stderr, nl=False)


def _choice(choices: tuple[str, ...]) -> Any:
    def check(text: str) -> str:
        if text not in choices:
            raise argparse.ArgumentTypeError(f"{text!r} is not one of {', '.join(map(repr, choices))}.")
        return text
    check.__name__ = "choice"
    return check


def _at_least(minimum: int) -> Any:
    def check(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not a whole number.") from None
        if value < minimum:
            raise argparse.ArgumentTypeError(f"{value} is not in the range x>={minimum}.")
        return value
    check.__name__ = "number"
    return check


@record(frozen=True)
class Opt:
    """An option: `--name VALUE` (or a flag), repeatable when MANY."""

    flags: tuple[str, ...]
    help: str
    metavar: str | None = None
    kind: Any = str                  # str, Path, int
    choices: tuple[str, ...] = ()
    many: bool = False
    flag: bool = False
    minimum: int | None = None
    default: Any = None
    dest: str | None = None

    def add_to(self, parser: argparse.ArgumentParser) -> None:
        extra: dict[str, Any] = {"dest": self.dest} if self.dest else {}
        if self.flag:
            parser.add_argument(*self.flags, action="store_true", help=self.help, **extra)
            return
        kind = _choice(self.choices) if self.choices else _at_least(self.minimum) if self.minimum is not None \
            else self.kind
        metavar = self.metavar or ("{" + ",".join(self.choices) + "}" if self.choices else None)
        shown = self.help + (f"  [default: {self.default}]" if self.default not in (None, "", False) else "")
        parser.add_argument(*self.flags, type=kind, metavar=metavar, help=shown, default=self.default,
                            action="append" if self.many else "store", **extra)


@record(frozen=True)
class Arg:
    """A positional argument; OPTIONAL ones take DEFAULT, MANY ones take any number."""

    dest: str
    metavar: str
    help: str
    kind: Any = Path
    optional: bool = False
    many: bool = False
    default: Any = None

    def add_to(self, parser: argparse.ArgumentParser) -> None:
        nargs = ("*" if self.optional else "+") if self.many else "?" if self.optional else None
        parser.add_argument(self.dest, metavar=self.metavar, type=self.kind, nargs=nargs, default=self.default,
                            help=self.help)


def add(parser: P, *params: Opt | Arg) -> P:
    for param in params:
        param.add_to(parser)
    return parser


def _opt(*flags: str, help: str, **kwargs: Any) -> Opt:
    return Opt(flags, help, **kwargs)


def _flag(*flags: str, help: str, dest: str | None = None) -> Opt:
    return Opt(flags, help, flag=True, dest=dest)


PROG = "reply-audit"
ABOUT = "Audit and migrate Python codebases onto a canonical reply system."
GROUPS = {"profile": "Show the rule profiles (the spec as data).",
          "cache": "The facts cache (.reply-audit-cache)."}


@record(frozen=True)
class Command:
    run: Callable[[argparse.Namespace], int | None]
    params: tuple[Opt | Arg, ...]


COMMANDS: dict[str, Command] = {}   # by name: `scan`, or `profile show` for a command of a group


def command(name: str, *params: Opt | Arg) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Declare the function it decorates as the command NAME (`profile show` for one of a group) taking PARAMS."""
    def register(run: Callable[[argparse.Namespace], int | None]) -> Callable[..., Any]:
        COMMANDS[name] = Command(run, params)
        return run
    return register


def build(args: Sequence[str] | None = None) -> Parser:
    """The whole command line: one sub-parser per command, a group (profile, cache) holding its own. With ARGS,
    only the commands they can name get their options (every command keeps its name and help): building all
    fifteen costs as much as a warm scan's whole discovery."""
    named = None if args is None else set(args)
    root = Parser(prog=PROG, description=ABOUT, allow_abbrev=False)
    root.add_argument("--version", action="store_true", help="Print the version and exit.")
    commands = root.add_subparsers(dest="command", metavar="COMMAND", parser_class=Parser)
    members: dict[str, Any] = {}   # a group's sub-commands
    for name, cmd in COMMANDS.items():
        head, _, sub = name.partition(" ")
        where, above = commands, root
        if sub:
            if head not in members:
                group = root.commands[head] = commands.add_parser(
                    head, help=GROUPS[head], description=GROUPS[head], allow_abbrev=False)
                members[head] = group.add_subparsers(dest="subcommand", metavar="COMMAND", parser_class=Parser)
            where, above = members[head], root.commands[head]
        about = " ".join((cmd.run.__doc__ or "").split())
        params = cmd.params if named is None or set(name.split()) <= named else ()
        one = above.commands[sub or head] = add(where.add_parser(
            sub or head, help=re.split(r"\.\s", about)[0].rstrip(".") + ".", description=about,
            allow_abbrev=False), *params)
        one.set_defaults(run=cmd.run)
    return root


def usage_text(message: str) -> str:
    """argparse's wording made plain: `the following arguments are required: PATH` -> `missing argument PATH`."""
    if message.startswith("the following arguments are required: "):
        return "missing argument " + message.removeprefix("the following arguments are required: ")
    return message

def parse(args: list[str]) -> argparse.Namespace | None:
    """ARGS parsed: global options, then a command (or a group and its command), then that command's options and
    arguments in any order (`hook a.py --all b.py`). The namespace's `run` is the command's function and
    `version` the global flag; None when no command was given (the help was shown). A bad command line raises
    UsageError; `--help` exits."""
    parser = build(args)
    at = _first_word(args)
    found = _known(parser, [a for a in args[:at] if a != "--"])   # `--version`, `-h`; `--` before a command
    if found.version:
        return found
    words = args[at:]
    while words and words[0] in parser.commands and parser.commands[words[0]].commands:   # a group: its command
        group = parser.commands[words[0]]
        inner = _first_word(words[1:]) + 1
        _known(group, words[1:inner])
        if inner == len(words):
            group.print_help()
            return None
        parser, words = group, words[inner:]
    if not words:
        parser.print_help()
        return None
    command = parser.commands.get(words[0])
    if command is None:
        import difflib  # only a mistyped command needs it

        near = difflib.get_close_matches(words[0], sorted(parser.commands), n=1)
        raise UsageError(f"no such command {words[0]!r}" + (f"; did you mean {near[0]!r}?" if near else ""),
                         parser.prog)
    parsed, extra = command.parse_known_intermixed_args(words[1:])
    if extra:
        raise UsageError(_unexpected(extra[0]), command.prog)
    parsed.version = False
    return parsed


def _first_word(args: list[str]) -> int:
    """The index of the first argument that is not an option (the command), or len(ARGS)."""
    return next((i for i, a in enumerate(args) if not a.startswith("-")), len(args))


def _known(parser: Parser, args: list[str]) -> argparse.Namespace:
    """PARSER's own options in ARGS (its help exits); anything else is a usage error."""
    found, extra = parser.parse_known_args(args)
    if extra:
        raise UsageError(_unexpected(extra[0]), parser.prog)
    return found


def _unexpected(arg: str) -> str:
    return f"no such option: {arg}" if arg.startswith("-") else f"unexpected argument: {arg}"



# shared by several commands
Out = _opt("--out", "-o", metavar="FILE", kind=Path, help="Write to this file (atomically).")
Profile = _opt("--profile", metavar="NAME|FILE",
               help="Built-in profile name or a profile .toml file [default: the repository's [tool.reply-audit] "
                    "profile, else 'canonical'].")
Config = _opt("--config", metavar="FILE", kind=Path,
              help="Settings from this file (a pyproject.toml's [tool.reply-audit] table, or a TOML file holding "
                   "that table's keys) instead of the nearest pyproject.toml above PATH.")
Mapping = _opt("--mapping", metavar="FILE", kind=Path, many=True,
               help="Extra legacy→canonical mapping file (.toml or .csv; [tools.HANDLER] codes); repeatable.")
Select = _opt("--select", metavar="RULES", many=True,
              help="Rules to run: ids or prefixes (RA1, RA303), comma-separated or repeated.")
Ignore = _opt("--ignore", metavar="RULES", many=True, help="Rules not to run.")
FailLevel = _opt("--fail-on", choices=FAIL_LEVELS,
                 help="Exit 1 when a finding at or above this severity remains (the profile's own level, when it "
                      "sets one).  [default: high]")
Jobs = _opt("--jobs", "-j", metavar="N", minimum=1,
            help="Processes that parse files [default: one per CPU, for large trees].")
CacheDir = _opt("--cache-dir", metavar="DIR", kind=Path,
                help="Where facts per file (and a scan's recent reports) are kept between runs [default: "
                     ".reply-audit-cache at the project's root: the folder of its configuration, else of .git, else "
                     "PATH].")
NoCache = _flag("--no-cache", help="Neither read nor write the cache.")
Exclude = _opt("--exclude", metavar="PATTERN", many=True,
               help="Folders and files to leave out, replacing the profile's [scan] exclude (names or globs, "
                    "comma-separated or repeated).")
ExtendExclude = _opt("--extend-exclude", metavar="PATTERN", many=True,
                     help="Folders and files to leave out as well as the profile's.")
ForceExclude = _flag("--force-exclude",
                     help="Leave out a file named as PATH too when the excludes or a .gitignore cover it (for "
                          "editors and hooks that pass files one by one).")

# scan
ScanPath = Arg("path", "PATH", "Directory (or file) to scan.")
ScanFormat = _opt("--format", "-f", choices=SCAN_FORMATS, default="table", help="Output format.")
Baseline = _opt("--baseline", metavar="FILE", kind=Path,
                help="Report only findings not recorded in this baseline file.")
WriteBaseline = _opt("--write-baseline", metavar="FILE", kind=Path,
                     help="Record the current findings as a baseline file and exit 0.")
ShowSuppressed = _flag("--show-suppressed",
                       help="List the findings silenced by `# reply-audit: ignore[...]` comments.")
Statistics = _flag("--statistics", help="The table format: a count per rule instead of a line per finding.")
Verbose = _flag("--verbose", "-v", help="The table format: the inventory (registries, legacy codes, builders, "
                                        "handlers) before the findings.")
Quiet = _flag("--quiet", "-q", help="The table format: only the finding lines (and files not read); no summary.")

# migrate
MigratePath = Arg("path", "PATH", "Directory (or file) to migrate.")
Codemods = _opt("--select", metavar="CODEMODS", many=True,
                help="Codemods to run (comma-separated or repeated); `reply-audit codemods` lists them.")
Phase = _opt("--phase", metavar="N", kind=int,
             help="Only the codemods of one migration phase: 1 safety net, 2 domain adoption, 3 strict mode.")
Apply = _flag("--apply", help="Write the rewritten files (default: only show the diff).")
Check = _flag("--check", help="Exit 1 when anything would change.")
AllowDirty = _flag("--allow-dirty", help="With --apply, also rewrite files that have uncommitted changes in git.")
Force = _flag("--force", help="With --apply, also rewrite read-only files.")
Resume = _flag("--resume", help="Finish a `migrate --apply` that was interrupted (its journal is in PATH).")
Rollback = _flag("--rollback", help="Undo a `migrate --apply` that was interrupted (its journal is in PATH).")
MigrateFormat = _opt("--format", "-f", choices=MIGRATE_FORMATS, default="diff",
                     help="diff (unified diff on stdout) or json.")
Decisions = _opt("--decisions", metavar="FILE", kind=Path,
                 help="A decisions file (TOML): when it does not exist, write there the type and code proposed for "
                      "every converted return, with evidence, for a human to review (nothing is applied); when it "
                      "exists, apply its reviewed choices.")

# hook
HookFiles = Arg("files", "FILE", "Files to report on (pre-commit passes the changed ones).", many=True,
                optional=True)
HookRoot = _opt("--root", metavar="DIR", kind=Path, default=Path("."), help="The repository to scan for context.")
HookFailOn = _opt("--fail-on", choices=FAIL_LEVELS,
                  help="Fail when a finding at or above this severity is in FILES [default: the profile's].")
AllFindings = _flag("--all", dest="all_findings",
                    help="Report every finding in FILES, not only those the change introduces against HEAD.")

# scorecard
ComparedPath = Arg("path", "PATH", "The repository, or a directory in it, to compare.", optional=True,
                   default=Path("."))
Base = _opt("--base", metavar="REV", default="", help="The revision the pull request starts from (its base).")
Head = _opt("--head", metavar="REV", default="HEAD", help="The revision to judge.")
BaseTip = _flag("--base-tip", help="Compare with the base revision itself, not with the merge-base of base and "
                                   "head (BASE...HEAD, the default).")
ScorecardFormat = _opt("--format", "-f", choices=SCORECARD_FORMATS, default="md",
                       help="md (the PR comment), json (the delta) or github (annotations for new findings).")
RepoUrl = _opt("--repo-url", metavar="URL",
               help="https://github.com/OWNER/REPO, to link findings to their lines [default: from "
                    "GITHUB_SERVER_URL and GITHUB_REPOSITORY].")
ScorecardFailOn = _opt("--fail-on", choices=FAIL_LEVELS,
                       help="Exit 1 when the PR introduces a finding at or above this severity [default: the "
                            "profile's, high].")
Annotate = _flag("--annotate", help="Also print GitHub annotations for the new findings on stdout, from the same "
                                    "two scans (the report goes to --out).")

# rules, codemods
RuleId = Arg("name", "RULE", "A rule id (RA101) to explain.", kind=str, optional=True)
CodemodName = Arg("name", "CODEMOD", "A codemod to explain.", kind=str, optional=True)
ListFormat = _opt("--format", "-f", metavar="text|md", default="text", help="text, or md (the docs page).")

# history
RepoPath = Arg("path", "PATH", "The repository, or a directory in it.", optional=True, default=Path("."))
RevRange = _opt("--rev-range", metavar="RANGE",
                help="Commits to scan, as git log takes them (A..B) [default: all of HEAD's history].")
MaxCommits = _opt("--max-commits", metavar="N", minimum=1, help="Only the last N commits.")
HistoryOut = _opt("--out", "-o", metavar="DIR", kind=Path,
                  help="Directory for history.csv, .json, .png and .svg [default: reply-audit-history at the "
                       "project's root, wherever it runs from].")
Title = _opt("--title", metavar="TEXT", help="The chart's title.")

# merge, cache, profile, init
Reports = Arg("reports", "REPORT", "JSON reports (reply-audit scan --format json), one per repository.", many=True)
MergeFormat = _opt("--format", "-f", choices=MERGE_FORMATS, default="md", help="md or csv.")
CachePath = Arg("path", "PATH", "The scanned directory whose cache to clear.", optional=True, default=Path("."))
CacheFolder = _opt("--cache-dir", metavar="DIR", kind=Path, help="A cache directory to remove.")
ProfileName = Arg("name", "NAME|FILE", "Built-in name or profile file (default: effective).", kind=str,
                  optional=True)
ProfilePath = _opt("--path", metavar="DIR", kind=Path, default=Path("."),
                   help="Repository whose [tool.reply-audit] is layered on.")
InitPath = Arg("path", "PATH", "The repository to look at.", optional=True, default=Path("."))
Write = _flag("--write", help="Append the section to PATH/pyproject.toml (refused when it has one already).")
