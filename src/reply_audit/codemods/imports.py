"""Which import statement brings a name into a file, learnt from the scanned tree.

A codemod that writes `ReplyBuilder(...)` or `@mcp_safe_tool` into a file must
make sure the file can see that name. `ImportFinder.statement_for(name, path)`
answers with an import statement text, or None when the tree shows none that
would be valid in that file. In order of preference:

1. an import of the name in the file itself that does not bind it at run
   time (under another name, in a function, or under `if TYPE_CHECKING:`),
   then one written in another file of the same directory (a relative import
   is valid there as it stands);
2. an absolute import of the name written anywhere (the most common one);
3. `from .module import name` when a module of the same package (a directory
   with `__init__.py`) defines the name at its top level.

A relative import is never proposed for a file that runs as a script (it has
an `if __name__ == "__main__":` block): started as `python server.py`, it has no
package, and the import would fail. Such a file gets an absolute import or none.

Configured statements ([migrate] builder-imports, safety-imports) take
precedence over all of these; the codemods handle that.
"""

from __future__ import annotations

from collections import Counter
from functools import cache
from pathlib import PurePosixPath

from ..scan import ScanResult


@cache
def _folder(path: str) -> str:
    """PATH's folder (kept: `history` builds a finder per commit, over mostly the same paths)."""
    return str(PurePosixPath(path).parent)


class ImportFinder:
    def __init__(self, result: ScanResult) -> None:
        self.files = {f.path: f for f in result.files}
        self.paths = set(self.files)
        self.folder = {p: _folder(p) for p in self.files}   # asked for every file, every name
        self._answers: dict[tuple[str, str], str | None] = {}   # (name, path) -> statement: a plan asks per handler

    def binds(self, path: str, name: str) -> bool:
        facts = self.files.get(path)
        return facts is not None and name in facts.bound_names

    def statement_for(self, name: str, path: str) -> str | None:
        key = (name, path)
        if key not in self._answers:
            self._answers[key] = self._statement_for(name, path)
        return self._answers[key]

    def _statement_for(self, name: str, path: str) -> str | None:
        here = PurePosixPath(path).parent
        folder = str(here)
        script = path in self.files and self.files[path].script
        ranked: Counter[tuple[int, str]] = Counter()
        for other, facts in self.files.items():
            if facts.is_test and other != path:
                continue
            same_dir = self.folder[other] == folder
            for imp in facts.imports:
                if imp.type_checking and other != path:
                    continue
                if name in imp.names:
                    text = f"from {'.' * imp.level}{imp.module} import {name}"
                elif not imp.names and imp.module.split(".")[0] == name and imp.level == 0:
                    text = f"import {imp.module}"
                else:
                    continue
                if script and imp.level:
                    continue
                if other == path:
                    ranked[(-1, text)] += 1
                elif same_dir and not imp.in_function:
                    ranked[(0, text)] += 1
                elif imp.level == 0:
                    ranked[(1 if not imp.in_function else 3, text)] += 1
        if (here / "__init__.py").as_posix() in self.paths and not script:
            for other, facts in self.files.items():
                if other == path or self.folder[other] != folder or name not in facts.bound_names or facts.is_test:
                    continue
                where = PurePosixPath(other)
                if where.name != "__init__.py":
                    ranked[(2, f"from .{where.stem} import {name}")] += 1
        if not ranked:
            return None
        (_, text), _ = min(ranked.items(), key=lambda item: (item[0][0], -item[1], item[0][1]))
        return text
