"""Fuzzing with hypothesis: generated handler modules through `migrate`, generated registries through `scan`.

Bounded for CI (REPLY_AUDIT_FUZZ_EXAMPLES, default 25 each); `python scripts/fuzz.py` runs many more.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, Phase, find, given, settings
from hypothesis import strategies as st

from reply_audit.api import evaluate
from reply_audit.migrate import migrate, write
from reply_audit.profile import load_profile
from reply_audit.rules._snippets import BUILDER, CODES
from reply_audit.scan import scan

EXAMPLES = int(os.environ.get("REPLY_AUDIT_FUZZ_EXAMPLES", "25"))
FUZZ = settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck))

HEADER = "from builder import ReplyBuilder\nfrom safety import mcp_safe_tool\n\n\n"
COMMENTS = st.sampled_from(["", "  # why", "  # TODO: check"])


@st.composite
def dict_literal(draw, error: bool) -> str:
    keys = draw(st.lists(st.sampled_from(["path", "count", "items", "hint", "detail"]), max_size=3, unique=True))
    pairs = [f'"{k}": {draw(st.sampled_from(["x", "1", "[]", "str(x)", "None"]))}' for k in keys]
    if error:
        pairs.insert(draw(st.integers(0, len(pairs))), draw(st.sampled_from(
            ['"error": "bad request"', '"success": False', '"ok": False'])))
    elif draw(st.booleans()):
        pairs.insert(draw(st.integers(0, len(pairs))), '"success": True')
    if draw(st.booleans()) and pairs:   # one element per line, trailing comma, a comment inside
        inner = "".join(f"\n            {p},{draw(COMMENTS)}" for p in pairs)
        return "{" + inner + "\n        }"
    if draw(st.booleans()):
        return "dict(" + ", ".join(p.replace('"', "", 2).replace(": ", "=", 1) for p in pairs) + ")"
    return "{" + ", ".join(pairs) + "}"


@st.composite
def handler(draw, index: int) -> str:
    lines = ["@mcp.tool()"]
    if draw(st.booleans()):
        lines.append("@mcp_safe_tool")
    lines.append(f"def tool_{index}(x):")
    if draw(st.booleans()):
        lines.append(f'    """Tool {index}."""')
    has_rb = draw(st.booleans())
    if has_rb:
        lines.append(f'    rb = ReplyBuilder(tool="tool_{index}")')
    for n in range(draw(st.integers(0, 3))):
        kind = draw(st.sampled_from(["ok", "err", "info", "bare", "except", "except_dict"]
                                    if has_rb else ["ok", "err", "except_dict"]))
        lines.append(f"    if x == {n}:{draw(COMMENTS)}")
        if kind == "ok":
            lines.append(f"        return {draw(dict_literal(False))}{draw(COMMENTS)}")
        elif kind == "err":
            lines.append(f"        return {draw(dict_literal(True))}")
        elif kind == "info":
            lines.append('        return rb.info("WA-READ-S-001", {"n": x})')
        elif kind == "bare":
            lines.append('        rb.denied("EN-WRITE-D-001", {})' + draw(COMMENTS))
        else:
            lines += ["        try:", "            x = 1 / x", "        except Exception as exc:"]
            lines.append('            return rb.invalid("WA-RES-I-001", {"e": str(exc)})' if kind == "except"
                         else '            return {"success": False, "error": str(exc)}')
    lines.append(f"    return {draw(dict_literal(False))}" if draw(st.booleans())
                 else '    return (\n        {"success": True}\n    )')
    return "\n".join(lines) + "\n"


@st.composite
def module(draw) -> str:
    return HEADER + "\n\n".join(draw(handler(i)) for i in range(draw(st.integers(1, 4))))


def _tree(source: str) -> Path:
    root = Path(tempfile.mkdtemp(prefix="reply-audit-fuzz-"))
    (root / "builder.py").write_text(BUILDER.replace("def __init__(self):", "def __init__(self, tool=None):"))
    (root / "codes.py").write_text(CODES + '    MCP_SYS_I_001 = ReplyCode("MCP-SYS-I-001")\n')
    (root / "safety.py").write_text("def mcp_safe_tool(f):\n    return f\n")
    (root / "server.py").write_text(source)
    return root


@FUZZ
@given(module())
def test_migrate_output_parses_is_stable_and_leaves_nothing_fixable(source):
    root = _tree(source)
    try:
        compile(source, "server.py", "exec")            # the generator writes valid Python
        profile = load_profile(None, root)
        result = migrate(scan(root, profile))
        write(result, allow_dirty=True)
        assert result.refused == [], result.refused
        new = (root / "server.py").read_text()
        compile(new, "server.py", "exec")
        again = migrate(scan(root, profile))
        assert again.changed == [] and again.applied == []
        left = [f for f in evaluate(scan(root, profile)).findings if f.fixable]
        assert left == [], [(f.rule, f.line, f.message) for f in left]
    finally:
        shutil.rmtree(root, ignore_errors=True)


LAYERS = ["WA", "EN", "CT", "MCP", "FILE", "GIT"]
AREAS = ["RES", "READ", "WRITE", "SYS", "GATE", "OPEN"]


@FUZZ
@given(st.lists(st.tuples(st.sampled_from(LAYERS), st.sampled_from(AREAS), st.sampled_from("SIDEX"),
                          st.integers(0, 1200)), min_size=2, max_size=40),
       st.sampled_from(["class", "dict", "list"]))
def test_generated_registries_are_counted_exactly(codes, style):
    texts = [f"{layer}-{area}-{kind}-{number:03d}" for layer, area, kind, number in codes]
    valid = [t for t, (*_, number) in zip(texts, codes) if number < 1000]   # NNN: three digits
    if style == "class":
        body = "class Codes:\n" + "".join(f'    C{i} = ReplyCode("{t}")\n' for i, t in enumerate(texts))
    elif style == "dict":
        body = "CODES = {\n" + "".join(f'    "{t}": "message {i}",\n' for i, t in enumerate(texts)) + "}\n"
    else:
        body = "ALL = [\n" + "".join(f'    Code(code="{t}"),\n' for t in texts) + "]\n"
    root = Path(tempfile.mkdtemp(prefix="reply-audit-fuzz-"))
    try:
        (root / "registry.py").write_text(body)
        result = scan(root, load_profile(None, root))
        evaluate(result)   # the rules never crash on it either
        registries = result.inventory.registries
        if len(valid) < 2 or (style == "dict" and 2 * len(valid) < len(texts)):
            return   # fewer than two codes do not make a registry; mostly non-codes make no dict registry
        [registry] = registries
        assert registry.definitions == len(valid) and registry.distinct == len(set(valid))
    finally:
        shutil.rmtree(root, ignore_errors=True)


@pytest.mark.parametrize("rule", ["RA306", "RA308", "RA203", "RA303", "RA304"])
def test_the_generator_makes_modules_each_codemod_fixes(rule):
    """The migrate fuzz test means something only if the generator produces what every codemod rewrites."""
    def fixable(source: str) -> bool:
        root = _tree(source)
        try:
            found = evaluate(scan(root, load_profile(None, root))).findings
            return any(f.rule == rule and f.fixable for f in found)
        finally:
            shutil.rmtree(root, ignore_errors=True)

    # the first module that shows it is enough: no shrinking (that is what cost the time), a fixed seed
    find(module(), fixable, settings=settings(max_examples=300, database=None, deadline=None, derandomize=True,
                                              phases=[Phase.generate], suppress_health_check=list(HealthCheck)))


# --------------------------------------------------------------------------- IAR actions (result-envelope)
REFLECTION = '{"status": "ok", "confidence": 0.5, "alignment_check": "pass", "potential_issues": []}'


@st.composite
def action_dict(draw) -> str:
    """A dict an action returns: payload keys, maybe an error (null, a string, an f-string, an object), maybe
    a reflection, maybe a status saying it failed; on one line or one entry per line with comments."""
    keys = draw(st.lists(st.sampled_from(["result", "items", "count", "note"]), max_size=3, unique=True))
    pairs = [f'"{k}": {draw(st.sampled_from(["x", "1", "[x]", "str(x)", "None", "{}"]))}' for k in keys]
    error = draw(st.sampled_from([None, '"error": None', '"error": str(x)', '"error": f"bad {x}"',
                                  '"error": {"code": "RES-ERR-ACTN-0002", "message": "m", "details": {}}']))
    if error:
        pairs.insert(draw(st.integers(0, len(pairs))), error)
    if draw(st.booleans()):
        pairs.insert(draw(st.integers(0, len(pairs))), f'"reflection": {REFLECTION}')
    if draw(st.booleans()):
        pairs.insert(draw(st.integers(0, len(pairs))), draw(st.sampled_from(['"status": "error"', '"status": "ok"'])))
    if draw(st.booleans()) and pairs:
        inner = "".join(f"\n            {p},{draw(COMMENTS)}" for p in pairs)
        return "{" + inner + "\n        }"
    return "{" + ", ".join(pairs) + "}"


@st.composite
def action_module(draw) -> str:
    parts = []
    for i in range(draw(st.integers(1, 3))):
        body = [f"def action_{i}(x):"]
        for _ in range(draw(st.integers(0, 2))):
            body += ["    if x:", f"        return {draw(action_dict())}"]
        body.append(f"    return {draw(action_dict())}")
        parts.append("\n".join(body) + "\n")
        parts.append(f'registry.register_action("a{i}", action_{i})\n')
    return "\n\n".join(parts)


@FUZZ
@given(action_module())
def test_result_envelope_output_parses_is_stable_and_envelopes_every_literal(source):
    root = Path(tempfile.mkdtemp(prefix="reply-audit-fuzz-iar-"))
    try:
        (root / "actions.py").write_text(source)
        compile(source, "actions.py", "exec")
        profile = load_profile("iar", root)
        result = migrate(scan(root, profile))
        write(result, allow_dirty=True)
        assert result.refused == [], result.refused
        new = (root / "actions.py").read_text()
        compile(new, "actions.py", "exec")
        assert new.count("#") >= source.count("#")          # no comment lost
        again = migrate(scan(root, profile))
        assert again.changed == [] and again.applied == []
        left = [(f.line, f.message) for f in evaluate(scan(root, profile), select=["RA601"]).findings]
        assert left == []
    finally:
        shutil.rmtree(root, ignore_errors=True)
