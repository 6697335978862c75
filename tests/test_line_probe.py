"""`facts/line_probe.py`: the lines a pattern matches on, found by the pattern's tail where that is safe."""

from __future__ import annotations

import random
import re

import pytest

from reply_audit.facts.line_probe import LineProbe, _tail
from reply_audit.profile import load_profile


@pytest.mark.parametrize("pattern,tail", [
    # the canonical code (named groups made plain, as `Profile.code_search_re` does) and the iar one
    (r"([A-Z][A-Z0-9]*)-([A-Z][A-Z0-9]*)-([A-Z])-([0-9]{3})", r"-([A-Z][A-Z0-9]*)-([A-Z])-([0-9]{3})"),
    (r"(RES)-(ERR)-([A-Z]+)-([0-9]{4})", r"-(ERR)-([A-Z]+)-([0-9]{4})"),
    (r"(?P<a>[A-Z]{2,3})_(?P<n>\d{3})", r"_(?P<n>\d{3})"),
    (r"\d+\.\d+", r"\.\d+"),             # an escaped character is a literal, `\d` is not
    (r"(a|b)c", "c"),                     # an alternative inside a group is read
    (r"x{2}-y", "-y"),                    # a quantified literal is not in every match
    (r"[A-Z]+.-x", "-x"),                 # `.` matches no line break
    (r"-[A-Z]", None),                    # opens with its literal: fast already
    (r"[A-Z]+\s-x", None),                # `\s` matches a line break
    (r"[^x]-y", None),                    # so does a negated class
    (r"a|b", None),                       # no literal is in every match
    (r"(?=a)b-c", None),                  # lookaround
    (r"\bA-B", None),                     # anchor
    (r"[A-Z]+-x$", None),
    (r"([A-Z])\1-x", None),               # backreference
    (r"(?i)[A-Z]+-x", None),              # inline flag
    (r"[A-Z]+", None),                    # no literal at all
    (r"[A-Z]+\t-x", None),                # an escaped letter other than d and w is not read
    ("[\x01-\x7f]+-x", None),             # a range written in raw bytes from below a line break holds it
])
def test_the_tail_is_searched_only_where_it_is_safe(pattern, tail):
    assert _tail(pattern) == tail


def test_the_canonical_code_pattern_is_probed_by_its_tail():
    probe = LineProbe(load_profile("canonical").code_search_re)
    assert probe.tail is not None and probe.tail.pattern.startswith(b"-")


PATTERNS = [
    rb"([A-Z][A-Z0-9]*)-([A-Z][A-Z0-9]*)-([A-Z])-([0-9]{3})",
    rb"(RES)-(ERR)-([A-Z]+)-([0-9]{4})",
    rb"[A-Z]+.-[0-9]",
    rb"(a|b)-c",
    rb"[A-Z]*-[A-Z]*",        # may be short, and match back to back
    rb"[A-Z]+\s-x",           # searched whole
]
ALPHABET = [b"A", b"B", b"Z", b"9", b"0", b"-", b"-", b"a", b"b", b"c", b"x", b"\n", b"\n", b" ", b"E", b"R", b"S",
            b"WA-RES-I-001", b"RES-ERR-AB-1234", b"\r\n"]


@pytest.mark.parametrize("pattern", PATTERNS)
def test_the_lines_are_those_of_every_match_of_the_whole_pattern(pattern):
    compiled = re.compile(pattern)
    probe = LineProbe(compiled)
    rng = random.Random(pattern)
    for _ in range(400):
        source = b"".join(rng.choice(ALPHABET) for _ in range(rng.randint(0, 80)))
        expected = [source.count(b"\n", 0, m.start()) + 1 for m in compiled.finditer(source)]
        assert probe.lines(source) == expected, source
