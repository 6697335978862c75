"""The `reply-audit` command line: parse the arguments (declared in `cli_options`), call `api`, print, exit.

Exit codes: 0 done and nothing failing, 1 findings at or above --fail-on (or,
for migrate, changes pending under --check or a refused rewrite), 2 a usage or
configuration error: one line on stderr (`main`), never a traceback.
"""

from __future__ import annotations

import argparse
import gc
import sys
from collections.abc import Sequence

from . import api
from . import cli_options as opt
from .console import Progress, colour, echo, say, stop_writing, write_output
from .ending import end_now
from .errors import EXIT_OK, EXIT_PIPE_CLOSED, EXIT_USAGE, OutputClosed, UserError


def _say_all(notes: list[str]) -> None:
    for note in notes:
        say(note)


@opt.command("scan", opt.ScanPath, opt.ScanFormat, opt.Out, opt.Profile, opt.Mapping, opt.Select, opt.Ignore,
         opt.FailLevel, opt.Baseline, opt.WriteBaseline, opt.ShowSuppressed, opt.Jobs, opt.CacheDir, opt.NoCache,
         opt.Config, opt.Exclude, opt.ExtendExclude, opt.ForceExclude, opt.Statistics, opt.Verbose, opt.Quiet)
def scan(a: argparse.Namespace) -> int:
    """Audit PATH: the findings (the table format), or the full audit with inventory and compliance scorecard
    (md, json), or CI formats (sarif, github, csv)."""
    if a.statistics + a.verbose + a.quiet > 1:
        raise UserError("--statistics, --verbose and --quiet exclude each other")
    options = dict(profile=a.profile, config=a.config, mapping=a.mapping, select=a.select, ignore=a.ignore,
                   fail_on=a.fail_on, baseline=a.baseline, exclude=a.exclude, extend_exclude=a.extend_exclude,
                   force_exclude=a.force_exclude, jobs=a.jobs, cache_dir=a.cache_dir, no_cache=a.no_cache)
    if a.write_baseline is not None:
        from .engine import baseline_text

        with Progress() as progress:
            audit = api.audit(a.path, progress=progress, **options)
        _say_all(audit.notes)
        if audit.skipped:
            return EXIT_OK
        write_output(baseline_text(audit.evaluation.findings), a.write_baseline)
        say(f"wrote {len(audit.evaluation.findings)} findings to {a.write_baseline}")
        return EXIT_OK
    mode = "statistics" if a.statistics else "verbose" if a.verbose else "quiet" if a.quiet else "findings"
    with Progress() as progress:
        done = api.report(a.path, format=a.format, show_suppressed=a.show_suppressed, mode=mode,
                          colour=a.out is None and colour(), progress=progress, **options)
    _say_all(done.notes)
    if not done.skipped:
        write_output(done.text, a.out)
    return done.exit_code


@opt.command("migrate", opt.MigratePath, opt.Codemods, opt.Phase, opt.Apply, opt.Check, opt.AllowDirty, opt.Force,
         opt.Resume, opt.Rollback, opt.MigrateFormat, opt.Out, opt.Profile, opt.Mapping, opt.Decisions, opt.Config,
         opt.Exclude, opt.ExtendExclude, opt.ForceExclude)
def migrate(a: argparse.Namespace) -> int:
    """Rewrite PATH onto canonical builder calls: show the diff, or write it with --apply."""
    from .codemods.rewriter import Rewriter

    # started first: its helper process readies libcst while this one imports the rest, scans and plans
    with Rewriter.start() as rewriter:
        from .report.migrate_report import render_json, render_summary

        with Progress() as progress:
            done = api.migrate(a.path, select=a.select, phase=a.phase, apply=a.apply, check=a.check,
                               allow_dirty=a.allow_dirty, force=a.force, resume=a.resume, rollback=a.rollback,
                               profile=a.profile, config=a.config, mapping=a.mapping, decisions=a.decisions,
                               exclude=a.exclude, extend_exclude=a.extend_exclude, force_exclude=a.force_exclude,
                               progress=progress, rewriter=rewriter)
    _say_all(done.notes)
    if done.settled:
        return done.exit_code
    if done.decisions_text is not None and a.decisions is not None:
        write_output(done.decisions_text.encode("utf-8"), a.decisions)
        echo(done.decisions_written(a.decisions), err=True)
    if a.format == "json":
        write_output(render_json(done.result, a.apply, done.display), a.out)
    elif not a.apply or a.out is not None:
        write_output(done.result.diff(done.prefix), a.out)
    echo(render_summary(done.result, a.apply, done.display), err=True, nl=False)
    return done.exit_code


@opt.command("hook", opt.HookFiles, opt.HookRoot, opt.Profile, opt.HookFailOn, opt.AllFindings, opt.Config)
def hook(a: argparse.Namespace) -> int:
    """The pre-commit hook: scan the repository (with the cache and the pool), report the findings the change
    introduces in FILES against HEAD (exit 1 on failing ones); files outside --root are not its business."""
    from .report.table import finding_line, shown_from

    notes: list[str] = []
    done = api.hook(a.files or [], a.root, profile=a.profile, config=a.config, fail_on=a.fail_on,
                    all_findings=a.all_findings, notes=notes)
    _say_all(notes)
    paint, prefix, findings = colour(), shown_from(a.root), done.evaluation.findings
    for f in findings:
        echo(finding_line(f, paint, prefix))
    if findings:
        fixable = sum(1 for f in findings if f.fixable)
        echo(f"{len(findings)} finding(s) in {done.files} file(s)"
             + (f"; {fixable} fixable with `reply-audit migrate`" if fixable else ""))
    return done.exit_code


@opt.command("scorecard", opt.ComparedPath, opt.Base, opt.Head, opt.BaseTip, opt.ScorecardFormat, opt.Out,
         opt.RepoUrl, opt.Profile, opt.Mapping, opt.ScorecardFailOn, opt.Annotate, opt.Config)
def scorecard(a: argparse.Namespace) -> int:
    """Compare reply compliance at two git revisions: the pull-request comment, or its JSON delta."""
    from .report.pr_comment import render_annotations, render_comment, render_json

    if a.annotate and a.out is None and a.format != "github":
        raise UserError("--annotate prints annotations on stdout: write the report with --out FILE")
    notes: list[str] = []
    with Progress() as progress:
        done = api.scorecard(a.path, a.base, a.head, base_tip=a.base_tip, profile=a.profile, config=a.config,
                             mapping=a.mapping, fail_on=a.fail_on, progress=progress, notes=notes)
    _say_all(notes)
    if a.format == "json":
        text = render_json(done.delta, done.fail_on)
    elif a.format == "github":
        text = render_annotations(done.delta)
    else:
        text = render_comment(done.delta, done.fail_on, api.repository_url(a.repo_url))
    write_output(text, a.out)
    if a.annotate and not (a.format == "github" and a.out is None):
        write_output(render_annotations(done.delta), None)
    return done.exit_code


@opt.command("codemods", opt.CodemodName, opt.ListFormat)
def codemods(a: argparse.Namespace) -> None:
    """List the codemods of `migrate`, or explain one."""
    echo(api.catalogue("codemod", a.name, a.format), nl=False)


@opt.command("rules", opt.RuleId, opt.ListFormat)
def rules(a: argparse.Namespace) -> None:
    """List the rules, or explain one."""
    echo(api.catalogue("rule", a.name, a.format), nl=False)


@opt.command("history", opt.RepoPath, opt.RevRange, opt.MaxCommits, opt.HistoryOut, opt.Jobs, opt.Profile, opt.Title,
         opt.Config, opt.CacheDir, opt.NoCache)
def history(a: argparse.Namespace) -> None:
    """Compliance over a git history: a table per commit (CSV, JSON) and a chart (PNG, SVG)."""
    notes: list[str] = []
    with Progress() as progress:
        done = api.history(a.path, rev_range=a.rev_range, max_commits=a.max_commits, out=a.out, jobs=a.jobs,
                           profile=a.profile, config=a.config, title=a.title, progress=progress, notes=notes,
                           cache_dir=a.cache_dir, no_cache=a.no_cache)
    _say_all(notes)
    echo(done.summary)


@opt.command("merge", opt.Reports, opt.MergeFormat, opt.Out)
def merge(a: argparse.Namespace) -> None:
    """The fleet scorecard: per-repository reports merged into one table with totals."""
    from .fleet import load, markdown

    table = load(a.reports)
    write_output(markdown(table) if a.format == "md" else table.to_csv(index=False), a.out)


@opt.command("init", opt.InitPath, opt.Write)
def init(a: argparse.Namespace) -> None:
    """Propose a starter [tool.reply-audit] section from what the code shows (handler decorators, register
    calls, dispatch tables, reply functions, code Enums, envelope classes, IAR reflections)."""
    text, notes = api.init(a.path, a.write)
    _say_all(notes)
    if text is not None:
        echo(text, nl=False)


@opt.command("cache clear", opt.CachePath, opt.CacheFolder)
def cache_clear(a: argparse.Namespace) -> None:
    """Remove the cache: facts per file and the reports kept."""
    target, removed = api.clear_cache(a.path, a.cache_dir)
    echo(f"reply-audit: no cache at {target}" if removed is None else f"reply-audit: removed {target} ({removed} "
                                                                      "entries)")


@opt.command("profile show", opt.ProfileName, opt.ProfilePath, opt.Config)
def profile_show(a: argparse.Namespace) -> None:
    """Print the effective profile as TOML; a value set above the built-in profile says where, in a comment."""
    text, notes = api.profile_text(a.name, a.path, a.config)
    _say_all(notes)
    echo(text, nl=False)


@opt.command("profile list")
def profile_list(a: argparse.Namespace) -> None:
    """List the built-in profiles."""
    echo(api.profile_list(), nl=False)


def app(argv: Sequence[str] | None = None) -> int:
    """Run the command line ARGV (default: the process's) and give its exit code."""
    args = list(sys.argv[1:] if argv is None else argv)
    try:
        return _dispatch(args)
    except opt.UsageError as exc:
        say(f"error: {opt.usage_text(exc.message)} (see `{exc.prog} --help`)")
    except UserError as exc:
        say(f"error: {exc.message}")
    except OutputClosed:   # the reader stopped reading (`reply-audit scan . | head`): the rest goes nowhere
        stop_writing()
        return EXIT_PIPE_CLOSED
    return EXIT_USAGE


def _dispatch(args: list[str]) -> int:
    parsed = opt.parse(args)
    if parsed is None:   # no command: its help was shown
        return EXIT_USAGE
    if parsed.version:
        from . import __version__

        echo(f"reply-audit {__version__}")
        return EXIT_OK
    return parsed.run(parsed) or EXIT_OK


# Commands that end the process after one scan run without the cyclic garbage collector: what a scan builds holds
# no reference cycle (counting references frees it), and the collector's passes over the modules a scan imports and
# the records it builds were a twentieth of a rescan after one change. The longer commands keep it.
WITHOUT_COLLECTOR = frozenset({"scan", "hook"})


def main() -> None:
    """The process's entry point (`reply-audit`, `python -m reply_audit`): runs the command line and ends the
    process with its exit code. To run a command and go on, call `app(argv)`, which returns the code."""
    if sys.argv[1:2] and sys.argv[1] in WITHOUT_COLLECTOR:
        gc.disable()
    code = app()
    end_now(code)   # (every command: nothing is left to do once it returns; `history` saves 0.28 s)
    sys.exit(code)


if __name__ == "__main__":
    main()
