"""What a pull request changes in reply compliance: two revisions scanned and their findings matched.

`scan_revision` scans a git revision read from the object database
(`gitrev`): the files a scan of the tree would read, its mapping files and
its pre-commit configuration, under one profile. `compare` matches the two
sides' findings, first by fingerprint (rule, path, enclosing function and the
finding's normalized key: stable when lines shift), then, for what is left,
by rule, path and key alone, so a finding whose enclosing function was only
renamed is not counted as new. Matching is by multiset: two identical
findings at base and three at head make one introduced.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Callable
from dataclasses import field
from pathlib import Path, PurePosixPath

from .codemods.planner import evaluate_fixable as evaluate
from .compliance import Requirement, requirements
from .discovery import PRECOMMIT_FILES, select
from .errors import UserError
from .gitrev import Revision, list_files, read_blobs
from .mappings import load_mapping_bytes, load_mapping_file
from .profile import Profile
from .record_class import record
from .rules.base import Evaluation, Finding, RuleContext
from .scan import ScanResult, scan_sources, tooling_facts


@record
class Side:
    revision: Revision
    result: ScanResult
    evaluation: Evaluation
    requirements: list[Requirement]

    @property
    def findings(self) -> list[Finding]:
        return self.evaluation.findings


@record
class Delta:
    base: Side
    head: Side
    prefix: str                                            # the scanned path inside the repository
    introduced: list[Finding] = field(default_factory=list)
    resolved: list[Finding] = field(default_factory=list)
    unchanged: int = 0
    moved: int = 0                                         # matched only after a rename of the enclosing function

    @property
    def changed_requirements(self) -> list[tuple[Requirement | None, Requirement | None]]:
        base = {r.name: r for r in self.base.requirements}
        head = {r.name: r for r in self.head.requirements}
        def state(r: Requirement | None) -> tuple[str, int, int, int] | None:
            return (r.status, r.ok, r.total, r.unknown) if r else None

        out = []
        for name in list(dict.fromkeys([*head, *base])):
            b, h = base.get(name), head.get(name)
            if state(b) != state(h):
                out.append((b, h))
        return out


def _key(f: Finding) -> tuple[str, str, str]:
    return f.rule, f.path, f.normal_key


def compare(base: Side, head: Side, prefix: str = "") -> Delta:
    delta = Delta(base=base, head=head, prefix=prefix)
    left: dict[str, list[Finding]] = defaultdict(list)
    for f in base.findings:
        left[f.fingerprint].append(f)
    unmatched_head = []
    for f in head.findings:
        if left.get(f.fingerprint):
            left[f.fingerprint].pop()
            delta.unchanged += 1
        else:
            unmatched_head.append(f)
    by_key: dict[tuple[str, str, str], list[Finding]] = defaultdict(list)
    for items in left.values():
        for f in items:
            by_key[_key(f)].append(f)
    for f in unmatched_head:
        if by_key.get(_key(f)):
            by_key[_key(f)].pop()
            delta.moved += 1
        else:
            delta.introduced.append(f)
    delta.resolved = [f for items in by_key.values() for f in items]
    order = lambda f: (f.path, f.line, f.col, f.rule)  # noqa: E731
    delta.introduced.sort(key=order)
    delta.resolved.sort(key=order)
    return delta


def counts(findings: list[Finding]) -> Counter[str]:
    return Counter(f.severity for f in findings)


# ---------------------------------------------------------------------------
# scanning a revision
# ---------------------------------------------------------------------------
def revision_texts(repo: Path, revision: Revision, prefix: str, names: list[str]) -> dict[str, str]:
    """Small text files (pyproject.toml, pre-commit config) of a revision, by path below PREFIX."""
    files = list_files(repo, revision.sha, prefix)
    wanted = {n: files[n] for n in names if n in files}
    blobs, _ = read_blobs(repo, list(wanted.values()))
    return {n: blobs[b].decode("utf-8", errors="replace") for n, b in wanted.items() if b in blobs}


def scan_revision(repo: Path, revision: Revision, prefix: str, profile: Profile, extra_mappings: list[Path],
                  side: str, progress: Callable[[str, int, int], None] | None = None) -> Side:
    files = list_files(repo, revision.sha, prefix)
    chosen = select(list(files), profile.scan_list("include"), profile.scan_list("exclude"))
    mapping_names = list(profile.setting("mappings", "files"))
    texts = [n for n in (*PRECOMMIT_FILES, *mapping_names) if n in files]
    blobs, missing = read_blobs(repo, [files[p] for p in (*chosen, *texts)])
    sources = {p: blobs[files[p]] for p in chosen if files[p] in blobs}
    problems = [(p, "the blob is missing from the object database (a partial clone?)") for p in chosen
                if files[p] in missing]
    mapping_facts, shown = [], []
    for name in mapping_names:
        if name in files and files[name] in blobs:
            mapping_facts.append(load_mapping_bytes(blobs[files[name]], PurePosixPath(name).suffix, profile,
                                                    f"{name}@{revision.sha[:7]}"))
            shown.append(name)
        elif side == "head":
            raise UserError(f"mapping file {name!r} ([mappings] files) is not in {revision.ref}")
    for path in extra_mappings:
        mapping_facts.append(load_mapping_file(path, profile))
        shown.append(str(path))
    pre = {n: blobs[files[n]].decode("utf-8", errors="replace") for n in PRECOMMIT_FILES
           if n in files and files[n] in blobs}
    result = scan_sources(sources, profile, f"{prefix or '.'}@{revision.sha[:7]}", mapping_facts,
                          tooling_facts(repo, profile, pre), shown, problems, progress)
    evaluation = evaluate(result)
    ctx = RuleContext(result.inventory, result.profile, result.tooling)
    return Side(revision=revision, result=result, evaluation=evaluation,
                requirements=requirements(ctx, evaluation))
