"""Git, the one place that runs it: reading a revision's files straight from the object database.

No checkout, no change to the user's working tree or index: `git ls-tree`
lists a revision's files below a path, and one `git cat-file --batch` process
streams their blobs. Works in a work tree (any subdirectory) and in a bare
repository. A revision that does not exist, or a path that is not under git,
is a `UserError` with a one-line message.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

from .errors import UserError
from .record_class import record


@record(frozen=True)
class Revision:
    ref: str          # as the user wrote it
    sha: str          # the commit
    subject: str      # its first message line


def run(folder: Path, *args: str, timeout: float = 60,
        input: bytes | None = None) -> subprocess.CompletedProcess[bytes] | None:
    """`git -C FOLDER ARGS`, its output as bytes; None when git cannot be run (not installed, timed out)."""
    try:
        return subprocess.run(["git", "-C", str(folder), *args], input=input, capture_output=True, timeout=timeout)
    except (OSError, subprocess.SubprocessError):
        return None


def show(folder: Path, spec: str) -> bytes | None:
    """The blob `git show SPEC` prints (`HEAD:./path`), or None when there is none."""
    done = run(folder, "show", spec)
    return done.stdout if done is not None and done.returncode == 0 else None


def _git(repo: Path, *args: str, input: bytes | None = None) -> bytes:
    try:
        done = subprocess.run(["git", "-C", str(repo), *args], input=input, capture_output=True, timeout=300)
    except FileNotFoundError:
        raise UserError("git is not installed: the scorecard reads revisions with git") from None
    except subprocess.TimeoutExpired:
        raise UserError(f"git {args[0]} took more than 300 s") from None
    if done.returncode != 0:
        message = (done.stderr.decode("utf-8", errors="replace").strip().splitlines() or ["failed"])[-1]
        raise UserError(f"git {args[0]}: {message}")
    return done.stdout


def prefix_of(path: Path) -> str:
    """PATH's place inside its repository ('' at the top, or in a bare repository), with a trailing '/'."""
    if not path.exists():
        raise UserError(f"path {str(path)!r} does not exist")
    folder = path if path.is_dir() else path.parent
    bare = _git(folder, "rev-parse", "--is-bare-repository").decode().strip() == "true"
    if bare:
        return ""
    return _git(folder, "rev-parse", "--show-prefix").decode().strip()


def resolve(repo: Path, ref: str) -> Revision:
    try:
        out = _git(repo, "log", "-1", "--format=%H%x00%s", f"{ref}^{{commit}}", "--")
    except UserError:
        raise UserError(f"git revision {ref!r} does not exist here (fetch it, e.g. actions/checkout with "
                        "fetch-depth: 0)") from None
    sha, _, subject = out.decode("utf-8", errors="replace").strip().partition("\x00")
    return Revision(ref=ref, sha=sha, subject=subject)


def merge_base(repo: Path, base: Revision, head: Revision) -> Revision:
    """Where HEAD's branch left BASE (`git merge-base`, what `BASE...HEAD` compares with): a pull request is
    judged by what it changed, not by what its base branch did since."""
    try:
        sha = _git(repo, "merge-base", base.sha, head.sha).decode().strip()
    except UserError:
        raise UserError(f"{base.ref} and {head.ref} have no common ancestor (fetch more history, e.g. "
                        "actions/checkout with fetch-depth: 0, or pass --base-tip)") from None
    found = resolve(repo, sha)
    return Revision(ref=f"{base.ref}...{head.ref}" if sha != base.sha else base.ref, sha=found.sha,
                    subject=found.subject)


def list_files(repo: Path, sha: str, prefix: str) -> dict[str, str]:
    """Files of commit SHA below PREFIX: path relative to PREFIX -> blob id (regular files only)."""
    args = ["ls-tree", "-r", "-z", "--full-tree", sha]
    if prefix:
        args += ["--", prefix]
    out: dict[str, str] = {}
    for entry in _git(repo, *args).split(b"\x00"):
        if not entry:
            continue
        meta, _, name = entry.partition(b"\t")
        mode, kind, blob = meta.decode().split()
        if kind != "blob" or mode not in ("100644", "100755"):
            continue  # links, submodules, trees
        path = name.decode("utf-8", errors="surrogateescape")
        if prefix and path.startswith(prefix):
            path = path[len(prefix):]
        out[path] = blob
    return out


def list_commits_files(repo: Path, shas: list[str], prefix: str) -> list[dict[str, str]]:
    """`list_files` of each of SHAS, read level by level with one `git cat-file --batch` per level of folders
    instead of one `git ls-tree` per commit: a folder most commits share (the same tree object) is read once,
    and its listing is made once."""
    names = [f"{sha}^{{tree}}" if not prefix else f"{sha}:{prefix.rstrip('/')}" for sha in shas]
    roots = {name: oid for name, (oid, kind, _) in read_objects(repo, names).items() if kind == "tree"}
    entries: dict[str, list[tuple[int, str, str]]] = {}   # tree id -> (kind, name, id) of each entry
    todo = list(dict.fromkeys(roots.values()))
    while todo:
        found = read_objects(repo, todo)
        todo = []
        for tree, (_, kind, data) in found.items():
            if kind != "tree":
                raise UserError(f"git object {tree} is not a tree: the repository is damaged")
            entries[tree] = listed = _tree_entries(data, len(tree) // 2)
            todo += [oid for kind_bits, _, oid in listed if kind_bits == _TREE and oid not in entries]
        todo = list(dict.fromkeys(todo))
    flat: dict[str, dict[str, str]] = {}
    for tree in _children_first(list(dict.fromkeys(roots.values())), entries):
        out: dict[str, str] = {}
        for kind_bits, name, oid in entries.get(tree, []):
            if kind_bits == _TREE:
                out.update((f"{name}/{path}", blob) for path, blob in flat[oid].items())
            elif kind_bits == _FILE:
                out[name] = oid   # links and submodules are no files to scan
        flat[tree] = out
    return [dict(flat[roots[name]]) if name in roots else {} for name in names]


_TREE, _FILE = 0o040000, 0o100000   # a tree entry's kind: its mode's type bits (as git ls-tree reads them)


def _children_first(tops: list[str], entries: dict[str, list[tuple[int, str, str]]]) -> list[str]:
    """Every tree below TOPS, each after the trees it holds (no recursion: a history may nest folders deeply)."""
    order: list[str] = []
    seen: set[str] = set()
    stack = [(tree, False) for tree in reversed(tops)]
    while stack:
        tree, expanded = stack.pop()
        if expanded:
            order.append(tree)
            continue
        if tree in seen:
            continue
        seen.add(tree)
        stack.append((tree, True))
        stack += [(oid, False) for kind, _, oid in entries.get(tree, []) if kind == _TREE and oid not in seen]
    return order


def _tree_entries(data: bytes, id_bytes: int) -> list[tuple[int, str, str]]:
    """The (kind: the mode's type bits, name, object id) entries of a raw tree object (ID_BYTES: 20 for SHA-1,
    32 for SHA-256). The mode is read as a number: an old or hand-made tree may write `040000` or `100664`."""
    out = []
    pos = 0
    while pos < len(data):
        space = data.index(b" ", pos)
        nul = data.index(b"\x00", space)
        oid = data[nul + 1:nul + 1 + id_bytes].hex()
        out.append((int(data[pos:space], 8) & 0o170000, data[space + 1:nul].decode("utf-8", "surrogateescape"), oid))
        pos = nul + 1 + id_bytes
    return out


def read_objects(repo: Path, names: list[str]) -> dict[str, tuple[str, str, bytes]]:
    """NAME -> (its object id, type, raw content) for each of NAMES (an id, or `REV:PATH`, `REV^{tree}`) in one
    `git cat-file --batch`; a name that names nothing maps to ("", "missing", b"")."""
    unique = list(dict.fromkeys(names))
    if not unique:
        return {}
    out = _git(repo, "cat-file", "--batch", input=("\n".join(unique) + "\n").encode("utf-8", "surrogateescape"))
    found: dict[str, tuple[str, str, bytes]] = {}
    pos = 0
    for name in unique:
        end = out.index(b"\n", pos)
        header = out[pos:end].decode("utf-8", errors="replace").split()
        pos = end + 1
        if len(header) != 3 or not header[2].isdigit():   # `NAME missing`, `NAME ambiguous`
            found[name] = ("", "missing", b"")
            continue
        size = int(header[2])
        found[name] = (header[0], header[1], out[pos:pos + size])
        pos += size + 1
    return found


def read_blobs(repo: Path, blobs: list[str]) -> tuple[dict[str, bytes], set[str]]:
    """(blob id -> content, ids that are missing from the object database), with one git process."""
    found = read_objects(repo, blobs)
    return ({blob: data for blob, (_, kind, data) in found.items() if kind != "missing"},
            {blob for blob, (_, kind, _) in found.items() if kind == "missing"})
