"""Every rule: its own VALID/INVALID examples, a doc entry, and a finding on the bundled example."""

from __future__ import annotations

import textwrap

import pytest

from reply_audit.engine import evaluate
from reply_audit.errors import SEVERITIES
from reply_audit.profile import load_profile
from reply_audit.report.rules_doc import rules_markdown
from reply_audit.rules import all_rules
from reply_audit.scan import scan
from support import EXAMPLE, REPO, write_tree

RULES = all_rules()
CASES = [(r, kind, i, ex) for r in RULES for kind in ("valid", "invalid") for i, ex in enumerate(getattr(r, kind))]


def _findings(tmp_path, example, rule_id, profile="canonical"):
    root = write_tree(tmp_path, {p: textwrap.dedent(src) for p, src in example.tree().items()})
    result = scan(root, load_profile(profile, root))
    assert result.inventory.unparseable == [], "rule examples must parse"
    return [f for f in evaluate(result, select=[rule_id]).findings if f.rule == rule_id]


@pytest.mark.parametrize("rule,kind,index,example", CASES,
                         ids=[f"{r.id}-{kind}-{i}" for r, kind, i, _ in CASES])
def test_rule_examples(tmp_path, rule, kind, index, example):
    found = _findings(tmp_path, example, rule.id, rule.profile)
    if kind == "valid":
        assert found == [], [f.message for f in found]
    else:
        assert example.findings, f"{rule.id}: an INVALID example pins its findings (path, line, column, message)"
        assert [(f.path, f.line, f.col + 1, f.message) for f in found] == example.findings


def test_rules_are_complete_and_unique():
    ids = [r.id for r in RULES]
    assert len(ids) == len(set(ids)) and len({r.name for r in RULES}) == len(RULES)
    for r in RULES:
        assert r.severity in SEVERITIES and r.category in ("registry", "builder", "call", "envelope", "tooling")
        assert r.valid and r.invalid and len(r.doc) > 80 and r.spec
        assert r.fix and "Fix:" not in r.doc, f"{r.id}: how to fix goes in `fix`, not in `doc`"


def test_every_rule_fires_on_a_bundled_example():
    """The canonical rules on examples/legacy_mcp, the result rules on examples/iar_actions, the rest on the
    foreign-convention fixtures (each with its profile file)."""
    conventions = REPO / "tests" / "fixtures" / "conventions"
    trees = [(EXAMPLE, None), (REPO / "examples" / "iar_actions", "iar")]
    trees += [(d, str(d / "profile.toml") if (d / "profile.toml").exists() else None)
              for d in sorted(conventions.iterdir()) if d.is_dir()]   # else the tree's own pyproject.toml
    fired: set[str] = set()
    for root, profile in trees:
        result = scan(root, load_profile(profile, root))
        fired |= {f.rule for f in evaluate(result).findings}
    assert fired == {r.id for r in RULES}


def test_heuristic_findings_carry_a_confidence():
    result = scan(EXAMPLE, load_profile(None, EXAMPLE))
    ev = evaluate(result, select=["RA305"])
    assert [(f.line, f.confidence) for f in ev.findings] == [(90, "high")]


def test_docs_rules_md_is_generated_from_the_rules():
    assert (REPO / "docs" / "rules.md").read_text(encoding="utf-8") == rules_markdown(RULES)


def test_a_compliant_codebase_has_no_finding(tmp_path):
    from reply_audit.rules._snippets import BUILDER, CODES
    from reply_audit.rules.ra401_envelope_field_missing import SPEC_SHAPE

    root = write_tree(tmp_path, {
        "builder.py": BUILDER,
        "codes.py": CODES + '\nLEGACY_TO_CANONICAL = {"FILE-OP-E-001": "MCP-SYS-E-001"}\n',
        "reply.py": SPEC_SHAPE,
        "server.py": '''
            from builder import ReplyBuilder

            @mcp.tool()
            @mcp_safe_tool
            def notes_search(query: str):
                rb = ReplyBuilder()
                try:
                    hits = [q for q in query.split()]
                except Exception as exc:
                    return rb.error("MCP-SYS-E-001", {"error": str(exc)})
                if not hits:
                    return rb.success("WA-READ-S-001", {"results": []})
                reply = rb.success("WA-READ-S-001", {"results": hits})
                if reply.code == "WA-READ-S-001":
                    return reply
                return rb.invalid("WA-RES-I-001", {"query": query})
        ''',
        ".pre-commit-config.yaml": "repos:\n  - repo: local\n    hooks:\n      - id: reply-audit\n",
    })
    result = scan(root, load_profile("canonical", root))
    assert [f"{f.rule} {f.path}:{f.line} {f.message}" for f in evaluate(result).findings] == []
