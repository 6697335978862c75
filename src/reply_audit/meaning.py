"""What a result means: the one classifier of reply types, shared by `migrate` and the scan.

Spec 000 gives each reply type a meaning: a refusal by policy is Denied, bad input
from the caller is Invalid, a failure of the system is Error, and an empty result is
a Success. `migrate` must pick the type a raw dict becomes, and RA305 judges the
Invalid replies already written; both ask this module, so the scan never
contradicts a type `migrate` chose with evidence.

Every answer is a `Verdict`: the type, the signals that decided it (each one
readable on its own, for the decisions file and the reports), a confidence, and the
other type the evidence allows when it is weak. The signals are profile data:
[migrate.dict-returns] (flags, keys, values, patterns, input exceptions) and
[classify] (read paths, empty states, input checks).
"""

from __future__ import annotations

import re
from functools import cache

from .profile import Profile
from .record_class import record
from .records import Call, Return

HIGH, MEDIUM, LOW = "high", "medium", "low"
NOTHING = ("", "none", "no", "0", "n/a", "null", "-")   # what "Error: none" says after its prefix
# `if command == "status":` chooses what to do; it does not check the request
DISPATCH = re.compile(r"^(?!not\b)[\w.]+\s*==\s*['\"]")


@record(frozen=True)
class Verdict:
    """What one result is: its outcome, the reply type, and why."""

    outcome: str                   # success | failure | refused | runtime, or skip (reason in signals[0])
    letter: str = ""               # S | I | D | E ("" for runtime and skip)
    signals: tuple[str, ...] = ()
    confidence: str = MEDIUM       # high | medium | low
    alternative: str | None = None  # the type the evidence also allows (an empty state: S)
    default: bool = False          # the letter is the classifier's default (a failure with no sign of its kind)

    @property
    def skipped(self) -> str | None:
        return self.signals[0] if self.outcome == "skip" else None


def spaced(text: str) -> str:
    """TEXT with `snake_case` and `CamelCase` split into words (`launcherDb_path` -> `launcher Db path`)."""
    return re.sub(r"([a-z0-9])([A-Z])", r"\1 \2", text).replace("_", " ")


def _setting(profile: Profile, key: str) -> list[str]:
    return list(profile.migrate_value(f"dict_returns.{key}") or [])


def _classify(profile: Profile, key: str) -> list[str]:
    return list(profile.section("classify").get(key, []) or [])


def _match(patterns: list[str], text: str) -> str | None:
    """The first pattern found in TEXT, or None."""
    return next((p for p in patterns if text and re.search(p, text, re.IGNORECASE)), None)


def _names_any(text: str, words: list[str]) -> bool:
    """Does TEXT hold one of WORDS as a word (any case; `result.decision == Decision.DENY` names decision, deny)?"""
    wanted = tuple(w for w in words if w)
    return bool(wanted) and _one_of(wanted, r"(?<![A-Za-z0-9])", r"(?![A-Za-z0-9])").search(text) is not None


@cache
def _one_of(words: tuple[str, ...], before: str, after: str) -> re.Pattern[str]:
    """BEFORE, any one of WORDS (any case), AFTER: one pattern compiled once for a profile's whole list, where a
    pattern for each word was compiled for each (a profile lists dozens of words, and compiling is most of what
    a warm scan spends in this module)."""
    return re.compile(rf"(?i){before}(?:{'|'.join(re.escape(w) for w in words)}){after}")


def _said(ret: Return, profile: Profile, extra: bool = True) -> str:
    """The dict's own words: its message keys' texts, then (EXTRA) the texts of its evidence keys."""
    keys = _setting(profile, "message_keys") + (_setting(profile, "evidence_keys") if extra else [])
    texts = ret.texts
    return " ".join(texts[k] for k in keys if texts.get(k))


# ---------------------------------------------------------------------------
# a returned literal dict
# ---------------------------------------------------------------------------
def outcome_of_dict(ret: Return, profile: Profile) -> Verdict:
    """success | failure | refused | runtime | skip for a returned literal dict, from its literal flags, error
    keys, status, decision values and words."""
    values, texts = ret.key_values, ret.texts
    if ret.spread:
        return Verdict("runtime", signals=("the dict has keys known only at run time (`**spread` or a computed "
                                           "key): one may hold a flag, an error or a code",))
    flags = [k for k in _setting(profile, "success_flags") if k in values]
    kinds = {values[k] for k in flags}
    if kinds - {"true", "false"}:
        return Verdict("runtime", signals=(f"the success flag {flags[0]!r} is computed at run time",))
    if kinds == {"true", "false"}:
        return Verdict("skip", signals=("the success flags disagree",))
    failing: list[str] = []
    unknown: list[str] = []
    for key in _setting(profile, "error_keys"):
        kind = values.get(key)
        if kind in ("true", "text") or (kind == "str" and texts.get(key, "x")):
            failing.append(f"{key!r} holds an error")
        elif kind == "other":
            unknown.append(key)
    for key in _setting(profile, "error_flags"):
        if values.get(key) == "true" or texts.get(key, "").strip().lower() in ("true", "yes", "1"):
            failing.append(f"{key!r} is True (error_flags)")
    refusals = [f"{k!r} is False (denied_flags)" for k in _setting(profile, "denied_flags") if values.get(k) == "false"]
    denied = {v.lower() for v in _setting(profile, "denied_values")}
    allowing = {v.lower() for v in _setting(profile, "allow_values")}
    refusals += [f"{k!r} is {texts[k]!r} (denied_values)" for k in _setting(profile, "decision_keys")
                 if texts.get(k, "").lower() in denied]
    guard = (ret.guards or [""])[-1]
    if not guard.startswith("not (") and "==" in guard and _names_any(guard, _setting(profile, "decision_keys")) \
            and _names_any(guard, list(denied)):
        refusals.append(f"under `if {guard}`: a policy decision that refuses (decision_keys, denied_values)")
    failures = {v.lower() for v in _setting(profile, "failure_values")}
    prefixes = tuple(v.lower() for v in _setting(profile, "failure_prefixes"))
    for key in _setting(profile, "message_keys"):
        said = texts.get(key, "").strip().lower()
        if prefixes and said.startswith(prefixes) and said.split(":", 1)[-1].strip() not in NOTHING:
            failing.append(f"{key!r} says {texts[key].strip()[:20]!r} (failure_prefixes)")
    doubtful = {v.lower() for v in _setting(profile, "doubtful_failure_values")}
    for key in _setting(profile, "status_keys"):
        if key in texts:
            if texts[key].lower() in failures:
                failing.append(f"{key!r} is {texts[key]!r} (failure_values)")
            elif texts[key].lower() in doubtful:
                failing.append(f"{key!r} is {texts[key]!r} (doubtful_failure_values)")
        elif key in values and values[key] == "other":
            unknown.append(key)
    flagged = [r for r in refusals if r.endswith("(denied_flags)")]
    if flagged and len(flagged) == len(refusals):
        # a bare refusal flag is the dict's shape for any failure: a text saying the request named what does not
        # exist is the caller's mistake, not a policy (`{"allowed": False, "error": "Path not found: …"}`)
        said = _said(ret, profile)
        invalid = _match(_setting(profile, "invalid_patterns"), said)
        if invalid and ret.cites_params and not _match(
                _setting(profile, "refusal_patterns") + _setting(profile, "denied_patterns"), said):
            refusals = []
            failing.append(f"{flagged[0].split(' ', 1)[0]} is False, but its text matches {invalid!r} "
                           "(invalid_patterns): the request, not a policy")
    failing += refusals
    if (failing or kinds == {"false"}) and not refusals:
        # a failure that carries a policy decision other than an allowing one is that policy refusing
        refusals += [f"{k!r} is {texts[k]!r}: a policy decision that does not allow (decision_keys, allow_values)"
                     for k in _setting(profile, "decision_keys")
                     if texts.get(k) and texts[k].lower() not in allowing and texts[k].lower() not in denied]
    if kinds:
        if kinds == {"true"} and failing:
            said = failing[0].split(" ", 1)[0]
            return Verdict("skip", signals=(f"the success flag says True but {said} says it failed",))
        if kinds == {"true"}:
            return Verdict("success", "S", (f"{flags[0]!r} is True",), HIGH)
        signals = (f"{flags[0]!r} is False", *failing)
    elif failing:
        signals = tuple(failing)
    elif unknown:
        return Verdict("runtime", signals=(f"{unknown[0]!r} is computed at run time",))
    elif ret.in_except:
        signals = ("returned from an except",)
    else:
        return Verdict("success", "S", ("no flag, error key or failing status: a result",), MEDIUM)
    pattern = _match(_setting(profile, "denied_patterns"), _said(ret, profile))
    signals += tuple(r for r in refusals if r not in signals)
    if refusals or pattern:
        return Verdict("refused", "D", signals + ((f"its text matches {pattern!r} (denied_patterns)",)
                                                  if pattern else ()), HIGH if refusals else MEDIUM)
    return Verdict("failure", "", signals)


def failure_verdict(ret: Return, function: str, profile: Profile, base: Verdict | None = None) -> Verdict:
    """The failure type (I or E) of a returned dict that failed, with its signals: E for one caught from an
    unexpected exception or whose own text speaks of the system failing (error_patterns); I for one caught
    narrowly from an exception of bad input (input_exceptions) raised by a block that reads a parameter, or any
    other failure outside an except.
    An Invalid with no sign of bad input that reads as an empty state in a read path may be a Success."""
    signals = base.signals if base is not None else ()
    if ret.in_except:
        inputs = set(_setting(profile, "input_exceptions"))
        types = ret.except_types or []
        if ret.except_kind == "narrow" and types and set(types) <= inputs:
            reads = ret.try_reads
            if reads == "direct":
                return Verdict("failure", "I", signals + (f"caught as {', '.join(types)} (input_exceptions) from a "
                                                          "block that reads a parameter",), HIGH)
            lookups = set(_setting(profile, "lookup_exceptions"))
            if reads and set(types) <= lookups and ret.try_fixed_keys:
                # `resp["price"]`, `os.environ["KEY"]`: the system's own data may lack a key it names itself
                return Verdict("failure", "E", signals + (
                    f"caught as {', '.join(types)} from a block that also reads fixed keys of the system's own "
                    "data (`resp[\"price\"]`): the caller's key or the system's",), LOW, alternative="I")
            if reads == "indirect" and set(types) <= lookups:
                return Verdict("failure", "I", signals + (
                    f"caught as {', '.join(types)} (lookup_exceptions) from a block that hands a parameter to a "
                    "lookup: the caller asked for what is not there",), HIGH)
            if reads == "indirect":
                return Verdict("failure", "E", signals + (
                    f"caught as {', '.join(types)} from a block that reads a parameter only through the system's "
                    "own work (`fetch(x)`, `x or DEFAULT`): the caller's input or the system's failure",), LOW,
                    alternative="I")
            return Verdict("failure", "E", signals + (f"caught as {', '.join(types)}, but from a block that reads "
                                                      "no parameter: not the caller's input",), MEDIUM)
        kind = ret.except_kind or "broad"
        return Verdict("failure", "E", signals + (f"caught by a {kind} except"
                                                  + (f" ({', '.join(types)})" if types else ""),), HIGH)
    guards = ret.guards or []
    if ret.guard_reads == "direct" and (ret.cites_params or ret.names_params) \
            and not (guards and DISPATCH.search(guards[-1])):
        # the test checks a parameter itself and the text speaks of it ("timeout must be positive, got …"): the
        # caller's value, whatever system words the text uses ("Operation timed out" under `if elapsed > timeout`
        # speaks of no parameter: the system's)
        return Verdict("failure", "I", signals + ("the test before it checks a parameter itself, and the text "
                                                  "speaks of it",), HIGH)
    unsupported = _match(_setting(profile, "unsupported_patterns"), _said(ret, profile))
    if unsupported:
        if ret.cites_params:   # "Export format '{fmt}' not implemented": the caller chose what is not there
            return Verdict("failure", "I", signals + (f"its text matches {unsupported!r} (unsupported_patterns) and "
                                                      "quotes what the caller asked for",), MEDIUM)
        return Verdict("failure", "E", signals + (f"its text matches {unsupported!r} (unsupported_patterns): the "
                                                  "system lacks it, as HTTP's 501",), MEDIUM)
    pattern = _match(_setting(profile, "error_patterns"), _said(ret, profile))
    if pattern:
        return Verdict("failure", "E", signals + (f"its text matches {pattern!r} (error_patterns)",), MEDIUM)
    evidence = input_evidence(ret, profile)
    if evidence:
        return Verdict("failure", "I", signals + (evidence,), HIGH)
    empty = empty_state(function, ret.guards or [], _said(ret, profile, extra=False), profile)
    if empty:
        return Verdict("failure", "I", signals + (empty,), LOW, alternative="S")
    return Verdict("failure", "I", signals + ("a failure outside an except",), MEDIUM, default=True)


def classify_dict(ret: Return, function: str, profile: Profile) -> Verdict:
    """The whole verdict on a returned literal dict of FUNCTION."""
    found = outcome_of_dict(ret, profile)
    if found.outcome == "failure":
        verdict = failure_verdict(ret, function, profile, found)
        doubts = [s for s in found.signals if s.endswith("(doubtful_failure_values)")]
        signs = [s for s in found.signals if s != "returned from an except" and s not in doubts]
        if doubts and not signs:
            # a status that a successful call may report as its value ("invalid" from a validator): the type waits
            return Verdict(verdict.outcome, verdict.letter, verdict.signals, LOW, alternative="S")
        return verdict
    return found


# ---------------------------------------------------------------------------
# evidence shared with the scan
# ---------------------------------------------------------------------------
def input_evidence(site: Call | Return, profile: Profile, code_area: str | None = None) -> str | None:
    """Why a failure is the caller's bad input (Invalid is right), or None: the test that led to it reads a
    parameter (and is not a dispatch on it, `command == "status"`), its message quotes a parameter, or its
    code's AREA answers the caller's mistakes."""
    if isinstance(site, Call):   # a builder call knows only whether its test reads a parameter
        guards, direct, cites = site.guards, site.guard_on_params, site.cites_params
    else:                        # a return knows how its test reads them
        guards, cites, direct = site.guards, site.cites_params, site.guard_reads == "direct"
    if direct and not (guards and DISPATCH.search(guards[-1])):
        return "the test before it reads a parameter"
    if cites:
        return "its message quotes a parameter"
    if code_area and code_area in set(_classify(profile, "input_areas")):
        return f"its code's area {code_area} answers the caller's mistakes (input_areas)"
    return None


def _read_path(function: str, guards: list[str], profile: Profile) -> str | None:
    words = _classify(profile, "read_names")
    name = function.rsplit(".", 1)[-1]
    if not words:
        return None
    if _one_of(tuple(words), "(?:^|_)", "(?:_|$)").search(name):
        word = next(w for w in words if _one_of((w,), "(?:^|_)", "(?:_|$)").search(name))
        return f"{name} answers a read ({word})"
    for guard in guards:
        if guard.startswith("not (") or " not in " in guard:   # the branch where the command is NOT that one
            continue
        if ("==" in guard or " in " in guard) and _one_of(tuple(words), r"\b", r"\b").search(guard):
            return f"under `if {guard}` (a read or status command)"
    return None


def precondition(guards: list[str], message: str | None, profile: Profile) -> str | None:
    """The word ([classify] precondition-words) naming the missing resource or credential itself, or None: the
    name the innermost test finds empty (`if not dev_token`, `if launcher_db is None`), or what the message says
    is missing ("No database connection", "launcher database not found"). Such a failure is a precondition the
    request could not meet, never an empty result; a word merely mentioned ("No rows in that db table": the rows
    are missing, not the database) is no precondition."""
    guard = guards[-1] if guards else ""
    # the name an emptiness test tests (`not api_token`, `launcher_db is None`): its last word is what is missing
    tested = re.match(r"^\s*not\s+([\w.]+)\s*$|^\s*([\w.]+)\s+is\s+None\s*$|^\s*([\w.]+)\s*==\s*(?:None|0|''|\"\")\s*$",
                      guard)
    name = next((g for g in tested.groups() if g), "") if tested else ""
    head = spaced(name.rsplit(".", 1)[-1]).lower().split()[-1:] if name else []
    said = spaced(message or "").lower()
    words = _classify(profile, "precondition_words")
    # the whole list in one pattern first: most messages name none of the words, and then no word's own
    # pattern is compiled
    stated = bool(words) and _missing(tuple(word.lower() for word in words)).search(said) is not None
    for word in words:
        if word.lower() in head or (stated and _missing((word.lower(),)).search(said)):
            return word
    return None


@cache
def _missing(words: tuple[str, ...]) -> re.Pattern[str]:
    """`no X`, `X not found`, `X is missing`, for X one of WORDS (lower case, as the text it searches)."""
    w = "(?:" + "|".join(re.escape(word) for word in words) + ")"
    after = r"(?:$|[.,:;!?)]|\s+(?:provided|given|configured|available|found|set|connected|running|loaded)\b)"
    return re.compile(rf"\bno\s+(?:\w+\s+)?{w}{after}|\b{w}\s+(?:is\s+|was\s+)?(?:not\b|missing\b|unavailable\b)")


def empty_state(function: str, guards: list[str], message: str | None, profile: Profile) -> str | None:
    """Why a failure in FUNCTION reads as an empty result of a valid query (a Success, spec 000), or None: a
    read or status path ([classify] read-names) and either a message saying nothing was found
    (empty_patterns) or an innermost test for emptiness (empty_tests, not one of input_checks), where neither
    names a missing resource or credential (precondition_words)."""
    read = _read_path(function, guards, profile)
    if read is None or precondition(guards, message, profile):
        return None
    pattern = _match(_classify(profile, "empty_patterns"), message or "")
    if pattern:
        return f"{read}, and its message {message!r} says nothing was found"
    if guards and _match(_classify(profile, "empty_tests"), guards[-1]) \
            and not _match(_classify(profile, "input_checks"), guards[-1]):
        return f"{read}, under the emptiness test `if {guards[-1]}`"
    return None


def empty_state_confidence(signal: str, function: str, guards: list[str]) -> str:
    """RA305's confidence: high with a message that says so, or an emptiness test in a status path."""
    if "says nothing was found" in signal or "status" in (function + " ".join(guards)):
        return HIGH
    return MEDIUM
