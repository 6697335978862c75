"""Names a profile lists, each exact or a glob (`*Result`, `make_*_reply`): one membership test for all of them."""

from __future__ import annotations

import fnmatch
import re
from collections.abc import Iterable

_GLOB = re.compile(r"[*?\[]")


class Names:
    """`name in Names([...])`: equal to a listed name, or matched by a listed glob."""

    def __init__(self, names: Iterable[str]) -> None:
        listed = list(names)
        self.exact = frozenset(n for n in listed if not _GLOB.search(n))
        self.globs = tuple(n for n in listed if _GLOB.search(n))

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and self.key(name) is not None

    def key(self, name: str) -> str | None:
        """The listed entry NAME matches: itself, else the first glob (in the profile's order) that matches."""
        if name in self.exact:
            return name
        return next((g for g in self.globs if fnmatch.fnmatchcase(name, g)), None)

    def matches_anything(self) -> bool:
        """Does a glob here match any identifier at all (`*`, `?*`, `**`)? It has no fixed part."""
        return any(not re.sub(r"[*?]|\[[^\]]*\]", "", g) for g in self.globs)

    def pattern(self) -> str:
        """A regular expression alternation matching any of the names inside source text (for a quick probe)."""
        parts = [re.escape(n) for n in sorted(self.exact)]
        parts += ["".join(r"\w*" if c == "*" else r"\w" if c == "?" else re.escape(c) for c in g)
                  for g in self.globs if "[" not in g]
        parts += [r"\w+" for g in self.globs if "[" in g]
        return "|".join(parts) or "(?!)"
