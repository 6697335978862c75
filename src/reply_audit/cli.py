"""The `reply-audit` command line: parse the arguments (declared in `cli_options`), call `api`, print, exit.

Exit codes: 0 done and nothing failing, 1 findings at or above --fail-on (or,
for migrate, changes pending under --check or a refused rewrite), 2 a usage or
configuration error: one line on stderr (`_run`), never a traceback.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from pathlib import Path
from typing import Any

import typer

from . import api
from . import cli_options as opt
from .console import Progress, colour, say, write_output
from .errors import EXIT_OK, EXIT_USAGE, UserError

app = typer.Typer(name="reply-audit", help="Audit and migrate Python codebases onto a canonical reply system.",
                  no_args_is_help=True, add_completion=False, pretty_exceptions_enable=False,
                  rich_markup_mode=None)   # `[default: high]` and `[tool.reply-audit]` are text, not markup
profile_app = typer.Typer(help="Show the rule profiles (the spec as data).", no_args_is_help=True,
                          rich_markup_mode=None)
cache_app = typer.Typer(help="The facts cache (.reply-audit-cache).", no_args_is_help=True, rich_markup_mode=None)
app.add_typer(profile_app, name="profile")
app.add_typer(cache_app, name="cache")


def _run(command: Callable[..., int | None]) -> Callable[..., None]:
    """The one path from an error to an exit code: a UserError is one line on stderr and exit 2; otherwise the
    command's own code (0 when it returns none)."""
    @functools.wraps(command)
    def wrapper(*args: Any, **kwargs: Any) -> None:
        try:
            code = command(*args, **kwargs)
        except UserError as exc:
            say(f"error: {exc.message}")
            raise typer.Exit(EXIT_USAGE) from None
        raise typer.Exit(code or EXIT_OK)
    return wrapper


def _say_all(notes: list[str]) -> None:
    for note in notes:
        say(note)


@app.callback()
def root(version: opt.Version = None) -> None:
    """Audit and migrate Python codebases onto a canonical reply system."""


@app.command()
@_run
def scan(path: opt.ScanPath, format: opt.ScanFormatOption = opt.ScanFormat.table, out: opt.Out = None,
         profile: opt.Profile = None, mapping: opt.Mapping = None, select: opt.Select = None, ignore: opt.Ignore = None,
         fail_on: opt.FailLevel = None, baseline: opt.Baseline = None, write_baseline: opt.WriteBaseline = None,
         show_suppressed: opt.ShowSuppressed = False, jobs: opt.Jobs = None, cache_dir: opt.CacheDir = None,
         no_cache: opt.NoCache = False, config: opt.Config = None, exclude: opt.Exclude = None,
         extend_exclude: opt.ExtendExclude = None, force_exclude: opt.ForceExclude = False,
         statistics: opt.Statistics = False, verbose: opt.Verbose = False, quiet: opt.Quiet = False) -> int:
    """Audit PATH: the findings (the table format), or the full audit with inventory and compliance scorecard
    (md, json), or CI formats (sarif, github, csv)."""
    from .engine import baseline_text

    if statistics + verbose + quiet > 1:
        raise UserError("--statistics, --verbose and --quiet exclude each other")
    with Progress() as progress:
        audit = api.audit(path, profile=profile, config=config, mapping=mapping, select=select, ignore=ignore,
                          fail_on=fail_on.value if fail_on else None, baseline=baseline, exclude=exclude,
                          extend_exclude=extend_exclude, force_exclude=force_exclude, jobs=jobs,
                          cache_dir=cache_dir, no_cache=no_cache, progress=progress)
    _say_all(audit.notes)
    if audit.skipped:
        return EXIT_OK
    if write_baseline is not None:
        write_output(baseline_text(audit.evaluation.findings), write_baseline)
        say(f"wrote {len(audit.evaluation.findings)} findings to {write_baseline}")
        return EXIT_OK
    mode = "statistics" if statistics else "verbose" if verbose else "quiet" if quiet else "findings"
    write_output(api.render(audit, format.value, show_suppressed=show_suppressed, mode=mode,
                            colour=out is None and colour()), out)
    return audit.exit_code


@app.command()
@_run
def migrate(path: opt.MigratePath, select: opt.Codemods = None, phase: opt.Phase = None, apply: opt.Apply = False,
            check: opt.Check = False, allow_dirty: opt.AllowDirty = False, force: opt.Force = False,
            resume: opt.Resume = False, rollback: opt.Rollback = False,
            format: opt.MigrateFormatOption = opt.MigrateFormat.diff, out: opt.Out = None, profile: opt.Profile = None,
            mapping: opt.Mapping = None, decisions: opt.Decisions = None, config: opt.Config = None,
            exclude: opt.Exclude = None, extend_exclude: opt.ExtendExclude = None,
            force_exclude: opt.ForceExclude = False) -> int:
    """Rewrite PATH onto canonical builder calls: show the diff, or write it with --apply."""
    from .report.migrate_report import render_json, render_summary

    with Progress() as progress:
        done = api.migrate(path, select=select, phase=phase, apply=apply, check=check, allow_dirty=allow_dirty,
                           force=force, resume=resume, rollback=rollback, profile=profile, config=config,
                           mapping=mapping, decisions=decisions, exclude=exclude, extend_exclude=extend_exclude,
                           force_exclude=force_exclude, progress=progress)
    _say_all(done.notes)
    if done.settled:
        return done.exit_code
    if done.decisions_text is not None and decisions is not None:
        write_output(done.decisions_text.encode("utf-8"), decisions)
        typer.echo(done.decisions_written(decisions), err=True)
    if format is opt.MigrateFormat.json:
        write_output(render_json(done.result, apply, done.display), out)
    elif not apply or out is not None:
        write_output(done.result.diff(done.prefix), out)
    typer.echo(render_summary(done.result, apply, done.display), err=True, nl=False)
    return done.exit_code


@app.command()
@_run
def hook(files: opt.HookFiles = None, root: opt.HookRoot = Path("."), profile: opt.Profile = None,
         fail_on: opt.HookFailOn = None, all_findings: opt.AllFindings = False, config: opt.Config = None) -> int:
    """The pre-commit hook: scan the repository (with the cache and the pool), report the findings the change
    introduces in FILES against HEAD (exit 1 on failing ones); files outside --root are not its business."""
    from .report.table import finding_line, shown_from

    notes: list[str] = []
    done = api.hook(files or [], root, profile=profile, config=config, fail_on=fail_on.value if fail_on else None,
                    all_findings=all_findings, notes=notes)
    _say_all(notes)
    paint, prefix, findings = colour(), shown_from(root), done.evaluation.findings
    for f in findings:
        typer.echo(finding_line(f, paint, prefix))
    if findings:
        fixable = sum(1 for f in findings if f.fixable)
        typer.echo(f"{len(findings)} finding(s) in {done.files} file(s)"
                   + (f"; {fixable} fixable with `reply-audit migrate`" if fixable else ""))
    return done.exit_code


@app.command()
@_run
def scorecard(path: opt.ComparedPath = Path("."), base: opt.Base = "", head: opt.Head = "HEAD",
              base_tip: opt.BaseTip = False, format: opt.ScorecardFormatOption = opt.ScorecardFormat.md,
              out: opt.Out = None, repo_url: opt.RepoUrl = None, profile: opt.Profile = None,
              mapping: opt.Mapping = None, fail_on: opt.ScorecardFailOn = None, annotate: opt.Annotate = False,
              config: opt.Config = None) -> int:
    """Compare reply compliance at two git revisions: the pull-request comment, or its JSON delta."""
    from .report.pr_comment import render_annotations, render_comment, render_json

    if annotate and out is None and format is not opt.ScorecardFormat.github:
        raise UserError("--annotate prints annotations on stdout: write the report with --out FILE")
    notes: list[str] = []
    with Progress() as progress:
        done = api.scorecard(path, base, head, base_tip=base_tip, profile=profile, config=config, mapping=mapping,
                             fail_on=fail_on.value if fail_on else None, progress=progress, notes=notes)
    _say_all(notes)
    if format is opt.ScorecardFormat.json:
        text = render_json(done.delta, done.fail_on)
    elif format is opt.ScorecardFormat.github:
        text = render_annotations(done.delta)
    else:
        text = render_comment(done.delta, done.fail_on, api.repository_url(repo_url))
    write_output(text, out)
    if annotate and not (format is opt.ScorecardFormat.github and out is None):
        write_output(render_annotations(done.delta), None)
    return done.exit_code


@app.command()
@_run
def codemods(name: opt.CodemodName = None, format: opt.ListFormat = "text") -> None:
    """List the codemods of `migrate`, or explain one."""
    typer.echo(api.catalogue("codemod", name, format), nl=False)


@app.command()
@_run
def rules(rule_id: opt.RuleId = None, format: opt.ListFormat = "text") -> None:
    """List the rules, or explain one."""
    typer.echo(api.catalogue("rule", rule_id, format), nl=False)


@app.command()
@_run
def history(path: opt.RepoPath = Path("."), rev_range: opt.RevRange = None, max_commits: opt.MaxCommits = None,
            out: opt.HistoryOut = None, jobs: opt.Jobs = None, profile: opt.Profile = None, title: opt.Title = None,
            config: opt.Config = None) -> None:
    """Compliance over a git history: a table per commit (CSV, JSON) and a chart (PNG, SVG)."""
    notes: list[str] = []
    with Progress() as progress:
        done = api.history(path, rev_range=rev_range, max_commits=max_commits, out=out, jobs=jobs, profile=profile,
                           config=config, title=title, progress=progress, notes=notes)
    _say_all(notes)
    typer.echo(done.summary)


@app.command()
@_run
def merge(reports: opt.Reports, format: opt.MergeFormatOption = opt.MergeFormat.md, out: opt.Out = None) -> None:
    """The fleet scorecard: per-repository reports merged into one table with totals."""
    from .fleet import load, markdown

    table = load(reports)
    write_output(markdown(table) if format is opt.MergeFormat.md else table.to_csv(index=False), out)


@cache_app.command("clear")
@_run
def cache_clear(path: opt.CachePath = Path("."), cache_dir: opt.CacheFolder = None) -> None:
    """Remove the facts cache."""
    target, removed = api.clear_cache(path, cache_dir)
    typer.echo(f"reply-audit: no cache at {target}" if removed is None
               else f"reply-audit: removed {target} ({removed} entries)")


@profile_app.command("show")
@_run
def profile_show(name: opt.ProfileName = None, path: opt.ProfilePath = Path("."), config: opt.Config = None) -> None:
    """Print the effective profile as TOML; a value set above the built-in profile says where, in a comment."""
    text, notes = api.profile_text(name, path, config)
    _say_all(notes)
    typer.echo(text, nl=False)


@profile_app.command("list")
def profile_list() -> None:
    """List the built-in profiles."""
    typer.echo(api.profile_list(), nl=False)


@app.command()
@_run
def init(path: opt.InitPath = Path("."), write: opt.Write = False) -> None:
    """Propose a starter [tool.reply-audit] section from what the code shows (handler decorators, register
    calls, dispatch tables, reply functions, code Enums, envelope classes, IAR reflections)."""
    text, notes = api.init(path, write)
    _say_all(notes)
    if text is not None:
        typer.echo(text, nl=False)


def main() -> None:
    app()


if __name__ == "__main__":
    main()
