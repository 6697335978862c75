"""The `migrate` pipeline: scan, plan, rewrite in passes, then show or write.

One pass plans every fixable finding (`codemods.planner`), keeps the edits
that do not overlap, and rewrites only the files they touch (`codemods.apply`).
The rewritten sources stay in memory; only those files are re-read for the
next pass, which plans again on the new code (an edit that overlapped waits
for it). Passes stop when nothing changes, so running `migrate` again on its
own output changes nothing.

Nothing is written unless `apply` is set; then each file is written
atomically (`safe_write`), and only when the tree's git status shows no
uncommitted change to it, unless `allow_dirty`.
"""

from __future__ import annotations

import difflib
from collections.abc import Callable
from dataclasses import field
from pathlib import Path

from . import gitrev
from .codemods import all_codemods
from .codemods.base import Codemod, Edit
from .codemods.context import PlanContext
from .codemods.convert import HandlerReplies
from .codemods.decisions import Decision, DecisionsFile
from .codemods.planner import Skipped, choose, plan
from .codemods.rewriter import Rewriter
from .engine import evaluate
from .errors import UserError
from .facts.model import WrapperFact
from .journal import Journal, stale_temporaries
from .record_class import record
from .safe_write import WriteRefused, check, replace
from .scan import ScanResult, rescan

MAX_PASSES = 6
EXPECTED = 8   # files the rewriter is told to expect, at most (one it parses ahead and never gets is time lost)


@record
class Applied:
    codemod: str
    path: str
    line: int
    description: str
    rules: list[str]
    pass_no: int


@record
class Refusal:
    codemod: str
    path: str
    line: int
    reason: str


@record
class MigrateResult:
    root: Path
    originals: dict[str, bytes] = field(default_factory=dict)
    sources: dict[str, bytes] = field(default_factory=dict)       # rewritten files: path -> new bytes
    applied: list[Applied] = field(default_factory=list)
    skipped: list[Skipped] = field(default_factory=list)
    refused: list[Refusal] = field(default_factory=list)
    written: list[str] = field(default_factory=list)
    passes: int = 0
    converged: bool = True
    wrote: bool = False                                            # write() ran: only written files count
    codemods: list[Codemod] = field(default_factory=list)
    folders: set[str] = field(default_factory=set)                 # folders of the scanned files (relative)
    removed_temporaries: list[str] = field(default_factory=list)  # stale temporaries of an interrupted run
    wrapper: WrapperFact | None = None                             # what the safety decorator does with raw dicts
    legacy_wrap: bool = False                                      # [migrate] legacy_wrap: phase 1 auto-wraps
    decisions: list[Decision] = field(default_factory=list)        # the type and code of every converted return
    decisions_file: DecisionsFile | None = None                    # the reviewed file the choices came from

    @property
    def changed(self) -> list[str]:
        return sorted(p for p, data in self.sources.items() if data != self.originals.get(p))

    @property
    def decided(self) -> list[Decision]:
        """The decisions of the converted returns that took effect (as `done`), in file order."""
        kept = [d for d in self.decisions if not self.wrote or d.path in self.written]
        return sorted(kept, key=lambda d: (d.path, d.line, d.fingerprint))

    @property
    def done(self) -> list[Applied]:
        """The rewrites that took effect: all of them in a dry run, those in written files after write()."""
        return [a for a in self.applied if not self.wrote or a.path in self.written]

    def diff(self, prefix: str = "") -> bytes:
        """A unified diff of the files' own bytes (any encoding, BOM, line endings), as `git apply` takes it;
        PREFIX (the scanned folder's place in its repository) makes its paths start at the repository's root."""
        chunks: list[bytes] = []
        for path in self.changed:
            old = self.originals[path].splitlines(keepends=True)
            new = self.sources[path].splitlines(keepends=True)
            name = (prefix + path).encode("utf-8", errors="surrogateescape")
            for line in difflib.diff_bytes(difflib.unified_diff, old, new, b"a/" + name, b"b/" + name):
                if line.startswith((b"---", b"+++", b"@@")) and not line.endswith(b"\n"):
                    line += b"\n"
                elif not line.endswith((b"\n", b"\r")):
                    line += b"\n\\ No newline at end of file\n"
                chunks.append(line)
        return b"".join(chunks)

    def counts(self) -> dict[str, dict[str, int]]:
        """Per codemod: files rewritten, rewrites, findings skipped, rewrites refused."""
        out = {c.name: {"phase": c.phase, "files": 0, "rewrites": 0, "skipped": 0, "refused": 0}
               for c in self.codemods}
        files: dict[str, set[str]] = {}
        for a in self.done:
            out[a.codemod]["rewrites"] += 1
            files.setdefault(a.codemod, set()).add(a.path)
        for name, paths in files.items():
            out[name]["files"] = len(paths)
        for s in self.skipped:
            out[s.codemod]["skipped"] += 1
        for r in self.refused:
            out[r.codemod]["refused"] += 1
        return out


def migrate(result: ScanResult, codemods: list[Codemod] | None = None,
            decisions: DecisionsFile | None = None,
            progress: Callable[[str, int, int], None] | None = None,
            cache_dir: Path | None = None, rewriter: Rewriter | None = None) -> MigrateResult:
    """Rewrite RESULT's tree in memory until no selected codemod finds anything more to fix; DECISIONS: a
    reviewed decisions file whose choices win over the proposals. PROGRESS(stage, done, total) per file.
    CACHE_DIR: the facts cache the scan used; each pass reads the rewritten sources' facts from it, or adds
    them (the same content gives the same rewrite on the next run, and the same facts after --apply).
    REWRITER: where files are rewritten (a helper process the caller started; None: here)."""
    rewriter = rewriter or Rewriter()
    chosen = list(codemods if codemods is not None else all_codemods())
    order = {c.name: i for i, c in enumerate(all_codemods())}
    out = MigrateResult(root=result.root, codemods=chosen, decisions_file=decisions,
                        folders={str(Path(f.path).parent) for f in result.files})
    context = PlanContext(result)
    if context.safety_decorator and {"safety-wrapper", "dict-returns"} & {c.name for c in chosen}:
        out.wrapper = context.wrapper
        out.legacy_wrap = bool(context.profile.migrate_value("legacy_wrap"))
    gave_up: set[tuple[object, ...]] = set()
    applied_keys: set[tuple[object, ...]] = set()
    current = result
    planned = None
    first_skips: list[Skipped] = []
    for pass_no in range(1, MAX_PASSES + 1):
        evaluation = evaluate(current)
        if pass_no == 1:   # the files the rewrites will likely be in: the helper parses them while this plans
            fixed = {rule for codemod in chosen for rule in codemod.fixes}
            for path in sorted({f.path for f in evaluation.findings if f.rule in fixed})[:EXPECTED]:
                rewriter.expect(result.root / path)
        planned = plan(current, evaluation.findings, chosen, decisions)
        if pass_no == 1:
            first_skips = list(planned.skipped)
        # what the last pass still skips, each at its line in the files as they are when the pass-1 plan met it
        # too (a later pass reads the rewritten source, whose lines moved)
        unused = list(first_skips)
        out.skipped = []
        for skip in planned.skipped:
            key = (skip.codemod, skip.finding.path, skip.finding.rule, skip.reason)
            same = next((s for s in unused if (s.codemod, s.finding.path, s.finding.rule, s.reason) == key), None)
            if same is not None:
                unused.remove(same)
            out.skipped.append(same or skip)
        edits = [e for e in planned.edits if e.key not in gave_up]
        now, _later = choose(edits, order)
        if not now:
            break
        out.passes = pass_no
        changed: dict[str, bytes] = {}
        by_file: dict[str, list[Edit]] = {}
        for edit in now:
            by_file.setdefault(edit.path, []).append(edit)
        for done, (path, file_edits) in enumerate(sorted(by_file.items()), 1):
            if progress:
                progress(f"rewriting (pass {pass_no})", done, len(by_file))
            source = out.sources.get(path)
            if source is None:
                source = _read(result.root, path)
                if source is None:
                    out.refused += [Refusal(e.codemod, path, e.first_line, "cannot read the file") for e in file_edits]
                    gave_up.update(e.key for e in file_edits)
                    continue
                out.originals[path] = source
            outcome = rewriter.rewrite(source, file_edits)
            for edit, reason in outcome.refused:
                out.refused.append(Refusal(edit.codemod, path, edit.first_line, reason))
                gave_up.add(edit.key)
            for edit in outcome.applied:
                out.applied.append(Applied(edit.codemod, path, edit.first_line, edit.description,
                                           sorted({f.rule for f in edit.findings}), pass_no))
                if isinstance(edit, HandlerReplies):
                    out.decisions += [p.decision for p in edit.returns.values() if p.decision]
            if outcome.new_source is not None:
                out.sources[path] = outcome.new_source
                changed[path] = outcome.new_source
            gave_up.update(e.key for e in outcome.applied)
            applied_keys.update(e.key for e in outcome.applied)
        if not changed:
            break
        current = rescan(current, changed, cache_dir)
    else:
        out.converged = False
    for edit in planned.edits if planned is not None and out.converged else []:
        if edit.key in applied_keys:  # a codemod bug: its rewrite did not remove what it was meant to
            out.refused.append(Refusal(edit.codemod, edit.path, edit.first_line,
                                       "rewritten, but the finding is still there: please report this"))
    for path in list(out.sources):
        if out.sources[path] == out.originals.get(path):
            del out.sources[path]
    return out


def _read(root: Path, rel: str) -> bytes | None:
    try:
        return (root / rel).read_bytes()
    except OSError:
        return None


# ---------------------------------------------------------------------------
# writing
# ---------------------------------------------------------------------------
def _in_git_tree(root: Path) -> bool:
    return any((parent / ".git").exists() for parent in (root.resolve(), *root.resolve().parents))


def _git(root: Path, *args: str) -> bytes:
    """Git's output in ROOT; UserError when git cannot answer for a tree that is under git."""
    done = gitrev.run(root, *args)
    if done is None or done.returncode != 0:
        first = "git cannot be run" if done is None else (
            done.stderr.decode("utf-8", errors="replace").strip().splitlines() or ["no message"])[0]
        raise UserError(f"cannot check for uncommitted changes (git: {first}); pass --allow-dirty to write "
                        "anyway")
    return done.stdout


def dirty_files(root: Path, paths: list[str]) -> list[str]:
    """Of PATHS (relative to ROOT), those with uncommitted changes; none when ROOT is not in a git work tree.

    A tree under git whose status git cannot give (no git program, an unsafe repository) is an error, never
    taken for a clean tree."""
    if not paths or not _in_git_tree(root):
        return []
    top = _git(root, "rev-parse", "--show-toplevel").decode("utf-8", errors="surrogateescape")
    status = _git(root, "status", "--porcelain", "-z", "--", *paths)
    top_dir = Path(top.strip()).resolve()
    dirty = set()
    for entry in status.decode("utf-8", errors="replace").split("\0"):
        if len(entry) > 3:
            full = (top_dir / entry[3:]).resolve()
            try:
                dirty.add(full.relative_to(root.resolve()).as_posix())
            except ValueError:
                continue
    return sorted(p for p in paths if p in dirty)


def write(result: MigrateResult, allow_dirty: bool = False, force: bool = False) -> None:
    """Write every changed file atomically; refuse on uncommitted changes unless ALLOW_DIRTY, and read-only
    files unless FORCE. Several files are written under a journal (`journal`): a run killed in the middle is
    finished or undone by the next one, and one that fails in the middle is undone at once."""
    paths = result.changed
    result.wrote = True
    if not allow_dirty:
        dirty = dirty_files(result.root, paths)
        if dirty:
            shown = ", ".join(dirty[:5]) + (f" and {len(dirty) - 5} more" if len(dirty) > 5 else "")
            raise UserError(f"uncommitted changes in {shown}: commit or stash them first, or pass --allow-dirty")
    for stale in stale_temporaries({result.root / folder for folder in result.folders}):
        try:
            stale.unlink()
            result.removed_temporaries.append(stale.relative_to(result.root).as_posix())
        except OSError:
            continue
    ready: list[tuple[str, int]] = []
    for path in paths:  # every check before the first write: a refusal never leaves the run half-done
        try:
            ready.append((path, check(result.root, path, result.originals[path], force=force)))
        except WriteRefused as exc:
            _not_written(result, path, exc.reason)
    journal = None
    if len(ready) > 1:
        try:
            journal = Journal.begin(result.root, [(p, result.originals[p], result.sources[p], m) for p, m in ready])
        except (OSError, WriteRefused) as exc:
            reason = getattr(exc, "reason", None) or getattr(exc, "strerror", None) or str(exc)
            for path, _mode in ready:
                _not_written(result, path, f"the journal cannot be written ({reason})")
            return
    for path, mode in ready:
        try:
            replace(result.root / path, result.sources[path], mode)
        except WriteRefused as exc:
            if journal is not None:   # undo what this run wrote: the tree is as it was
                journal.rollback()
                for done in result.written:
                    _not_written(result, done, f"undone, because {path} could not be written ({exc.reason})")
                result.written.clear()
            _not_written(result, path, exc.reason)
            if journal is not None:
                for rest, _mode in ready[ready.index((path, mode)) + 1:]:
                    _not_written(result, rest, f"{path} could not be written ({exc.reason})")
                return
            continue
        result.written.append(path)
    if journal is not None:
        journal.finish()


def _not_written(result: MigrateResult, path: str, reason: str) -> None:
    for a in result.applied:
        if a.path == path:
            result.refused.append(Refusal(a.codemod, path, a.line, f"not written: {reason}"))
