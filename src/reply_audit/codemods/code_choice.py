"""Choosing the registered code a converted site is written with: candidates, evidence, and a confidence.

The candidates are the registered codes of the chosen reply type whose layer may emit
it (for Denied, the layers that own D). Each earns evidence ([migrate.codes] weights):

* the dict's own legacy code: a registered code's message key spelled inside it
  (`CONTRACT_RESPONSE_TOO_LARGE` holds `RESPONSE_TOO_LARGE`) — the mapping tables
  are applied before ranking and always win;
* the message key spelled by the dict's message, with the handler's name
  ("Path not found: …" spells `PATH_NOT_FOUND`; "Unknown table" in `db_query`
  spells `DB_TABLE_UNKNOWN`);
* the message naming a code's AREA with a word the names did not already say (one
  of its area_words, or a word of the area's [areas] description);
* the handler's and module's names against each code's AREA (the area itself, or
  one of its area_words); for the types whose dicts say little (sole_area_types:
  Success and Denied), the only code of the type in the only area named that has
  codes of the type is enough on its own (`list_loans` -> the one Success code of
  LOAN), two areas named are not (`lend_book`: LOAN or BOOK);
* the dict's message words found in each code's registry text (message key and
  description) and in the messages the codebase already writes with that code at
  its compliant sites, each word weighted by its rarity in the registry (IDF), so a
  word many entries have (`not`, `error`) counts for little and a rare one (`table`)
  for much;
* the same handler or module already using the code for a reply of the same type,
  or (a second pass, `siblings`) evidence choosing it for another of the handler's returns.

Only codes the scan accepts are candidates: obeying the layer rules, with an AREA the
profile lists (a code RA104 flags is never written by the ranking).

The best candidate is written when its score reaches `threshold` and leads the next
by `margin`; otherwise the caller writes the profile's placeholder, marked for a
human, with the three best candidates in the report. Everything comes from the
scanned registry, the profile and the codebase: no name of any one codebase lives here.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

_WORD = re.compile(r"[a-z][a-z0-9]+")
MESSAGE_KEY = re.compile(r"^[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+$")


def words(text: str, shortest: int = 3) -> list[str]:
    """Lower-case words of TEXT (`snake_case` and `CamelCase` split), of SHORTEST letters or more."""
    spaced = re.sub(r"([a-z0-9])([A-Z])", r"\1 \2", text).replace("_", " ")
    return [w for w in _WORD.findall(spaced.lower()) if len(w) >= shortest]


@dataclass(frozen=True)
class CodeChoice:
    """The code evidence points to (None: no clear winner), how sure, why, and the best candidates."""

    code: str | None
    confidence: str = "low"                   # high | medium | low
    evidence: tuple[str, ...] = ()
    candidates: tuple[str, ...] = ()
    by_default: bool = False                  # the profile's code for the situation, not evidence about this site


@dataclass
class CodeIndex:
    """The registry's codes as documents: their own text plus the messages the codebase writes with them."""

    texts: dict[str, list[str]] = field(default_factory=dict)      # code -> words
    keys: dict[str, list[str]] = field(default_factory=dict)       # code -> words of its message key
    key_names: dict[str, str] = field(default_factory=dict)        # code -> its message key as written
    idf: dict[str, float] = field(default_factory=dict)
    used_in: dict[str, set[str]] = field(default_factory=dict)     # code -> "path::function" and "path" using it

    @classmethod
    def build(cls, code_texts: dict[str, str], uses: list[tuple[str, str, str, str]],
              stop_words: frozenset[str] = frozenset()) -> "CodeIndex":
        """CODE_TEXTS: code -> registry text; USES: (code, path, function, message) of compliant calls;
        STOP_WORDS: words that say nothing about a situation (`the`, `not`)."""
        index = cls(stop_words=stop_words)
        for code, text in code_texts.items():
            first = text.split(" ", 1)[0] if text else ""
            index.keys[code] = index.words(first) if MESSAGE_KEY.match(first) else []
            if index.keys[code]:
                index.key_names[code] = first
            index.texts[code] = index.words(text)
        for code, path, function, message in uses:
            index.texts.setdefault(code, []).extend(index.words(message or ""))
            index.used_in.setdefault(code, set()).update({f"{path}::{function}", path})
        documents = len(index.texts) or 1
        frequency: Counter[str] = Counter(w for ws in index.texts.values() for w in set(ws))
        index.idf = {w: math.log(1 + documents / n) for w, n in frequency.items()}
        index.unknown_idf = math.log(1 + documents)
        return index

    unknown_idf: float = 1.0
    stop_words: frozenset[str] = frozenset()

    def words(self, text: str) -> list[str]:
        return [w for w in words(text) if w not in self.stop_words]

    def weight(self, word: str) -> float:
        return self.idf.get(word, self.unknown_idf)

    def similarity(self, said: set[str], code: str) -> tuple[float, list[str]]:
        """The share of SAID's words found in CODE's document, each word weighted by its rarity (IDF), and the
        words shared."""
        mine = set(self.texts.get(code, []))
        if not said or not mine:
            return 0.0, []
        shared = sorted(said & mine)
        total = sum(self.weight(w) for w in said)
        return (sum(self.weight(w) for w in shared) / total if total else 0.0), shared


def legacy_type(ret: dict[str, Any] | None, ctx, letters: tuple[str, ...] = ("I", "E", "D")) \
        -> tuple[str, str, str] | None:
    """(type, code, why) when the dict's own legacy code names a registered code of one of LETTERS: through a
    mapping table or file (a human's decision), or by spelling the message key of registered codes that all have
    one type (`CONTRACT_RESPONSE_TOO_LARGE` holds `RESPONSE_TOO_LARGE`, a code of type E). Keys of one word
    (`TIMEOUT`) are too common to say anything; codes whose layer may not emit their type are no evidence."""
    own = str(ret.get("code") or "") if ret is not None else ""
    if not own:
        return None
    profile = ctx.profile
    mapped = ctx.code_map.get(own)
    parts = profile.parse_code(mapped) if mapped else None
    if parts is not None and parts.type in letters and mapped in ctx.canonical:
        return parts.type, mapped, f"its legacy code {own!r} maps to {mapped} (a mapping table or file), type " \
                                   f"{parts.type}"
    index: CodeIndex = ctx.code_index
    spelled = set(index.words(own))
    found: dict[str, list[str]] = {}
    for code in sorted(ctx.canonical):
        key = index.keys.get(code, [])
        parts = profile.parse_code(code)
        if len(key) > 1 and set(key) <= spelled and parts is not None and parts.type \
                and profile.code_compliant(code):
            found.setdefault(parts.type, []).append(code)
    if len(found) != 1:
        return None
    letter, codes = next(iter(found.items()))
    if letter not in letters:
        return None
    return letter, codes[0], f"its legacy code {own!r} spells the message key {index.key_names[codes[0]]} of " \
                             f"{', '.join(codes)}, type {letter}"


def rank(letter: str, ret: dict[str, Any] | None, handler: dict[str, Any], ctx, owners: list[str] | None = None,
         siblings: frozenset[str] = frozenset()) -> CodeChoice:
    """The registered code of type LETTER the evidence points to for one return of HANDLER (RET: the dict's
    facts, or None for a return whose text is unknown). SIBLINGS: the codes evidence chose for the handler's
    other returns (a second pass over the returns the first could not decide)."""
    profile = ctx.profile
    settings = profile.section("migrate").get("codes", {})
    area_weight = float(settings.get("area_weight", 1.0))
    text_weight = float(settings.get("text_weight", 2.0))
    legacy_weight = float(settings.get("legacy_weight", 2.0))
    key_weight = float(settings.get("key_weight", 2.0))
    usage_weight = float(settings.get("usage_weight", 0.5))
    threshold = float(settings.get("threshold", 2.0))
    sole_types = set(settings.get("sole_area_types", ["S", "D"]))
    margin = float(settings.get("margin", 0.25))
    index: CodeIndex = ctx.code_index
    named = set(words(f"{handler['name']} {handler['path'].rsplit('.', 1)[0]}", shortest=2))
    area_words = {area: {w.lower() for w in ws} for area, ws in settings.get("area_words", {}).items()}
    described = {area: set(index.words(str(text))) for area, text in profile.section("areas").items()}
    said: set[str] = set()
    legacy: set[str] = set()
    legacy_code = ""
    if ret is not None:
        texts = ret.get("texts", {})
        said = {w for k in profile.migrate_value("dict_returns.message_keys", [])
                for w in index.words(texts.get(k, ""))}
        if ret.get("code"):
            legacy_code = str(ret["code"])
            legacy = set(index.words(legacy_code))
    site = f"{handler['path']}::{handler['name']}"
    scored: list[tuple[float, str, list[str]]] = []
    for code in sorted(ctx.canonical):
        parts = profile.parse_code(code)
        if parts is None or parts.type != letter or not profile.code_compliant(code) \
                or (owners and parts.layer not in owners):
            continue
        score, why = 0.0, []
        area = (parts.area or "").lower()
        hit = area in named and area or next(iter(sorted(named & area_words.get(parts.area or "", set()))), "")
        if hit:
            score += area_weight
            why.append(f"the name says {hit!r}: area {parts.area}")
        told = sorted((said - named) & (area_words.get(parts.area or "", set()) | described.get(parts.area or "", set())))
        if told:
            score += area_weight
            why.append(f"the message says {told[0]!r}: area {parts.area}")
        key = set(index.keys.get(code, []))
        if legacy and key and key <= legacy:
            score += legacy_weight
            why.append(f"the legacy code {legacy_code!r} spells its message key {index.key_names[code]}")
        elif said and len(key) > 1 and key <= said | named and key & said:
            score += key_weight
            why.append(f"the message (with the name) spells its message key {index.key_names[code]}")
        similarity, shared = index.similarity(said, code)
        if similarity > 0:
            score += text_weight * similarity
            why.append(f"message words {', '.join(shared)} ({similarity:.2f})")
        used = index.used_in.get(code, set())
        if site in used or handler["path"] in used:
            score += usage_weight
            why.append("already used in this " + ("handler" if site in used else "module"))
        elif code in siblings:
            score += usage_weight
            why.append("chosen by evidence for another return of this handler")
        scored.append((score, code, why))
    if not scored:
        return CodeChoice(None)
    # the only code of its type in an area the name points to is evidence too
    by_area = Counter(profile.parse_code(code).area for score, code, why in scored
                      if any(w.startswith("the name says") for w in why))
    ranked = []
    for score, code, why in scored:
        area = profile.parse_code(code).area
        if by_area.get(area) == 1 and any(w.startswith("the name says") for w in why):
            score += area_weight / 2
            why = [*why, f"the only {letter} code of area {area}"]
            if len(by_area) == 1 and letter in sole_types:   # the only area named that has codes of this type
                score += area_weight / 2
                why = [*why, f"the only area named with {letter} codes"]
        ranked.append((round(score, 6), code, why))
    ranked.sort(key=lambda item: (-item[0], item[1]))
    best, code, why = ranked[0]
    ahead = best - (ranked[1][0] if len(ranked) > 1 else 0.0)
    top = tuple(c for s, c, w in ranked[:3] if s > 0)
    if best >= threshold and ahead >= margin:
        sure = "high" if best >= threshold + area_weight and ahead >= area_weight else "medium"
        return CodeChoice(code, sure, (f"score {best:.2f}, {ahead:.2f} ahead of the next", *why), top)
    return CodeChoice(None, "low", (f"no clear winner: best {best:.2f} ({code}), {ahead:.2f} ahead; "
                                    f"threshold {threshold}, margin {margin}",), top)
