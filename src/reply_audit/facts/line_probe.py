"""The lines of a file where a byte pattern matches: what the extraction reads first, to walk only the
expressions written on those lines.

`LineProbe(pattern).lines(source)` gives, for every match `pattern.finditer(source)` finds, the line it starts
on. A code pattern such as `([A-Z][A-Z0-9]*)-([A-Z][A-Z0-9]*)-([A-Z])-([0-9]{3})` opens with a character class:
the regular-expression engine tries a match at every capital letter of the file, about 15 ms a megabyte, a tenth
of the extraction. A pattern that opens with a literal (`-`) is found by a fast scan for that byte, twenty times
as fast. So when a pattern has a literal at its top level and no part of it can match a line break, the part
from that literal on (its *tail*) is searched for first: every match of the whole pattern holds a match of the
tail on its own line, so only the lines where the tail matches are searched with the whole pattern. The lines
found are the same; a pattern this module cannot read as plainly as that is searched whole.
"""

from __future__ import annotations

import re

_SPECIAL = frozenset(".^$*+?{}[]\\|()")
_QUANTIFIER = re.compile(r"(?:[*+?]|\{\d*(?:,\d*)?\})[?+]?")
# escapes that never match a line break: a digit, a word character, and escaped punctuation
_SAFE_ESCAPES = frozenset("dw") | frozenset("-.^$*+?{}[]\\|()/,:;'\"#&%!@~`<>=_ ")


class LineProbe:
    """PATTERN's match lines, by its tail where that is safe (see the module's docstring)."""

    def __init__(self, pattern: re.Pattern[bytes]) -> None:
        self.pattern = pattern
        plain = not pattern.flags & (re.DOTALL | re.MULTILINE | re.IGNORECASE | re.VERBOSE)
        tail = _tail(pattern.pattern.decode("latin-1")) if plain else None
        self.tail: re.Pattern[bytes] | None = None
        if tail is not None:
            try:
                self.tail = re.compile(tail.encode("latin-1"), pattern.flags)
            except re.error:
                self.tail = None

    def lines(self, source: bytes) -> list[int]:
        """The line (from 1) each match of the pattern in SOURCE starts on, in order (a line once per match)."""
        out: list[int] = []
        line, last = 1, 0
        if self.tail is None:
            for match in self.pattern.finditer(source):
                line += source.count(b"\n", last, match.start())
                last = match.start()
                out.append(line)
            return out
        done = -1   # the start of the last line searched whole
        whole = self.pattern
        for match in self.tail.finditer(source):
            start = source.rfind(b"\n", 0, match.start()) + 1
            if start <= done:
                continue
            done = start
            end = source.find(b"\n", match.start())
            end = len(source) if end < 0 else end + 1
            found = sum(1 for _ in whole.finditer(source, start, end))
            if found:
                line += source.count(b"\n", last, start)
                last = start
                out += [line] * found
        return out


def _tail(pattern: str) -> str | None:
    """PATTERN from its first top-level literal on, when every part of it is read and none can match a line
    break (no `\\s`, no negated class, no anchor, lookaround, alternative at the top, backreference or inline
    flag); None otherwise."""
    i, depth, literal_at = 0, 0, None
    while i < len(pattern):
        char = pattern[i]
        start, literal = i, False
        if char == "\\":
            if i + 1 >= len(pattern) or pattern[i + 1] not in _SAFE_ESCAPES:
                return None
            literal = pattern[i + 1] not in "dw"   # `\-` is a character, `\d` a class
            i += 2
        elif char == "[":
            end = _class_end(pattern, i)
            if end is None:
                return None
            i = end
        elif char == "(":
            if pattern.startswith("(?P<", i) and ">" in pattern[i:]:
                i = pattern.index(">", i) + 1
            elif pattern.startswith("(?:", i):
                i += 3
            elif pattern.startswith("(?", i):
                return None   # a lookaround, a backreference, a comment or an inline flag
            else:
                i += 1
            depth += 1
            continue
        elif char == ")":
            depth -= 1
            if depth < 0:
                return None
            i += 1
        elif char == "|":
            if depth == 0:
                return None   # no one literal is in every match
            i += 1
            continue
        elif char == ".":
            i += 1            # any character but a line break
        elif char in _SPECIAL or char == "\n":
            return None       # an anchor, or a quantifier with nothing before it, or a line break
        else:
            literal = True
            i += 1
        quantifier = _QUANTIFIER.match(pattern, i)
        if quantifier is not None:
            i = quantifier.end()
        elif literal and literal_at is None and depth == 0:
            literal_at = start   # an unquantified literal at the top level: every match holds it
    if depth != 0 or literal_at is None or literal_at == 0:
        return None   # (a pattern that opens with its literal is fast already)
    return pattern[literal_at:]


def _class_end(pattern: str, i: int) -> int | None:
    """The index after the character class opening at I, or None when it may match a line break (negated,
    holding `\\s`, `\\S`, `\\W`, `\\D`, `\\n` or a character below it) or cannot be read."""
    j = i + 1
    if j < len(pattern) and pattern[j] == "^":
        return None
    if j < len(pattern) and pattern[j] == "]":
        j += 1
    while j < len(pattern):
        if pattern[j] == "\\":
            if j + 1 >= len(pattern) or pattern[j + 1] not in _SAFE_ESCAPES:
                return None
            j += 2
        elif pattern[j] == "[":
            return None   # a nested set or a POSIX class: not read here
        elif pattern[j] == "]":
            return j + 1
        elif pattern[j] < "\x0b":
            return None   # a line break, or a range from below one that may hold it (`[\x01-\x7f]` as bytes)
        else:
            j += 1
    return None
