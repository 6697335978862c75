"""Compliance over a git history: one row of counts per commit, computed from the object database.

Each commit's files are listed with `git ls-tree`; a file's facts are
extracted once per blob (most blobs do not change between commits) and
reused, with their path, wherever the blob appears again. A commit whose
scanned files are exactly those of the commit before gets that commit's row
again without any work; the others get an inventory, the rules and the
scorecard. Blobs are read in chunks by `git cat-file --batch` and parsed in
this process or a process pool, or taken from the facts cache (keyed as a
scan keys them: the path a blob is parsed under and its bytes), so a later
run parses only the versions it has not seen. Nothing is checked out.

The table (pandas) has, per commit: the date, the findings by severity,
legacy codes defined and still used, active registries, builders, raw dict
returns, fixable findings and a compliance score (the mean share of the
scorecard's requirements met, in percent).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .cache import FactsCache, opened
from .codemods.planner import evaluate_fixable as evaluate
from .compliance import requirements
from .discovery import PRECOMMIT_FILES, is_test_path, select
from .errors import SEVERITIES, UserError
from .facts.extract import FactsExtractor
from .facts.model import FileFacts
from .gitrev import _git, list_commits_files, read_blobs
from .index import FileRecords, ModuleMap
from .profile import Profile
from .rules.base import RuleContext
from .scan import ScanResult, _inventory, tooling_facts
from .workers import extract_batch, gc_paused

if TYPE_CHECKING:  # pragma: no cover
    from concurrent.futures import Future, ProcessPoolExecutor

    import pandas as pd

COLUMNS = ["commit", "date", "subject", "files", "findings", *SEVERITIES, "legacy_codes", "legacy_uses",
           "registries", "builders", "raw_dict_returns", "fixable", "score"]


def commits(repo: Path, rev_range: str | None, max_commits: int | None) -> list[tuple[str, int, str]]:
    """(sha, commit time, subject), oldest first; the last MAX_COMMITS of the range."""
    args = ["log", "--date-order", "--format=%H%x00%ct%x00%s", rev_range or "HEAD"]
    if max_commits:
        args.insert(1, f"--max-count={max_commits}")
    try:
        out = _git(repo, *args, "--")
    except UserError as exc:
        raise UserError(f"cannot read the history {rev_range or 'HEAD'!r}: {exc.message}") from None
    rows = []
    for line in out.decode("utf-8", errors="replace").splitlines():
        sha, time, subject = line.split("\x00", 2)
        rows.append((sha, int(time), subject))
    return list(reversed(rows))


def history(repo: Path, prefix: str, profile: Profile, rev_range: str | None = None,
            max_commits: int | None = None, jobs: int | None = 1,
            progress: Callable[[str, int, int], None] | None = None, cache_dir: Path | None = None,
            preload: Callable[[], None] | None = None) -> pd.DataFrame:
    """The per-commit table (pandas); `table.attrs["stats"]` counts commits, unique blobs (and how many of them
    the facts cache in CACHE_DIR held) and evaluations. PRELOAD: run in a thread once the worker processes are
    started, to import what the caller will need (pandas is imported so too): it overlaps the workers' parsing
    instead of the start of the run or its end."""
    listed = commits(repo, rev_range, max_commits)
    if not listed:
        raise UserError(f"no commits in {rev_range or 'HEAD'!r}")
    include, exclude = profile.scan_list("include"), profile.scan_list("exclude")
    tests = profile.scan_list("test_paths")
    chosen_of: dict[str, bool] = {}
    trees: list[dict[str, str]] = []
    configs: list[tuple[tuple[str, str], ...]] = []   # the pre-commit configuration of each commit
    first_path: dict[str, str] = {}
    for n, files in enumerate(list_commits_files(repo, [sha for sha, _, _ in listed], prefix), start=1):
        fresh = [p for p in files if p not in chosen_of]
        picked = set(select(fresh, include, exclude))
        chosen_of.update((p, p in picked) for p in fresh)
        tree = {p: b for p, b in files.items() if chosen_of[p]}
        trees.append(tree)
        configs.append(tuple((name, files[name]) for name in PRECOMMIT_FILES if name in files))
        for path, blob in sorted(tree.items()):
            first_path.setdefault(blob, path)          # in order of first appearance: early commits first
        if progress:
            progress("listing commits", n, len(listed))
    by_blob = _BlobFacts(repo, first_path, profile, jobs, progress, opened(cache_dir, profile.digest),
                         lambda: _preload(preload))
    try:
        # (without the cyclic collector, as a scan parses: the facts of every version and each commit's inventory
        # hold no reference cycle, and the collector walked the millions of facts kept for later commits again and
        # again, about a twentieth of the run; on ck3raven it finds some 20,000 objects after this, most from the
        # imports of the preload thread)
        with gc_paused():
            rows, evaluated = _evaluate(repo, profile, listed, trees, configs, by_blob, tests, progress)
    finally:
        by_blob.close()
    import pandas as pd

    table = pd.DataFrame(rows, columns=COLUMNS)
    table["date"] = pd.to_datetime(table["date"], unit="s", utc=True)
    table.attrs["stats"] = {"commits": len(listed), "blobs": len(first_path), "cached": by_blob.cached,
                            "evaluated": evaluated}
    return table


def _evaluate(repo: Path, profile: Profile, listed: list[tuple[str, int, str]], trees: list[dict[str, str]],
              configs: list[tuple[tuple[str, str], ...]], by_blob: _BlobFacts, tests: list[str],
              progress: Callable[[str, int, int], None] | None) -> tuple[list[dict[str, Any]], int]:
    """One row per commit (its date in seconds); a commit whose files are those of the commit before reuses its
    row."""
    rows: list[dict[str, Any]] = []
    previous: tuple[dict[str, str], tuple[tuple[str, str], ...]] | None = None
    evaluated = 0
    texts: dict[str, str] = {}
    modules: ModuleMap | None = None   # kept while the set of paths stays the same (most commits)
    records = FileRecords()            # what the index made of each path's facts, for the next commit
    elsewhere: dict[tuple[str, str], FileFacts] = {}   # (blob, path) -> its facts under a path not its first
    for n, ((sha, time, subject), tree, config) in enumerate(zip(listed, trees, configs), start=1):
        if (tree, config) == previous and rows:
            row = dict(rows[-1])
        else:
            facts = []
            for path in sorted(tree):
                known = by_blob[tree[path]]
                if known.path != path:   # (a blob first seen elsewhere: its facts under this path, once)
                    placed = elsewhere.get((tree[path], path))
                    if placed is None:
                        placed = elsewhere[tree[path], path] = replace(known, path=path,
                                                                       is_test=is_test_path(path, tests))
                    known = placed
                facts.append(known)
            missing = [blob for _, blob in config if blob not in texts]
            if missing:
                read, _ = read_blobs(repo, missing)
                texts.update((b, read.get(b, b"").decode("utf-8", errors="replace")) for b in missing)
            tooling = tooling_facts(repo, profile, {name: texts[blob] for name, blob in config})
            if modules is None or modules.paths != set(tree):   # (what the change of paths cannot alter, kept)
                modules = ModuleMap(sorted(tree), modules)
            row = _row(profile, facts, tooling, modules, records)
            evaluated += 1
        previous = (tree, config)
        row.update(commit=sha[:10], date=time, subject=subject[:80])
        rows.append(row)
        if progress:
            progress("evaluating commits", n, len(listed))
    return rows, evaluated


class _BlobFacts:
    """Facts of every unique blob (under the first path it was seen at), parsed ahead in a pipeline.

    Blobs are read in chunks (each by a git process that has ended before a worker forks, so no worker
    inherits an open pipe) and parsed by worker processes, every version of a path by the same one, while the
    caller evaluates the commits whose blobs are in; with one job they are parsed here, on demand."""

    STEP = 48
    AHEAD = 3   # chunks in flight

    def __init__(self, repo: Path, first_path: dict[str, str], profile: Profile, jobs: int | None,
                 progress: Callable[[str, int, int], None] | None, cache: FactsCache | None = None,
                 started: Callable[[], None] | None = None) -> None:
        """STARTED: run in a thread once the worker processes are started (never before: a process forked while
        a thread imports could inherit a held lock)."""
        from .workers import pool_size

        self.repo, self.first_path, self.profile, self.progress = repo, first_path, profile, progress
        self.started = started
        self.cache = cache
        self.cached = 0   # blobs whose facts came from the cache
        self.order = list(first_path)
        self.wanted = pool_size(jobs)
        self.done: dict[str, FileFacts] = {}
        self.extractor = FactsExtractor(profile, across_versions=True)
        self.next_chunk = 0
        self.flight: list[tuple[list[str], list[tuple[list[int], Future[list[FileFacts]]]]]] = []
        # one process per worker, started for the first blob the cache does not hold, so that each path's versions
        # go to the worker that read its first one (`_assign`)
        self.pools: list[ProcessPoolExecutor] | None = None
        self.owner: dict[str, int] = {}          # path -> the worker that reads its versions
        self.load = [0] * self.wanted            # bytes sent to each worker

    def _submit(self) -> bool:
        from concurrent.futures import ProcessPoolExecutor

        from .workers import _extract, _init, pool_initargs

        start = self.next_chunk * self.STEP
        if start >= len(self.order):
            return False
        contents, chunk = self._read(self.order[start:start + self.STEP])
        self.next_chunk += 1
        if not chunk:
            return True
        batch = self._batch(contents, chunk)
        if self.pools is None:
            initargs = pool_initargs(self.profile, self.cache, across_versions=True)
            self.pools = [ProcessPoolExecutor(max_workers=1, initializer=_init, initargs=initargs)
                          for _ in range(self.wanted)]
            for pool in self.pools:   # each starts its process with its first task, before the thread below
                pool.submit(int)
            if self.started is not None:
                threading.Thread(target=self.started, name="reply-audit-preload", daemon=True).start()
        self.flight.append((chunk, [(part, self.pools[w].submit(_extract, [batch[i] for i in part]))
                                    for w, part in enumerate(self._assign(batch)) if part]))
        return True

    def _assign(self, batch: list[tuple[str, bytes]]) -> list[list[int]]:
        """The positions in BATCH each worker reads: a version goes to the worker that read its path's first one,
        which keeps the statements the versions share (`facts.versions`); a path not seen yet goes to the worker
        sent the fewest bytes so far."""
        parts: list[list[int]] = [[] for _ in range(self.wanted)]
        for i, (path, source) in enumerate(batch):
            worker = self.owner.get(path)
            if worker is None:
                worker = self.owner[path] = min(range(self.wanted), key=self.load.__getitem__)
            self.load[worker] += len(source)
            parts[worker].append(i)
        return parts

    def _batch(self, contents: dict[str, bytes], chunk: list[str]) -> list[tuple[str, bytes]]:
        """Each blob of CHUNK as the (path, bytes) it is parsed as: the path it was first seen at."""
        return [(self.first_path[b], contents.get(b, b"")) for b in chunk]

    def _read(self, chunk: list[str]) -> tuple[dict[str, bytes], list[str]]:
        """The contents of the blobs of CHUNK, and those of them left to parse: the facts the cache holds are
        taken."""
        contents, _ = read_blobs(self.repo, chunk)
        if self.cache is None:
            return contents, chunk
        todo = []
        for blob in chunk:
            _, hit = self.cache.find(self.first_path[blob], contents.get(blob, b""))
            if hit is not None:
                self.done[blob] = hit
                self.cached += 1
            else:
                todo.append(blob)
        if self.progress and len(todo) < len(chunk):
            self.progress("parsing blobs", len(self.done), len(self.order))
        return contents, todo

    def _collect(self) -> None:
        chunk, futures = self.flight.pop(0)
        results: list[Any] = [None] * len(chunk)
        for part, future in futures:          # many blobs share a path: placed by position
            for i, facts in zip(part, future.result()):
                results[i] = facts
        self.done.update(zip(chunk, results))   # (the workers kept them in the cache)
        if self.progress:
            self.progress("parsing blobs", len(self.done), len(self.order))

    def __getitem__(self, blob: str) -> FileFacts:
        if blob in self.done:
            return self.done[blob]
        if self.wanted == 1:   # one process: parse the next chunk here, in order
            while blob not in self.done:
                start = self.next_chunk * self.STEP
                contents, chunk = self._read(self.order[start:start + self.STEP])
                self.next_chunk += 1
                self.done.update(zip(chunk, extract_batch(self._batch(contents, chunk), self.profile, self.extractor,
                                                          self.cache)))
                if self.progress:
                    self.progress("parsing blobs", len(self.done), len(self.order))
            return self.done[blob]
        while blob not in self.done:
            while len(self.flight) < self.AHEAD and self._submit():
                pass
            if blob not in self.done:   # (a chunk the cache held whole put nothing in flight)
                self._collect()
        while len(self.flight) < self.AHEAD and self._submit():   # keep the workers busy while we evaluate
            pass
        return self.done[blob]

    def close(self) -> None:
        for pool in self.pools or []:
            pool.shutdown(cancel_futures=True)


def _preload(then: Callable[[], None] | None) -> None:
    """Import pandas, then run THEN; a failure is left to the imports that need it."""
    try:
        import pandas  # noqa: F401

        if then is not None:
            then()
    except Exception:
        pass


def preload_chart() -> None:
    """Import what `chart` draws with (nothing when the [chart] extra is not installed)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot


def _row(profile: Profile, facts: list[FileFacts], tooling: dict[str, object], modules: ModuleMap | None = None,
         records: FileRecords | None = None) -> dict[str, Any]:
    inventory = _inventory(profile, facts, [], [], modules, records)
    result = ScanResult(root=Path("."), display_root=".", profile=profile, files=facts, inventory=inventory,
                        tooling=tooling)
    ev = evaluate(result)
    reqs = [r for r in requirements(RuleContext(inventory, profile, tooling), ev) if r.status != "N/A"]
    by_severity = {s: sum(1 for f in ev.findings if f.severity == s) for s in SEVERITIES}
    return {
        "files": len(facts), "findings": len(ev.findings), **by_severity,
        "legacy_codes": len(inventory.legacy_code_set),
        "legacy_uses": sum(1 for f in ev.findings if f.rule == "RA108"),
        "registries": sum(1 for r in inventory.registries if r.role in ("canonical", "legacy")),
        "builders": sum(1 for b in inventory.builders if b.kind == "builder"),
        "raw_dict_returns": sum(1 for f in ev.findings if f.rule == "RA306"),
        "fixable": sum(1 for f in ev.findings if f.fixable),
        "score": round(100 * sum(r.ok / r.total for r in reqs) / len(reqs), 1) if reqs else 100.0,
    }


def chart(table: pd.DataFrame, path_png: Path, path_svg: Path, title: str) -> None:
    """Findings by severity (stacked), legacy codes, raw dict returns and the score over the commit dates."""
    preload_chart()
    import matplotlib.pyplot as plt

    fig, (top, bottom) = plt.subplots(2, 1, figsize=(11, 7), sharex=True, gridspec_kw={"height_ratios": [3, 2]})
    dates = table["date"].dt.tz_convert(None)
    colors = {"critical": "#b91c1c", "high": "#ea580c", "medium": "#eab308", "low": "#9ca3af"}
    top.stackplot(dates, *[table[s] for s in SEVERITIES], labels=list(SEVERITIES),
                  colors=[colors[s] for s in SEVERITIES], step="post", alpha=0.85)
    top.set_ylabel("findings")
    top.set_title(title)
    top.legend(loc="upper right", ncol=4, fontsize=8)
    top.grid(alpha=0.3)
    bottom.step(dates, table["raw_dict_returns"], where="post", label="raw dict returns", color="#7c3aed")
    bottom.step(dates, table["legacy_codes"], where="post", label="legacy codes defined", color="#0891b2")
    bottom.step(dates, table["registries"] * 10, where="post", label="active registries ×10", color="#16a34a",
                linestyle="--")
    bottom.set_ylabel("count")
    bottom.grid(alpha=0.3)
    score = bottom.twinx()
    score.step(dates, table["score"], where="post", label="compliance score %", color="#111827", linewidth=1)
    score.set_ylim(0, 100)
    score.set_ylabel("score %")
    lines = bottom.get_legend_handles_labels()
    extra = score.get_legend_handles_labels()
    bottom.legend(lines[0] + extra[0], lines[1] + extra[1], loc="upper left", fontsize=8, ncol=2)
    fig.autofmt_xdate()
    fig.tight_layout()
    fig.savefig(path_png, dpi=110)
    fig.savefig(path_svg)
    plt.close(fig)
