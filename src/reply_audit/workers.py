"""Extracting the facts of many files: from the cache, in this process, or in a pool of processes.

`extract_sources` takes the files as read (`discovery.read_sources`), what
the cache holds of them (`cache`), and extracts the rest, in this process with one job or in a process pool
with more (each worker builds its own extractor from the profile's data, so
it works under the `spawn` start method of macOS and Windows as well as under
`fork`). Results come back in the order of the file list, whatever the
number of jobs, so the output never depends on it. `ExtractStats` counts what
was parsed and what came from the cache.
"""

from __future__ import annotations

import gc
import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .cache import FactsCache, key_of
from .discovery import Source, read_sources
from .facts.model import FileFacts
from .file_facts import facts_for_source, new_extractor, unreadable_facts
from .profile import Profile
from .record_class import record

if TYPE_CHECKING:  # pragma: no cover
    from .facts.extract import FactsExtractor

# With the default number of jobs, a pool is started only for this much source to parse: below it, starting
# the workers costs more than they save (measured on 2 CPUs, cold, files of ck3raven: 16 files and 0.18 MB
# take 0.35 s in one process and 0.40 s with two; 32 files and 0.39 MB, 0.74 s and 0.66 s; 289 files and
# 3.1 MB, 2.85 s and 2.09 s). `default_pool` decides.
AUTO_POOL_MIN_BYTES = 300_000
BATCH = 16


@record
class ExtractStats:
    files: int = 0
    parsed: int = 0
    cached: int = 0
    jobs: int = 1


@contextmanager
def gc_paused() -> Iterator[None]:
    """No cyclic garbage collection while files are parsed and read: their syntax trees and facts hold no
    reference cycles and are freed as soon as they are dropped, so the collector would only walk the millions of
    live objects again and again (about a tenth of a cold scan). It is on again afterwards, as it was."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()


MAX_JOBS_PER_CPU = 8   # more processes than this only wait their turn (and `-j 100000` would fork 100,000)


def pool_size(jobs: int | None) -> int:
    """The processes to parse with: JOBS as asked (default: one per CPU), at most MAX_JOBS_PER_CPU per CPU."""
    return min(jobs if jobs is not None else default_jobs(), MAX_JOBS_PER_CPU * default_jobs())


def default_jobs() -> int:
    return max(1, len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1))


# ------------------------------------------------------------------ worker side
PARENT_POLL = 0.5   # seconds between a worker's checks that the process that started it is alive


def _leave_with_parent() -> None:
    """End this worker when the process that started it is gone. A parent killed outright (SIGKILL, the OOM
    killer) cannot stop its pool, and the workers, each holding the pipe they wait on open, would sleep on it
    forever."""
    import threading
    import time

    parent = os.getppid()

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(PARENT_POLL)
        os._exit(1)

    threading.Thread(target=watch, name="reply-audit-parent-watch", daemon=True).start()

_WORKER: tuple[Profile, FactsExtractor, FactsCache | None] | None = None


def _init(name: str, data: dict[str, Any], sources: tuple[str, ...], cache_folder: str | None = None,
          across_versions: bool = False) -> None:
    global _WORKER
    _leave_with_parent()
    profile = Profile(name=name, data=data, sources=sources)
    _WORKER = (profile, new_extractor(profile, across_versions),
               FactsCache.in_folder(Path(cache_folder)) if cache_folder else None)


def _extract(batch: list[tuple[str, bytes]]) -> list[FileFacts]:
    """A pool worker's `extract_batch`, with the profile, extractor and cache its `_init` made: each file's facts
    are kept in the cache by the worker that made them (the writes run in parallel, beside the parsing, instead of
    one after another in the caller)."""
    assert _WORKER is not None
    return extract_batch(batch, *_WORKER)


def extract_batch(batch: list[tuple[str, bytes]], profile: Profile, extractor: FactsExtractor,
                  cache: FactsCache | None) -> list[FileFacts]:
    """The facts of each (path, bytes) of BATCH, parsed with the collector paused; with a cache, each kept there."""
    with gc_paused():
        found = [facts_for_source(source, rel, profile, extractor) for rel, source in batch]
    if cache is not None:
        for (rel, source), facts in zip(batch, found):
            cache.put(key_of(rel, source), facts)
    return found


def pool_initargs(profile: Profile, cache: FactsCache | None, across_versions: bool = False) \
        -> tuple[str, dict[str, Any], tuple[str, ...], str | None, bool]:
    """What `_init` makes a worker from: PROFILE's parts, the folder of CACHE its results go to, as the caller
    names it (a worker started by spawn may run with other interpreter settings, which name another folder), and
    whether it reads versions of the same files (`FactsExtractor`'s ACROSS_VERSIONS)."""
    return (profile.name, profile.data, profile.sources, str(cache.folder) if cache is not None else None,
            across_versions)


# ------------------------------------------------------------------ caller side
def default_pool(todo: list[tuple[str, bytes, str]]) -> bool:
    """Whether, with the default number of jobs, the files left to parse are worth starting a pool for."""
    return sum(len(source) for _, source, _ in todo) >= AUTO_POOL_MIN_BYTES


def extract_all(root: Path, rels: list[str], profile: Profile, jobs: int | None = None,
                cache: FactsCache | None = None, start_method: str | None = None,
                progress: Callable[[str, int, int], None] | None = None,
                ) -> tuple[list[FileFacts], ExtractStats]:
    """The facts of RELS below ROOT, in their order; PROGRESS("parsing", done, total) as files are parsed."""
    return extract_sources(read_sources(root, rels), profile, jobs, cache, start_method, progress)


def extract_sources(sources: list[Source], profile: Profile, jobs: int | None = None,
                    cache: FactsCache | None = None, start_method: str | None = None,
                    progress: Callable[[str, int, int], None] | None = None,
                    ) -> tuple[list[FileFacts], ExtractStats]:
    """The facts of SOURCES (`discovery.read_sources`), in their order. The collector is paused throughout: the
    facts parsed here, read from the cache or rebuilt from the pool's pickles are many objects and no reference
    cycles (rebuilding 15 copies' facts: 0.26 s paused, 0.7-1.0 s not, mostly hidden by the wait for the pool)."""
    with gc_paused():
        return _extract_sources(sources, profile, jobs, cache, start_method, progress)


def _extract_sources(sources: list[Source], profile: Profile, jobs: int | None, cache: FactsCache | None,
                     start_method: str | None, progress: Callable[[str, int, int], None] | None,
                     ) -> tuple[list[FileFacts], ExtractStats]:
    stats = ExtractStats(files=len(sources))
    out: dict[str, FileFacts] = {}
    todo: list[tuple[str, bytes, str]] = []
    for rel, source in sources:
        if isinstance(source, OSError):
            out[rel] = unreadable_facts(rel, profile, source)
            continue
        key, hit = cache.find(rel, source) if cache is not None else ("", None)
        if hit is not None:
            out[rel] = hit
            stats.cached += 1
        else:
            todo.append((rel, source, key))
    stats.parsed = len(todo)
    wanted = pool_size(jobs)
    use_pool = wanted > 1 and len(todo) >= 2 and (jobs is not None or default_pool(todo))
    if use_pool:
        stats.jobs = wanted
        # the largest files first, so that the last batches are small ones and no worker waits long for the other
        # to finish; the facts are placed by path all the same
        todo.sort(key=lambda item: -len(item[1]))
        batches = [[(rel, source) for rel, source, _ in todo[i:i + BATCH]] for i in range(0, len(todo), BATCH)]
        import multiprocessing  # a warm scan, or a small tree, has no pool to start
        from concurrent.futures import ProcessPoolExecutor

        context = multiprocessing.get_context(start_method) if start_method else None
        with ProcessPoolExecutor(max_workers=wanted, mp_context=context, initializer=_init,
                                 initargs=pool_initargs(profile, cache)) as pool:
            results = []
            for batch in pool.map(_extract, batches):
                results += batch
                if progress:
                    progress("parsing", len(results), len(todo))
    else:
        extractor = new_extractor(profile) if todo else None   # a warm scan loads no extraction code
        results = []
        for rel, source, _ in todo:
            results.append(facts_for_source(source, rel, profile, extractor))
            if progress:
                progress("parsing", len(results), len(todo))
    for (rel, _, key), facts in zip(todo, results):
        out[rel] = facts
        if cache is not None and not use_pool:   # (each worker keeps what it made)
            cache.put(key, facts)
    return [out[rel] for rel, _ in sources], stats
