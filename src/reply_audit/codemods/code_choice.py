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
from collections.abc import Callable
from dataclasses import field
from typing import Protocol, cast

from ..meaning import spaced
from ..profile import CodeParts, Profile
from ..record_class import record
from ..records import Handler, Return

_WORD = re.compile(r"[a-z][a-z0-9]+")
MESSAGE_KEY = re.compile(r"^[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+$")


class _PlanContext(Protocol):
    """What the ranking reads of `context.PlanContext` (which imports this module: not imported here)."""

    @property
    def profile(self) -> Profile: ...

    @property
    def canonical(self) -> set[str]: ...

    @property
    def code_map(self) -> dict[str, str]: ...

    @property
    def code_texts(self) -> dict[str, str]: ...

    @property
    def code_index(self) -> CodeIndex: ...

    @property
    def rank_vocabulary(self) -> RankVocabulary: ...


def words(text: str, shortest: int = 3) -> list[str]:
    """Lower-case words of TEXT (`snake_case` and `CamelCase` split), of SHORTEST letters or more."""
    return [w for w in _WORD.findall(spaced(text).lower()) if len(w) >= shortest]


@record(frozen=True)
class CodeChoice:
    """The code evidence points to (None: no clear winner), how sure, why, and the best candidates."""

    code: str | None
    confidence: str = "low"                   # high | medium | low
    evidence: tuple[str, ...] = ()
    candidates: tuple[str, ...] = ()
    by_default: bool = False                  # the profile's code for the situation, not evidence about this site
    fallback: bool = False                    # the fallback code of a site that names no domain
    given: bool = False                       # given, not inferred: the dict's own code, a mapping, a review
    corroborated: bool = False                # the return's own words point to this code (a key or legacy code
                                              # spelled, a message that reads like its text), not its area alone


@record
class CodeIndex:
    """The registry's codes as documents: their own text plus the messages the codebase writes with them."""

    texts: dict[str, list[str]] = field(default_factory=dict)      # code -> words
    keys: dict[str, list[str]] = field(default_factory=dict)       # code -> words of its message key
    key_names: dict[str, str] = field(default_factory=dict)        # code -> its message key as written
    idf: dict[str, float] = field(default_factory=dict)
    used_in: dict[str, set[str]] = field(default_factory=dict)     # code -> "path::function" and "path" using it

    @classmethod
    def build(cls, code_texts: dict[str, str], uses: list[tuple[str, str, str, str]],
              stop_words: frozenset[str] = frozenset()) -> CodeIndex:
        """CODE_TEXTS: code -> registry text; USES: (code, path, function, message) of compliant calls;
        STOP_WORDS: words that say nothing about a situation (`the`, `not`)."""
        index = cls(stop_words=stop_words)
        for code, text in code_texts.items():
            first = text.split(" ", 1)[0] if text else ""
            index.keys[code] = index.words(first) if MESSAGE_KEY.match(first) else []
            if index.keys[code]:
                index.key_names[code] = first
            index.texts[code] = index.words(text)
            index.registry[code] = list(index.texts[code])
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
    registry: dict[str, list[str]] = field(default_factory=dict)   # code -> words of its registry entry alone
    _vocabulary: dict[tuple[tuple[tuple[str, str], ...], frozenset[str], bool], dict[str, set[str]]] = field(
        default_factory=dict, repr=False)
    _word_sets: dict[str, frozenset[str]] = field(default_factory=dict, repr=False)   # code -> set(texts[code])
    _key_sets: dict[str, frozenset[str]] = field(default_factory=dict, repr=False)    # code -> set(keys[code])

    def words(self, text: str) -> list[str]:
        return [w for w in words(text) if w not in self.stop_words]

    def area_vocabulary(self, area_of: dict[str, str], generic: frozenset[str] = frozenset(),
                        keys_only: bool = True) -> dict[str, set[str]]:
        """AREA -> the subjects of that area alone: words (of four letters or more, not GENERIC) that two or more
        of its codes' message keys use and no other area's entries do: `playset` in NO_PLAYSET and
        PLAYSET_NOT_FOUND names VIS; `updated` in MEMBER_UPDATED alone, or `done`, names nothing. With KEYS_ONLY
        false, any word of one area's entries (keys and descriptions) alone: weaker, for telling that a name
        speaks of some domain. AREA_OF: code -> its AREA."""
        key = (tuple(sorted(area_of.items())), generic, keys_only)
        if key not in self._vocabulary:
            used_by: dict[str, set[str]] = {}
            keyed: dict[tuple[str, str], int] = {}
            for code, ws in (self.keys if keys_only else self.registry).items():
                if code in area_of:
                    for w in set(ws):
                        if len(w) >= 4 and w not in generic:
                            used_by.setdefault(w, set()).add(area_of[code])
                            keyed[(w, area_of[code])] = keyed.get((w, area_of[code]), 0) + 1
            vocabulary: dict[str, set[str]] = {}
            for w, areas in used_by.items():
                area = next(iter(areas))
                if len(areas) == 1 and (not keys_only or (keyed[(w, area)] >= 2 and not any(
                        w in self.registry.get(c, []) for c in area_of if area_of[c] != area))):
                    vocabulary.setdefault(area, set()).add(w)
            self._vocabulary[key] = vocabulary
        return self._vocabulary[key]

    def weight(self, word: str) -> float:
        return self.idf.get(word, self.unknown_idf)

    def similarity(self, said: set[str], code: str) -> tuple[float, list[str]]:
        """The share of SAID's words found in CODE's document, each word weighted by its rarity (IDF), and the
        words shared."""
        return self.scorer(said)(code)

    def key_set(self, code: str) -> frozenset[str]:
        """The words of CODE's message key, as a set."""
        found = self._key_sets.get(code)
        if found is None:
            found = self._key_sets[code] = frozenset(self.keys.get(code, []))
        return found

    def scorer(self, said: set[str]) -> Callable[[str], tuple[float, list[str]]]:
        """`similarity` of SAID, for one code after another (SAID's weight is added up once)."""
        total = sum(self.weight(w) for w in said)

        def score(code: str) -> tuple[float, list[str]]:
            mine = self._word_sets.get(code)
            if mine is None:
                mine = self._word_sets[code] = frozenset(self.texts.get(code, []))
            if not said or not mine:
                return 0.0, []
            shared = sorted(said & mine)
            return (sum(self.weight(w) for w in shared) / total if total else 0.0), shared
        return score


_NONE: frozenset[str] = frozenset()


def legacy_type(ret: Return | None, ctx: _PlanContext, letters: tuple[str, ...] = ("I", "E", "D")) \
        -> tuple[str, str, str] | None:
    """(type, code, why) when the dict's own legacy code names a registered code of one of LETTERS: through a
    mapping table or file (a human's decision), or by spelling the message key of registered codes that all have
    one type (`CONTRACT_RESPONSE_TOO_LARGE` holds `RESPONSE_TOO_LARGE`, a code of type E). Keys of one word
    (`TIMEOUT`) are too common to say anything; codes whose layer may not emit their type are no evidence."""
    own = str(ret.code or "") if ret is not None else ""
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


def rank(letter: str, ret: Return | None, handler: Handler, ctx: _PlanContext, owners: list[str] | None = None,
         siblings: frozenset[str] = frozenset()) -> CodeChoice:
    """The registered code of type LETTER the evidence points to for one return of HANDLER (RET: the dict's
    facts, or None for a return whose text is unknown). SIBLINGS: the codes evidence chose for the handler's
    other returns (a second pass over the returns the first could not decide)."""
    profile = ctx.profile
    area_weight = float(profile.migrate_value("codes.area_weight"))
    text_weight = float(profile.migrate_value("codes.text_weight"))
    legacy_weight = float(profile.migrate_value("codes.legacy_weight"))
    key_weight = float(profile.migrate_value("codes.key_weight"))
    usage_weight = float(profile.migrate_value("codes.usage_weight"))
    threshold = float(profile.migrate_value("codes.threshold"))
    sole_types = set(profile.migrate_value("codes.sole_area_types"))
    quiet_types = set(profile.migrate_value("codes.quiet_area_types"))
    margin = float(profile.migrate_value("codes.margin"))
    index: CodeIndex = ctx.code_index
    named = _with_singulars(words(f"{handler.name} {handler.path.rsplit('.', 1)[0]}", shortest=2))
    known = ctx.rank_vocabulary
    area_words, described = known.area_words, known.described
    generic_words, own_words, spoken_of = known.generic_words, known.own_words, known.spoken_of
    said: set[str] = set()
    meant: set[str] = set()   # words of the concepts the message expresses: they count as shared words only
    legacy: set[str] = set()
    legacy_code = ""
    if ret is not None:
        texts = ret.texts
        message = " ".join(texts.get(k, "") for k in profile.migrate_value("dict_returns.message_keys"))
        said = set(index.words(message))
        for phrase_words, patterns in known.concepts:
            if any(pattern.search(message) for pattern in patterns):
                meant |= phrase_words   # what the message means, in the registry's own words
        if ret.code:
            legacy_code = str(ret.code)
            legacy = set(index.words(legacy_code))
    site = f"{handler.path}::{handler.name}"
    own_name = _with_singulars(words(handler.name, shortest=2))
    own_say = (said | legacy) - named   # what the return itself says: its message and its legacy code (`LOAN_MAX`)
    # the areas the return's own words name (the first such word), any area the profile or the registry knows;
    # of those, the profile's own decide whether the return is quiet or may borrow a sibling's code
    said_areas = {a: told[0] for a in known.areas
                  if (told := sorted(own_say & ({a.lower()} | area_words.get(a, set()) | described.get(a, set()))))}
    told_areas = {a for a in said_areas if a in area_words or a in described}
    scored: list[tuple[float, str, list[str]]] = []
    specific: set[str] = set()   # codes with evidence about this site's domain, not only shared words
    spoken: set[str] = set()     # codes the return's own message or legacy code points to
    heard = index.scorer(said | meant)
    said_or_named = said | named
    of_area: dict[str | None, tuple[str, str, list[str]]] = {}   # what the names and the message say of an area
    for code, parts in known.typed_codes.get(letter, ()):
        if owners and parts.layer not in owners:
            continue
        score, why = 0.0, []
        if parts.area not in of_area:
            lower = (parts.area or "").lower()
            vocabulary = own_words.get(parts.area or "", set())
            named_area = (lower if lower in named else "") \
                or next(iter(sorted(named & area_words.get(parts.area or "", set()))), "")
            # (the handler's own name only: a package name such as `lending/` is no statement about one handler)
            named_word = "" if named_area else next(iter(sorted(own_name & vocabulary)), "")
            terms = area_words.get(parts.area or "", set()) | described.get(parts.area or "", set())
            of_area[parts.area] = (named_area, named_word, sorted((said - named) & terms))
        hit, registry_hit, told = of_area[parts.area]
        if hit or registry_hit:
            score += area_weight
            why.append(f"the name says {hit!r}: area {parts.area}" if hit else
                       f"the name says {registry_hit!r}, a word only area {parts.area}'s registry entries use")
        if told:
            score += area_weight
            why.append(f"the message says {told[0]!r}: area {parts.area}")
        key = index.key_set(code)
        if legacy and key and key <= legacy:
            score += legacy_weight
            why.append(f"the legacy code {legacy_code!r} spells its message key {index.key_names[code]}")
        elif said and len(key) > 1 and key <= said_or_named and key & said:
            score += key_weight
            why.append(f"the message (with the name) spells its message key {index.key_names[code]}")
        if len(why) > 0:
            specific.add(code)
        if told or len(why) > (1 if hit or registry_hit else 0):
            spoken.add(code)   # the return's own words (message, legacy code) point to this code or its area
        similarity, shared = heard(code)
        if similarity > 0:
            score += text_weight * similarity
            why.append(f"message words {', '.join(shared)} ({similarity:.2f})")
        used = index.used_in.get(code, _NONE)
        if site in used or handler.path in used:
            score += usage_weight
            why.append("already used in this " + ("handler" if site in used else "module"))
            specific.add(code)
        elif code in siblings and (not told_areas or parts.area in told_areas):
            # (not when this return's own message names another area: "the visibility index timed out")
            score += usage_weight
            why.append("chosen by evidence for another return of this handler")
            specific.add(code)
        scored.append((score, code, why))
    if not scored:
        return CodeChoice(None)
    fallback = _fallback(letter, ctx)
    # the only code of its type in an area the name points to is evidence too; so is, where the area has several,
    # its generic one (the lowest number of the one layer there that is not the fallback code's)
    named_codes = [code for score, code, why in scored if any(w.startswith("the name says") for w in why)]
    by_area = Counter(cast(CodeParts, profile.parse_code(code)).area for code in named_codes)
    # a return that says nothing of itself (no message, no legacy code: a result seen only at run time, a bare
    # flag) leaves the area as the only evidence, as the types whose dicts say little do
    # and so does one of quiet_area_types whose message names no area and spells no key ("timeout" in `exec_run`)
    quiet = not spoken and not told_areas
    # the types whose dicts say little take the only code of the area named, whatever it says; a return of
    # another type that says nothing (or a quiet Error) takes it only when its registry text is generic
    # (`EXEC_ERROR` "Command execution failed", not `LOAN_STORE_DOWN` "Loan store unavailable")
    extended = letter not in sole_types and (not (said or legacy_code) or (letter in quiet_types and quiet))
    sole = letter in sole_types or extended
    def plain(code: str) -> bool:
        return _is_generic(code, ctx.code_texts.get(code, ""), profile, area_words, generic_words)

    generic = _generic_code([c for c in named_codes if plain(c)], fallback, profile) \
        if len(by_area) == 1 and sole else None
    # a handler whose own name names a LAYER ([migrate.codes.layer_words]: `contract` names CT) is decided by that
    # layer: another layer's code gets no such bonus (EN-GATE-S-001, "precondition passed", is no contract's reply)
    layer_words = known.layer_words
    named_layers = {layer for layer, ws in layer_words.items() if own_name & ws}
    if not named_layers & {cast(CodeParts, profile.parse_code(code)).layer for score, code, why in scored}:
        named_layers = set()   # that layer emits no code of this type (spec 000: only EN denies): it decides nothing
    ranked = []
    for score, code, why in scored:
        area = cast(CodeParts, profile.parse_code(code)).area
        if named_layers and cast(CodeParts, profile.parse_code(code)).layer not in named_layers:
            if code in named_codes and (by_area.get(area) == 1 or code == generic):
                why = [*why, f"not decided by area alone: the name names layer {', '.join(sorted(named_layers))}"]
        elif by_area.get(area) == 1 and code in named_codes and (not extended or plain(code)):
            score += area_weight / 2
            why = [*why, f"the only {letter} code of area {area}"]
            if len(by_area) == 1 and sole:   # the only area named that has codes of this type
                score += area_weight / 2
                why = [*why, f"the only area named with {letter} codes"]
        elif code == generic:
            score += area_weight
            why = [*why, f"the generic {letter} code of area {area}, the only area named with {letter} codes (the "
                         f"lowest number of its one layer besides the fallback's)"]
        ranked.append((round(score, 6), code, why))
    ranked.sort(key=lambda item: (-item[0], item[1]))
    best, code, why = ranked[0]
    ahead = best - (ranked[1][0] if len(ranked) > 1 else 0.0)
    top = tuple(c for s, c, w in ranked[:3] if s > 0)
    if best >= threshold and ahead >= margin:
        sure = "high" if best >= threshold + area_weight and ahead >= area_weight else "medium"
        corroborated = any("spells its message key" in w for w in why) or index.similarity(said, code)[0] >= 0.5
        return CodeChoice(code, sure, (f"score {best:.2f}, {ahead:.2f} ahead of the next", *why), top,
                          corroborated=corroborated)
    undecided = (f"no clear winner: best {best:.2f} ({code}), {ahead:.2f} ahead; threshold {threshold}, "
                 f"margin {margin}")
    domain = _domain_named(letter, named, own_name, said_areas, area_words, spoken_of, profile, ctx, fallback)
    # a registered code of the type (writable or not) whose own text says much of what the message says: no
    # fallback either ("Borrower already holds too many items" reads like LOAN_LIMIT_REACHED)
    close = next((c for c, _parts in known.all_typed.get(letter, ())
                  if c != fallback and (found := index.similarity(said, c))[0] >= 0.25 and len(found[1]) >= 2), None)
    if fallback and not specific and not domain and not close and not profile.migrate_value("codes.mark_fallback"):
        return CodeChoice(fallback, "medium", (
            f"no domain named: neither the names, the message nor a legacy code point to any area but the "
            f"fallback's, and no registered text says what the message says, so the site gets the fallback code "
            f"of its type ([migrate.dict-returns]); {undecided}",), top, by_default=True, fallback=True)
    if domain:
        undecided += f"; {domain}"
    elif close:
        undecided += f"; the message reads like {close}'s registry text"
    return CodeChoice(None, "low", (undecided,), top)


@record(frozen=True)
class RankVocabulary:
    """What `rank` reads of the profile and the registry: the same for every return one plan ranks codes for
    (`PlanContext.rank_vocabulary` keeps it)."""

    area_words: dict[str, set[str]]     # AREA -> [migrate.codes] area-words, lower case
    described: dict[str, set[str]]      # AREA -> the words of its [areas] description
    area_of: dict[str, str]             # registered code -> its AREA
    generic_words: frozenset[str]
    own_words: dict[str, set[str]]      # AREA -> subjects only its codes' message keys name
    spoken_of: dict[str, set[str]]      # AREA -> words only its registry entries use
    areas: list[str]                    # every AREA the profile or the registry knows, sorted
    typed_codes: dict[str, list[tuple[str, CodeParts]]]   # TYPE -> its compliant registered codes, sorted
    all_typed: dict[str, list[tuple[str, CodeParts]]]     # TYPE -> all its registered codes, sorted
    concepts: list[tuple[set[str], list[re.Pattern[str]]]]   # [migrate.codes] concepts: a phrase's words, patterns
    layer_words: dict[str, set[str]]    # LAYER -> [migrate.codes] layer-words, lower case

    @classmethod
    def of(cls, ctx: _PlanContext) -> RankVocabulary:
        profile, index = ctx.profile, ctx.code_index
        area_of = {c: p.area for c in ctx.canonical if (p := profile.parse_code(c)) is not None and p.area}
        generic_words = frozenset(w.lower() for w in profile.migrate_value("codes.generic_words"))
        area_words = {area: {w.lower() for w in ws} for area, ws in profile.migrate_value("codes.area_words").items()}
        described = {area: set(index.words(str(text))) for area, text in profile.section("areas").items()}
        typed_codes: dict[str, list[tuple[str, CodeParts]]] = {}
        all_typed: dict[str, list[tuple[str, CodeParts]]] = {}
        for code in sorted(ctx.canonical):
            parts = profile.parse_code(code)
            if parts is not None and parts.type is not None:
                all_typed.setdefault(parts.type, []).append((code, parts))
                if profile.code_compliant(code):
                    typed_codes.setdefault(parts.type, []).append((code, parts))
        return cls(
            area_words=area_words, described=described, area_of=area_of, generic_words=generic_words,
            own_words=index.area_vocabulary(area_of, generic_words),
            spoken_of=index.area_vocabulary(area_of, generic_words, keys_only=False),
            areas=sorted({*area_words, *described, *area_of.values()}), typed_codes=typed_codes, all_typed=all_typed,
            concepts=[(set(index.words(phrase)), [re.compile(p, re.IGNORECASE) for p in patterns])
                      for phrase, patterns in profile.migrate_value("codes.concepts").items()],
            layer_words={layer: {w.lower() for w in ws}
                         for layer, ws in profile.migrate_value("codes.layer_words").items()})


def _domain_named(letter: str, named: set[str], own_name: set[str], said_areas: dict[str, str],
                  area_words: dict[str, set[str]], own_words: dict[str, set[str]], profile: Profile,
                  ctx: _PlanContext, fallback: str | None) -> str:
    """Which area with registered codes of type LETTER, other than the fallback code's, the names or the message
    point to ('' when none), whether or not the ranking may write its codes (`git` names GIT, whose codes the
    spec's AREA list lacks; "no active contract to close" names CLOSE), and by any word only that area's registry
    entries use (OWN_WORDS: `playlist` in "Shelf or playlist operation complete" is too weak to choose a code,
    strong enough to say the site is no fallback's)."""
    parts = profile.parse_code(fallback) if fallback else None
    areas = {p.area for _c, p in ctx.rank_vocabulary.all_typed.get(letter, ()) if p.area}
    for area in sorted(areas - {parts.area if parts is not None else None}):
        lower = area.lower()
        in_name = sorted((named & ({lower} | area_words.get(area, set()))) | (own_name & own_words.get(area, set())))
        if in_name:
            return f"the name says {in_name[0]!r}: area {area}, so no fallback"
        if area in said_areas:
            return f"the message says {said_areas[area]!r}: area {area}, so no fallback"
    return ""


def _with_singulars(found: list[str]) -> set[str]:
    """FOUND, plus the singular of each plural-looking word (`users` -> `user`, `logs` -> `log`), so that a name
    in the plural still names an AREA or a registry word in the singular."""
    return set(found) | {w[:-1] for w in found if len(w) > 3 and w.endswith("s") and not w.endswith("ss")}


def _fallback(letter: str, ctx: _PlanContext) -> str | None:
    """The profile's code for a reply of type LETTER that concerns no domain ([migrate.dict-returns] success-code,
    invalid_code, error_code), when it is registered and compliant."""
    profile = ctx.profile
    method = profile.method_for_type(letter)
    code = str(profile.migrate_value(f"dict_returns.{method}_code") or "") if method else ""
    parts = profile.parse_code(code) if code else None
    if parts is None or parts.type != letter or code not in ctx.canonical or not profile.code_compliant(code):
        return None
    return code


_FUNCTION_WORDS = frozenset({"a", "an", "the", "of", "to", "for", "and", "or", "by", "with", "from", "on", "at",
                             "is", "are", "was", "be", "been"})


def _is_generic(code: str, text: str, profile: Profile, area_words: dict[str, set[str]],
                generic_words: frozenset[str]) -> bool:
    """Does CODE's registry TEXT (message key and description) say nothing but its AREA and generic words
    ([migrate.codes] generic-words: ok, complete, error, failed …)? `DB_OP_OK` "Database operation complete" does;
    `BOOK_ADDED` "Book added", `DB_IN_USE` "Database in use" and `RESTORE_FAILED` (in area RES) do not. Every word
    counts but a few function words (`of`, `the`): `in` and `use` say something here."""
    area = (cast(CodeParts, profile.parse_code(code)).area or "").lower()
    own = area_words.get(area.upper(), set()) | {area}
    said = [w for w in re.findall(r"[a-z0-9]+", spaced(text).lower()) if w not in _FUNCTION_WORDS]
    return bool(said) and all(w in generic_words or _with_singulars([w]) & own for w in said)


def _generic_code(codes: list[str], fallback: str | None, profile: Profile) -> str | None:
    """Of CODES (one area, one type, each with a generic registry text), the generic one: the lowest number of
    the single layer that is not the fallback code's; None when no fallback is known, or when two other layers
    have codes there."""
    if not fallback or not codes:
        return None
    other = [c for c in codes if cast(CodeParts, profile.parse_code(c)).layer
             != cast(CodeParts, profile.parse_code(fallback)).layer]
    if len({cast(CodeParts, profile.parse_code(c)).layer for c in other}) != 1:
        return None
    return min(other, key=lambda c: (cast(CodeParts, profile.parse_code(c)).number or 0, c))
