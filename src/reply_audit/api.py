"""The public Python API: what each command does, callable from Python.

Every function takes paths and settings and returns a record; none prints,
exits or writes to stdout. A mistake the user can fix is raised as
`UserError` (one line); what a command would say on stderr comes back in the
record's `notes`. The command line (`cli.py`) parses arguments, calls these,
prints and exits.

    from reply_audit import api
    audit = api.audit(Path("src"))
    print(api.render(audit, "table"))
"""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Callable, Iterable
from contextlib import nullcontext
from dataclasses import field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .errors import EXIT_FINDINGS, EXIT_OK, FAIL_LEVELS, UserError
from .lazy import lazy_module
from .profile import Profile, load_profile, project_root, with_excludes
from .record_class import record

if TYPE_CHECKING:  # pragma: no cover
    from . import engine
    from . import scan as scanning
    from .codemods import planner
    from .codemods.rewriter import Rewriter
    from .discovery import Gathered
    from .index import Inventory
    from .rules.base import Evaluation, Finding
    from .scan import ScanResult
else:   # imported when first used: a scan whose report the memo holds never loads the rules or the index
    engine = lazy_module("reply_audit.engine")
    planner = lazy_module("reply_audit.codemods.planner")
    scanning = lazy_module("reply_audit.scan")

__all__ = ["Audit", "Evaluation", "HookOutcome", "MigrateOutcome", "Profile", "Report", "ScanResult",
           "ScorecardOutcome", "audit", "evaluate", "hook", "load_profile", "migrate", "render", "report", "scan",
           "scorecard", "split"]


def __getattr__(name: str) -> Any:
    """The records this module names for its users, imported when first asked for."""
    if name in ("Evaluation", "Finding"):
        from .rules import base

        return getattr(base, name)
    if name == "ScanResult":
        return scanning.ScanResult
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

Progress = Callable[[str, int, int], None]


# -- settings ---------------------------------------------------------------------------------------------------
def split(values: Iterable[str] | None) -> list[str] | None:
    """Comma-separated or repeated values as one list (None when none were given)."""
    if not values:
        return None
    return [v.strip() for value in values for v in value.split(",") if v.strip()]


def settings(path: Path, profile: str | None = None, config: Path | None = None, *,
             pyproject_text: str | None = None, notes: list[str] | None = None) -> Profile:
    """The effective profile for PATH; an old spelling of a key adds a warning to NOTES."""
    effective = load_profile(profile, path if path.is_dir() else path.parent, pyproject_text=pyproject_text,
                             config=config)
    if notes is not None:
        notes.extend(f"warning: {note}" for note in effective.warnings)
    return effective


def fail_level(fail_on: str | None, profile: Profile) -> str:
    """--fail-on, else the profile's [rules] fail-on (checked), else high."""
    level = fail_on or str(profile.setting("rules", "fail_on"))
    if level not in FAIL_LEVELS:
        raise UserError(f"[rules] fail-on = {level!r}: use one of {', '.join(FAIL_LEVELS)}")
    return level


def cache_folder(path: Path, given: Path | None = None, off: bool = False) -> Path | None:
    """--cache-dir, else one cache at the project's root (the folder of its configuration, else of .git)."""
    from .cache import DEFAULT_DIR

    if off:
        return None
    return given if given is not None else project_root(path) / DEFAULT_DIR


def selected(path: Path, profile: Profile, exclude: Iterable[str] | None = None,
             extend_exclude: Iterable[str] | None = None, force_exclude: bool = False) -> tuple[Profile, bool]:
    """The profile with the command line's excludes, and whether PATH itself is to be left out."""
    from .discovery import excluded

    effective = with_excludes(profile, split(exclude), split(extend_exclude))
    return effective, force_exclude and path.is_file() and excluded(path, effective.scan_list("exclude"))


def _existing(path: Path) -> Path:
    if not path.exists():
        raise UserError(f"path {str(path)!r} does not exist")
    return path


def _no_files(path: Path, result: ScanResult, what: str) -> None:
    if not result.files and not result.discovery_problems:
        raise UserError(f"no Python files in {str(path)!r} (none there, or all excluded or gitignored): "
                        f"nothing to {what}")


# -- scan -------------------------------------------------------------------------------------------------------
def scan(path: Path, profile: Profile | None = None, mapping_paths: list[Path] | None = None, *,
         jobs: int | None = 1, cache_dir: Path | None = None, progress: Progress | None = None) -> ScanResult:
    """The facts and inventory of PATH (a folder or one file), under PROFILE (default: the one PATH's
    configuration names, found as `reply-audit scan` finds it)."""
    _existing(path)
    return scanning.scan(path, profile or settings(path), mapping_paths, display_root=path.as_posix(), jobs=jobs,
                         cache_dir=cache_dir, progress=progress)


def evaluate(result: ScanResult, select: list[str] | None = None, ignore: list[str] | None = None,
             baseline: Counter[str] | None = None) -> Evaluation:
    """The findings of RESULT that count (selection, suppressions, a baseline), each one `migrate` would fix
    marked `fixable`."""
    return planner.evaluate_fixable(result, select, ignore, baseline)


@record
class Audit:
    """A scan and its evaluation, with the level that fails it."""

    result: ScanResult
    evaluation: Evaluation
    fail_on: str
    skipped: bool = False          # PATH was excluded (--force-exclude): nothing was checked
    notes: list[str] = field(default_factory=list)

    @property
    def exit_code(self) -> int:
        return EXIT_OK if self.skipped else engine.exit_code(self.evaluation, self.fail_on)


def audit(path: Path, *, profile: str | None = None, config: Path | None = None,
          mapping: list[Path] | None = None, select: Iterable[str] | None = None,
          ignore: Iterable[str] | None = None, fail_on: str | None = None, baseline: Path | None = None,
          exclude: Iterable[str] | None = None, extend_exclude: Iterable[str] | None = None,
          force_exclude: bool = False, jobs: int | None = None, cache_dir: Path | None = None,
          no_cache: bool = False, progress: Progress | None = None) -> Audit:
    """`reply-audit scan`: every setting checked before anything is read, then the scan and its evaluation."""
    notes: list[str] = []
    effective, level, skipped = _checked(path, profile, config, fail_on, exclude, extend_exclude, force_exclude,
                                         notes)
    if skipped:
        return _skipped(path, effective, level, notes)
    return _audited(path, effective, level, notes, mapping, select, ignore, baseline, jobs,
                    cache_folder(path, cache_dir, no_cache), progress)


def _checked(path: Path, profile: str | None, config: Path | None, fail_on: str | None,
             exclude: Iterable[str] | None, extend_exclude: Iterable[str] | None, force_exclude: bool,
             notes: list[str]) -> tuple[Profile, str, bool]:
    """The effective profile of a scan of PATH, its fail level, and whether PATH is excluded."""
    _existing(path)
    effective, skipped = selected(path, settings(path, profile, config, notes=notes), exclude, extend_exclude,
                                  force_exclude)
    return effective, fail_level(fail_on, effective), skipped


def _skipped(path: Path, effective: Profile, level: str, notes: list[str]) -> Audit:
    notes.append(f"{path.as_posix()} is excluded (--force-exclude): nothing to check")
    from .rules.base import Evaluation

    return Audit(scanning.ScanResult(path.parent, path.as_posix(), effective, [], _empty_inventory()),
                 Evaluation(), level, skipped=True, notes=notes)


def _audited(path: Path, effective: Profile, level: str, notes: list[str], mapping: list[Path] | None,
             select: Iterable[str] | None, ignore: Iterable[str] | None, baseline: Path | None, jobs: int | None,
             cache: Path | None, progress: Progress | None, gathered: Gathered | None = None) -> Audit:
    known = engine.load_baseline(baseline) if baseline else None
    result = scanning.scan(path, effective, list(mapping or []), display_root=path.as_posix(), jobs=jobs,
                           cache_dir=cache, progress=progress, gathered=gathered)
    evaluation = evaluate(result, split(select), split(ignore), known)   # (checks --select and --ignore)
    _no_files(path, result, "check")
    return Audit(result, evaluation, level, notes=notes)


@record
class Report:
    """What `reply-audit scan` prints: the report in its format, the exit code, and the notes for stderr.
    REMEMBERED: the report memo held it (nothing it depends on had changed since a scan made it)."""

    text: str
    exit_code: int
    notes: list[str] = field(default_factory=list)
    skipped: bool = False          # PATH was excluded (--force-exclude): nothing was checked, nothing to print
    remembered: bool = False


def report(path: Path, *, format: str = "table", show_suppressed: bool = False, mode: str = "findings",
           colour: bool = False, profile: str | None = None, config: Path | None = None,
           mapping: list[Path] | None = None, select: Iterable[str] | None = None,
           ignore: Iterable[str] | None = None, fail_on: str | None = None, baseline: Path | None = None,
           exclude: Iterable[str] | None = None, extend_exclude: Iterable[str] | None = None,
           force_exclude: bool = False, jobs: int | None = None, cache_dir: Path | None = None,
           no_cache: bool = False, progress: Progress | None = None) -> Report:
    """`reply-audit scan` as printed: `audit` then `render`; or, with a cache, the report a scan with the same
    inputs already made (`memo`: every file read and every setting is part of its key)."""
    from .discovery import gather
    from .memo import Remembered, ReportMemo

    notes: list[str] = []
    effective, level, skipped = _checked(path, profile, config, fail_on, exclude, extend_exclude, force_exclude,
                                         notes)
    if skipped:
        return Report("", _skipped(path, effective, level, notes).exit_code, notes, skipped=True)
    cache = cache_folder(path, cache_dir, no_cache)
    gathered = gather(path, effective.scan_list("include"), effective.scan_list("exclude"))
    memo = ReportMemo(cache) if cache is not None else None
    key = _report_key(path, effective, gathered, level, mapping, select, ignore, baseline,
                      (format, show_suppressed, mode, colour)) if memo is not None else None
    hit = memo.get(key) if memo is not None and key is not None else None
    if hit is not None:
        return Report(hit.text, hit.exit_code, notes, remembered=True)
    done = _audited(path, effective, level, notes, mapping, select, ignore, baseline, jobs, cache, progress,
                    gathered)
    text = render(done, format, show_suppressed=show_suppressed, mode=mode, colour=colour)
    if memo is not None and key is not None:
        memo.put(key, Remembered(text, done.exit_code))
    return Report(text, done.exit_code, notes)


def _report_key(path: Path, effective: Profile, gathered: Gathered, level: str, mapping: list[Path] | None,
                select: Iterable[str] | None, ignore: Iterable[str] | None, baseline: Path | None,
                shown: tuple[str, bool, str, bool]) -> str | None:
    """The report memo's key: every input of a scan's report (see `memo`); None when one cannot be known (the
    working directory is gone), and then the scan runs."""
    from .discovery import precommit_path, repo_prefix
    from .memo import ReportKey

    root = gathered.found.root
    try:
        here, where = os.path.realpath(os.getcwd()), os.path.realpath(root)   # reports show paths from both
    except OSError:
        return None
    key = ReportKey()
    key.add_json("command", {"path": path.as_posix(), "real cwd": here, "real root": where,
                             "select": split(select), "ignore": split(ignore), "fail_on": level, "shown": shown,
                             "mapping": [os.fspath(m) for m in mapping or []], "baseline": baseline})
    if shown[0] in ("github", "csv", "sarif"):   # paths from the repository's root: where git says the tree is
        key.add("repository prefix", repo_prefix(root))
    key.add_json("profile", [effective.name, effective.sources, effective.data])
    key.add_tree(gathered)
    for rel in effective.section("mappings").get("files", []):
        key.add_file("mapping", root / rel)
    for extra in mapping or []:
        key.add_file("mapping", extra)
    key.add_file("baseline", baseline)
    key.add_file("pre-commit", precommit_path(root))
    return key.hexdigest()


def _empty_inventory() -> Inventory:
    from .index import Inventory

    return Inventory()


def render(audit: Audit, format: str = "table", *, show_suppressed: bool = False, mode: str = "findings",
           colour: bool = False) -> str:
    """The report of AUDIT in FORMAT (table, json, md, sarif, github, csv); MODE and COLOUR shape the table
    format."""
    result, evaluation = audit.result, audit.evaluation
    if format == "json":
        from .report.json_report import render_json

        return render_json(result, evaluation)
    if format == "md":
        from .report.markdown import render_markdown

        return render_markdown(result, evaluation, show_suppressed)
    if format == "sarif":
        from .report.sarif import render_sarif

        return render_sarif(result, evaluation)
    if format in ("github", "csv"):
        from .report.annotations import render_csv, render_github

        return (render_github if format == "github" else render_csv)(result, evaluation)
    from .report.table import render_table

    return render_table(result, evaluation, show_suppressed, mode, colour)


# -- migrate ----------------------------------------------------------------------------------------------------
@record
class MigrateOutcome:
    """What `migrate` did or would do, and the texts to show: DIFF (unified, from the repository's root), the
    decisions file to write when one was asked for and not yet there."""

    result: Any                     # migrate.MigrationResult
    apply: bool
    check: bool
    display: str
    prefix: str = ""
    decisions_text: str | None = None
    settled: bool = False           # an interrupted run was finished or rolled back: nothing else was done
    notes: list[str] = field(default_factory=list)

    def decisions_written(self, file: Path) -> str:
        """What to say once the proposed decisions are written to FILE."""
        return (f"{self.display}: wrote {len(self.result.decided)} decision(s) to {file.as_posix()}: review them, "
                f"then run again with --decisions {file.as_posix()}" + (" (nothing was applied)" if self.apply else ""))

    @property
    def exit_code(self) -> int:
        if self.settled:
            return EXIT_OK
        refused = bool(self.result.refused) if self.result is not None else False
        changed = bool(self.result.changed) if self.result is not None else False
        return EXIT_FINDINGS if refused or (self.check and changed) or (
            self.apply and self.decisions_text is not None) else EXIT_OK


def migrate(path: Path, *, select: Iterable[str] | None = None, phase: int | None = None, apply: bool = False,
            check: bool = False, allow_dirty: bool = False, force: bool = False, resume: bool = False,
            rollback: bool = False, profile: str | None = None, config: Path | None = None,
            mapping: list[Path] | None = None, decisions: Path | None = None,
            exclude: Iterable[str] | None = None, extend_exclude: Iterable[str] | None = None,
            force_exclude: bool = False, progress: Progress | None = None,
            rewriter: Rewriter | None = None) -> MigrateOutcome:
    """`reply-audit migrate`: plan the codemods on PATH and, with APPLY, write the rewritten files. REWRITER: where
    the files are rewritten (`Rewriter.start()` gives one, with a helper process where it pays); None: a rewriter
    is started for this call and closed before it returns."""
    from .codemods import decisions as decisions_file
    from .codemods import select_codemods
    from .codemods.rewriter import Rewriter
    from .discovery import repo_prefix
    from .migrate import migrate as run_migrate
    from .migrate import write

    _existing(path)
    if apply and check:
        raise UserError("--apply and --check exclude each other: --check only reports")
    chosen = select_codemods(split(select), phase)
    root = path if path.is_dir() else path.parent
    outcome = MigrateOutcome(None, apply, check, path.as_posix())
    if _settle_journal(root, apply, resume, rollback, outcome.notes):
        outcome.settled = True
        return outcome
    effective, skipped = selected(path, settings(path, profile, config, notes=outcome.notes), exclude,
                                  extend_exclude, force_exclude)
    if skipped:
        outcome.notes.append(f"{path.as_posix()} is excluded (--force-exclude): nothing to check")
        outcome.settled = True
        return outcome
    reviewed = decisions_file.read(decisions) if decisions is not None and decisions.exists() else None
    cache = cache_folder(path)
    with Rewriter.start() if rewriter is None else nullcontext(rewriter) as using:
        # (a helper process readies libcst while this one scans and plans)
        scanned = scanning.scan(path, effective, list(mapping or []), display_root=path.as_posix(), jobs=None,
                                cache_dir=cache, progress=progress)   # the cache and the pool, as scan
        _no_files(path, scanned, "migrate")
        outcome.result = run_migrate(scanned, chosen, reviewed, progress, cache, using)
    outcome.prefix = repo_prefix(path)
    if decisions is not None and reviewed is None:
        outcome.decisions_text = decisions_file.render(outcome.result.decided)
    elif apply:
        write(outcome.result, allow_dirty=allow_dirty, force=force)
    return outcome


def _settle_journal(root: Path, apply: bool, resume: bool, rollback: bool, notes: list[str]) -> bool:
    """Deal with the journal of an interrupted `--apply` in ROOT: finish or undo it (True: done, nothing else to
    do), refuse to write over it, or warn in a dry run."""
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
        notes.append(f"{root.as_posix()}: {verb} the interrupted migrate: {len(done.written)} file(s) written, "
                     f"{len(done.unchanged)} already done")
        if done.conflicts:
            raise UserError(f"changed since the interrupted run, left alone: {', '.join(done.conflicts)} "
                            f"(the journal stays in {FOLDER})")
        return True
    message = (f"an interrupted `migrate --apply` left its journal in {(root / FOLDER).as_posix()} "
               f"({len(journal.entries)} file(s)): run with --resume to finish it or --rollback to undo it")
    if apply:
        raise UserError(message)
    notes.append(f"warning: {message}")
    return False


# -- hook -------------------------------------------------------------------------------------------------------
@record
class HookOutcome:
    result: ScanResult
    evaluation: Evaluation
    fail_on: str
    files: int

    @property
    def exit_code(self) -> int:
        return engine.exit_code(self.evaluation, self.fail_on)


def hook(files: Iterable[Path], root: Path = Path("."), *, profile: str | None = None,
         config: Path | None = None, fail_on: str | None = None, all_findings: bool = False,
         notes: list[str] | None = None) -> HookOutcome:
    """The pre-commit hook: scan ROOT (with the cache and the pool) and keep the findings in FILES that the change
    introduces against HEAD (every one with ALL_FINDINGS); files outside ROOT are not its business."""
    from .engine import evaluate as plain_evaluate

    if not root.is_dir():
        raise UserError(f"--root {str(root)!r} is not a directory")
    effective = settings(root, profile, config, notes=notes)
    level = fail_level(fail_on, effective)
    files = list(files)
    missing = [f.as_posix() for f in files if not f.exists()]
    if missing:
        raise UserError(f"no such file: {', '.join(missing)}")
    base = root.resolve()
    wanted = set()
    for f in files:
        try:
            wanted.add(f.resolve().relative_to(base).as_posix())
        except ValueError:
            continue   # a file outside --root (a commit touching docs/ beside src/): not this hook's
    cache = cache_folder(root)
    result = scanning.scan(root, effective, jobs=None, cache_dir=cache)
    evaluation = plain_evaluate(result)
    evaluation.findings = [f for f in evaluation.findings if f.path in wanted]
    if evaluation.findings and not all_findings:
        evaluation.findings = _new_against_head(result, evaluation.findings, wanted, cache)
    if evaluation.findings:   # the codemods (and libcst) are loaded only when there is something to mark
        planner.mark_fixable(result, evaluation.findings)
    return HookOutcome(result, evaluation, level, len(wanted))


def _new_against_head(result: ScanResult, findings: list[Finding], wanted: set[str], cache_dir: Path | None) \
        -> list[Finding]:
    """Of FINDINGS (in WANTED files), those the change introduces: the same tree with each changed file as HEAD
    has it (in memory, only those re-read, or taken from the facts cache) gives the findings that were there
    before; a finding is old when its fingerprint was there. Outside a git repository, or with no HEAD, every
    finding counts."""
    from .engine import evaluate as plain_evaluate
    from .gitrev import show

    before = {rel: data for rel in sorted(wanted) if (data := show(result.root, f"HEAD:./{rel}")) is not None}
    if not before:
        return findings
    earlier = plain_evaluate(scanning.rescan(result, before, cache_dir))
    old = {f.fingerprint for f in earlier.findings if f.path in before}
    return [f for f in findings if f.path not in before or f.fingerprint not in old]


# -- scorecard --------------------------------------------------------------------------------------------------
@record
class ScorecardOutcome:
    delta: Any                      # delta.Delta
    fail_on: str

    @property
    def exit_code(self) -> int:
        return EXIT_FINDINGS if engine.failing(self.delta.introduced, self.fail_on) else EXIT_OK


def scorecard(path: Path, base: str, head: str = "HEAD", *, base_tip: bool = False, profile: str | None = None,
              config: Path | None = None, mapping: list[Path] | None = None, fail_on: str | None = None,
              progress: Progress | None = None, notes: list[str] | None = None) -> ScorecardOutcome:
    """Compare reply compliance at two revisions: HEAD against the merge-base of BASE and HEAD (BASE itself
    with BASE_TIP), both read from the object database."""
    from .delta import compare, revision_texts, scan_revision
    from .gitrev import merge_base, prefix_of, resolve

    if not base:
        raise UserError("--base is required: the revision the pull request starts from (e.g. origin/main)")
    repo = path if path.is_dir() else path.parent
    prefix = prefix_of(path)
    base_rev, head_rev = resolve(repo, base), resolve(repo, head)
    if not base_tip:   # what the pull request changed, not what its base branch did since it left
        base_rev = merge_base(repo, base_rev, head_rev)
    texts = revision_texts(repo, head_rev, prefix, ["pyproject.toml"])
    effective = settings(repo, profile, config, pyproject_text=texts.get("pyproject.toml", ""), notes=notes)
    level = fail_level(fail_on, effective)
    extra = list(mapping or [])
    delta = compare(scan_revision(repo, base_rev, prefix, effective, extra, "base", progress),
                    scan_revision(repo, head_rev, prefix, effective, extra, "head", progress), prefix)
    return ScorecardOutcome(delta, level)


def repository_url(given: str | None) -> str | None:
    """--repo-url, else the GitHub Actions repository (GITHUB_SERVER_URL and GITHUB_REPOSITORY)."""
    if given is None and os.environ.get("GITHUB_REPOSITORY"):
        return f"{os.environ.get('GITHUB_SERVER_URL', 'https://github.com')}/{os.environ['GITHUB_REPOSITORY']}"
    return given


# -- history ----------------------------------------------------------------------------------------------------
@record
class HistoryOutcome:
    table: Any                      # pandas.DataFrame, a row per commit (history.table)
    folder: Path
    written: str                    # the files written there

    @property
    def summary(self) -> str:
        stats, first, last = self.table.attrs["stats"], self.table.iloc[0], self.table.iloc[-1]
        cached = stats.get("cached", 0)
        parsed = f"{stats['blobs']} unique files parsed" if not cached else \
            f"{stats['blobs']} unique files, {stats['blobs'] - cached} parsed and {cached} from the cache"
        return (f"{stats['commits']} commits ({parsed}, {stats['evaluated']} evaluated): "
                f"findings {first['findings']} -> {last['findings']}, score {first['score']} -> {last['score']}; "
                f"wrote {self.folder.as_posix()}/{self.written}")


def history(path: Path, *, rev_range: str | None = None, max_commits: int | None = None, out: Path | None = None,
            jobs: int | None = None, profile: str | None = None, config: Path | None = None,
            title: str | None = None, progress: Progress | None = None,
            notes: list[str] | None = None, cache_dir: Path | None = None, no_cache: bool = False) -> HistoryOutcome:
    """Compliance over a git history: the table, written to OUT as history.csv and .json (with the [chart]
    extra, .png and .svg too). Each file version's facts are kept in the cache (CACHE_DIR, else the project's),
    as a scan keeps them: a later run parses only the versions it has not seen."""
    from .delta import revision_texts
    from .gitrev import prefix_of, resolve
    from .history import chart, preload_chart
    from .history import history as run_history

    repo = path if path.is_dir() else path.parent
    out = out if out is not None else project_root(repo) / "reply-audit-history"
    prefix = prefix_of(path)
    texts = revision_texts(repo, resolve(repo, "HEAD"), prefix, ["pyproject.toml"])
    effective = settings(repo, profile, config, pyproject_text=texts.get("pyproject.toml", ""), notes=notes)
    folder = cache_folder(repo, cache_dir, no_cache)
    table = run_history(repo, prefix, effective, rev_range, max_commits, jobs, progress, folder, preload_chart)
    try:
        out.mkdir(parents=True, exist_ok=True)
        table.assign(date=table["date"].dt.strftime("%Y-%m-%dT%H:%M:%SZ")).to_csv(out / "history.csv", index=False)
        table.to_json(out / "history.json", orient="records", date_format="iso", indent=2)
        written = "history.csv, .json"
        try:
            name = prefix.rstrip("/") or repo.resolve().name
            chart(table, out / "history.png", out / "history.svg", title or f"reply compliance of {name}")
            written += ", .png, .svg"
        except ImportError:   # the chart is an extra: pip install "reply-audit[chart]"
            if notes is not None:
                notes.append("no chart: matplotlib is not installed (pip install 'reply-audit[chart]'); "
                             "history.csv and history.json are written")
    except OSError as exc:
        raise UserError(f"cannot write to {str(out)!r}: {exc.strerror or exc}") from None
    return HistoryOutcome(table, out, written)


# -- cache ------------------------------------------------------------------------------------------------------
def clear_cache(path: Path, cache_dir: Path | None = None) -> tuple[Path, int | None]:
    """Remove the cache of PATH's project (or CACHE_DIR), facts and kept reports: its folder and how many facts
    entries it held (None when there was none)."""
    from .cache import clear

    if cache_dir is None and not path.is_dir():
        raise UserError(f"{str(path)!r} is not a directory")
    target = cache_folder(path, cache_dir)
    assert target is not None
    if not target.exists():
        return target, None
    try:
        return target, clear(target)
    except (ValueError, OSError) as exc:
        raise UserError(str(exc)) from None



# -- rules, codemods, init ----------------------------------------------------------------------------------------
def catalogue(kind: str, name: str | None = None, format: str = "text") -> str:
    """The `rules` or `codemods` page (KIND "rule" or "codemod"): NAME explained, or all of them as text or md."""
    if kind == "rule":
        from .report.rules_doc import explain, rules_markdown, rules_table
        from .rules import all_rules, get_rule

        return _page(kind, name, format, all_rules(), get_rule, explain, rules_table, rules_markdown)
    from .codemods import all_codemods, get_codemod
    from .report.codemods_doc import codemods_markdown, codemods_table, explain_codemod

    return _page(kind, name, format, all_codemods(), get_codemod, explain_codemod, codemods_table,
                 codemods_markdown)


def _page(kind: str, name: str | None, format: str, items: Any, find: Callable[[str], Any],
          explain: Callable[[Any], str], table: Callable[[Any], str], markdown: Callable[[Any], str]) -> str:
    if name:
        found = find(name)
        if found is None:
            raise UserError(f"unknown {kind} {name!r}; `reply-audit {kind}s` lists them")
        return explain(found)
    if format not in ("md", "text"):
        raise UserError(f"--format {format!r}: use text or md")
    return (markdown if format == "md" else table)(items)


def init(path: Path, write: bool = False) -> tuple[str | None, list[str]]:
    """`reply-audit init`: the proposed [tool.reply-audit] section (None when WRITE appended it to
    PATH/pyproject.toml) and what to say about it."""
    from .init import base_profile, collect, propose, write_section
    from .init_vet import vet

    if not path.is_dir():
        raise UserError(f"path {str(path)!r} is not a directory")
    evidence = collect(path)
    base = base_profile(evidence)
    vetted = vet(propose(evidence), path, base)
    left = sum(1 for _ in evidence.scope.left_out) if evidence.scope else 0
    notes = [f"looked at {evidence.files} Python files ({evidence.unparseable} unparseable; {left} test or example "
             "folder(s) not taken as evidence)",
             f"findings with the built-in {base} profile {vetted.baseline}, with this section {vetted.findings}"
             + (f"; {len(vetted.left_out)} key(s) left out as comments" if vetted.left_out else "")
             + (f"; the default profile, canonical, gives {vetted.default}" if vetted.default is not None else "")]
    if vetted.scope_added or vetted.scope_removed:
        notes.append(f"the proposed excludes leave out {vetted.scope_removed} finding(s) and find "
                     f"{vetted.scope_added} more in the code that stays (what the copies had made ambiguous)")
    if not write:
        return vetted.text, notes
    notes.append(f"wrote the [tool.reply-audit] section to {write_section(path, vetted.text)}")
    return None, notes


# -- profiles -----------------------------------------------------------------------------------------------------
def profile_text(name: str | None = None, path: Path = Path("."), config: Path | None = None) -> tuple[str, list[str]]:
    """The effective profile as TOML, each value set above the built-in profile commented with where it came
    from; and the warnings about old spellings."""
    effective = load_profile(name, path if path.is_dir() else None, config=config)
    head = (f"# profile {effective.name} from {' + '.join(effective.sources)} (digest {effective.digest})\n"
            "# a value with no `# from` comment comes from the built-in profile\n")
    return head + effective.to_toml(origins=True), [f"warning: {note}" for note in effective.warnings]


def profile_list() -> str:
    """The built-in profiles, one `NAME<TAB>TITLE` line each."""
    from .profile import builtin_names

    return "".join(f"{name}\t{load_profile(name).data.get('profile', {}).get('title', '')}\n"
                   for name in builtin_names())
