"""Foreign conventions, each a fixture with its own profile file (tests/fixtures/conventions), and the
bundled IAR example under the built-in iar profile: exact findings, exact inventories."""

from __future__ import annotations

import json

import pytest

from reply_audit.cli import app
from reply_audit.engine import evaluate
from reply_audit.profile import load_profile
from reply_audit.scan import scan
from support import REPO, CliRunner

CONVENTIONS = REPO / "tests" / "fixtures" / "conventions"
IAR_EXAMPLE = REPO / "examples" / "iar_actions"


def _scan(name: str):
    root = CONVENTIONS / name
    result = scan(root, load_profile(str(root / "profile.toml"), root))
    return result, evaluate(result)


def _found(evaluation) -> list[tuple[str, str, int, str]]:
    return [(f.rule, f.path, f.line, f.message) for f in evaluation.findings]


def test_function_builders_with_code_by_keyword_position_or_absent():
    result, ev = _scan("function_builders")
    calls = [(c.method, c.line, c.type, c.code, c.has_code) for c in result.inventory.calls]
    assert calls == [
        ("error_response", 9, "E", "INVALID_QUERY", True),     # keyword, a registry constant
        ("error_response", 11, "E", "INVALID_QUERY", True),    # positional
        ("error_response", 13, "E", None, False),              # absent
        ("error_response", 15, "E", "UPSTREAM_GONE", True),
        ("success_response", 16, "S", None, False),            # success needs no code here
    ]
    assert _found(ev) == [
        ("RA501", ".pre-commit-config.yaml", 0, "no pre-commit configuration, so no reply-code guard"),
        ("RA311", "server.py", 13, "error_response() builds a reply without a code"),
        ("RA301", "server.py", 15, "'UPSTREAM_GONE' is not defined in the canonical registry"),
    ]
    handler = result.inventory.handlers[0]
    assert handler.returns_by_kind == {"builder": 5}


def test_codes_as_enum_members_and_literal_aliases():
    result, ev = _scan("enum_codes")
    regs = {r.name: (r.style, r.role, [c.code for c in r.codes]) for r in result.inventory.registries}
    assert regs == {
        "ErrorCode": ("enum", "canonical", ["not_found", "invalid_input", "rate_limited"]),
        "ToolErrorName": ("literal", "canonical", ["quota_exceeded", "auth_required"]),
    }
    assert [(c.line, c.code) for c in result.inventory.calls] == [
        (7, "invalid_input"), (9, "not_found"), (11, None), (13, "auth_required"), (15, "server_error"), (16, None)]
    assert _found(ev) == [
        ("RA501", ".pre-commit-config.yaml", 0, "no pre-commit configuration, so no reply-code guard"),
        ("RA301", "server.py", 11, "ErrorCode.TOO_MANY: registry ErrorCode defines no TOO_MANY (an AttributeError at run time)"),
        ("RA301", "server.py", 15, "'server_error' is not a member of ErrorCode, ToolErrorName"),
    ]


def test_handlers_by_any_decorator_or_a_dispatch_table():
    result, ev = _scan("decorators_and_dispatch")
    assert [(h.name, h.decorators) for h in result.inventory.handlers] == [
        ("a", ["server.tool"]), ("b", ["mcp.tool"]), ("c", ["tool_handler"]), ("d", []), ("e", [])]
    assert [(r.name, r.target, r.via, r.kind, r.handler) for r in result.inventory.registrations] == [
        ("d", "d", "TOOLS", "table", "tools.py::d"), ("e", "e", "TOOLS", "table", "tools.py::e")]
    assert [(f.rule, f.line) for f in ev.findings] == [("RA501", 0), ("RA306", 6), ("RA306", 11), ("RA306", 16),
                                                       ("RA306", 20), ("RA306", 24)]


def test_envelope_classes_are_replies_and_success_error_dicts_are_legacy():
    result, ev = _scan("envelope_class")
    assert [(c.method, c.line, c.type, c.code) for c in result.inventory.calls] == [
        ("ToolResponse", 7, "E", None), ("ToolResponse", 9, "E", "E-001"), ("ToolResponse", 11, "E", "E-404"),
        ("ToolResponse", 14, "S", None)]
    assert result.inventory.handlers[0].returns_by_kind == {"builder": 4, "dict": 1}
    assert _found(ev) == [
        ("RA501", ".pre-commit-config.yaml", 0, "no pre-commit configuration, so no reply-code guard"),
        ("RA311", "server.py", 7, "ToolResponse() builds a reply without a code"),
        ("RA301", "server.py", 11, "'E-404' is not defined in the canonical registry"),
        ("RA306", "server.py", 13, "handler run returns a raw dict ({success, error})"),
    ]


# --------------------------------------------------------------------------- IAR
def _iar():
    result = scan(IAR_EXAMPLE, load_profile("iar", IAR_EXAMPLE))
    return result, evaluate(result)


def test_iar_registrations_resolve_through_imports_wrappers_and_self():
    result, _ = _iar()
    regs = [(r.name, r.target, r.handler) for r in result.inventory.registrations]
    assert regs == [
        ("for_each", "self.for_each", "arche_lite/engine.py::WorkflowEngine.for_each"),
        ("search_web", "search_web", "arche_lite/tools/search.py::search_web"),   # unwrapped from trace(...)
        ("save_file", "files.save_file", "arche_lite/tools/files.py::save_file"),  # a module attribute
        ("read_file", "files.read_file", "arche_lite/tools/files.py::read_file"),
        ("calculate", "calculate", "arche_lite/actions.py::calculate"),
        ("summarize", "summarize", "arche_lite/actions.py::summarize"),
        ("display_output", "display_output", "arche_lite/actions.py::display_output"),
        ("fetch_url", "actions.fetch_url", "arche_lite/actions.py::fetch_url"),
        ("forecast", "run_forecast", None),
    ]
    # the registry's own forwarding method and unregistered functions are no actions
    assert sorted(h.qualname for h in result.inventory.handlers) == [
        "WorkflowEngine.for_each", "calculate", "display_output", "fetch_url", "read_file", "save_file",
        "search_web", "summarize"]


def test_iar_findings_are_exact():
    _, ev = _iar()
    assert [(f.rule, f.path, f.line, f.message) for f in ev.findings] == [
        ("RA601", "arche_lite/actions.py", 11, "action calculate returns a dict without data"),
        ("RA602", "arche_lite/actions.py", 11,
         "action calculate: reflection.alignment_check is 'Aligned', not one of pass, concern, fail"),
        ("RA602", "arche_lite/actions.py", 11,
         "action calculate: reflection.status is 'Failed', not one of ok, error, skipped"),
        ("RA604", "arche_lite/actions.py", 11,
         "action calculate: error is a bare string, not an object with code, message, details"),
        ("RA601", "arche_lite/actions.py", 14, "action calculate returns a dict without error, data"),
        ("RA602", "arche_lite/actions.py", 14,
         "action calculate: reflection.alignment_check is 'Aligned', not one of pass, concern, fail"),
        ("RA602", "arche_lite/actions.py", 14,
         "action calculate: reflection.status is 'Success', not one of ok, error, skipped"),
        ("RA606", "arche_lite/actions.py", 14, "action calculate: reflection lacks potential_issues"),
        ("RA603", "arche_lite/actions.py", 24, "action summarize: reflection.confidence is 1.4, outside 0..1"),
        ("RA601", "arche_lite/actions.py", 31, "action display_output returns None without error, data, reflection"),
        ("RA601", "arche_lite/actions.py", 33,
         "action display_output returns a dict without error, data, reflection"),
        ("RA608", "arche_lite/actions.py", 38,
         "this reflection was written by migrate: set its confidence and alignment, then delete the marker"),
        ("RA609", "arche_lite/registry.py", 31,
         "register_action 'forecast' names run_forecast, which is not found in the scanned tree"),
        ("RA604", "arche_lite/tools/files.py", 10,
         "action save_file: error is a bare string, not an object with code, message, details"),
        ("RA605", "arche_lite/tools/files.py", 25, "action read_file: error object lacks details"),
        ("RA607", "arche_lite/tools/files.py", 25,
         "action read_file: RES-ERR-IO-0404: family IO is not one of ACTN, BRID, POLI, SCHE, WFLW"),
    ]


def test_iar_compliance_levels_per_action():
    runner = CliRunner()
    out = runner.invoke(app, ["scan", str(IAR_EXAMPLE), "--profile", "iar", "-f", "json", "--fail-on", "none"])
    doc = json.loads(out.output)
    levels = {a["function"]: (a["level"], a["missing_for_next"]) for a in doc["results"]["actions"]}
    assert levels == {
        "calculate": ("L1", ["reflection_fields", "reflection_values"]),
        "summarize": ("L1", ["reflection_values"]),            # confidence 1.4 through the helper
        "display_output": ("L0", ["reflection"]),
        "fetch_url": ("L2", ["has:reflection.telemetry"]),
        "WorkflowEngine.for_each": ("L2", ["has:reflection.telemetry"]),
        "save_file": ("L2", ["error_objects", "has:reflection.telemetry"]),
        "read_file": ("L2", ["error_objects", "error_codes", "has:reflection.telemetry"]),
        "search_web": ("L3", []),
    }
    assert doc["results"]["returns_by_verdict"] == {"envelope": 11, "helper": 0, "partial": 2, "missing": 2,
                                                    "unknown": 0}
    assert doc["results"]["errors_by_shape"] == {"none": 8, "object": 2, "bare_string": 2, "other": 0}
    rows = {r["requirement"]: (r["status"], r["ok"], r["total"]) for r in doc["scorecard"]}
    assert rows["Every action result carries the envelope"] == ("PARTIAL", 11, 15)
    assert rows["Actions at compliance L2 or above"] == ("PARTIAL", 5, 8)
    assert rows["Errors are objects with a valid code"] == ("PARTIAL", 1, 4)
    assert rows["Registrations name a function in the tree"] == ("PARTIAL", 8, 9)


def test_iar_markdown_has_the_dialects_sections():
    runner = CliRunner()
    md = runner.invoke(app, ["scan", str(IAR_EXAMPLE), "--profile", "iar", "-f", "md", "--fail-on", "none"]).output
    for heading in ("## 1. Actions", "## 2. Results", "### Returns lacking the envelope", "## 3. Error shapes",
                    "## 4. Compliance levels", "## 6. Compliance scorecard", "### Chunk A — Find every action"):
        assert heading in md
    assert "## 1. Wire shape" not in md
    assert "9 registrations (9 by `register_action`) of 9 distinct names; 8 resolve" in md


@pytest.mark.parametrize("name", sorted(d.name for d in CONVENTIONS.iterdir() if d.is_dir()))
def test_every_rule_runs_on_every_convention_fixture(name):
    """No fixture hides a false finding behind a rule selection: each is scanned with every rule on."""
    from reply_audit.rules import all_rules

    root = CONVENTIONS / name
    profile = str(root / "profile.toml") if (root / "profile.toml").exists() else None
    loaded = load_profile(profile, root)
    ev = evaluate(scan(root, loaded))
    base = "iar" if loaded.name == "iar" else "canonical"   # the built-in's own choice of rules, no fewer
    assert sorted(r.id for r in ev.rules) == sorted(r.id for r in evaluate(scan(root, load_profile(base))).rules)
    if base == "canonical":
        assert sorted(r.id for r in ev.rules) == sorted(r.id for r in all_rules())


def test_iar_migrate_wraps_literal_dicts_once_and_leaves_the_rest(tmp_path):
    import ast
    import shutil

    root = tmp_path / "iar"
    shutil.copytree(IAR_EXAMPLE, root)
    runner = CliRunner()
    first = runner.invoke(app, ["migrate", str(root), "--profile", "iar", "--select", "result-envelope", "--apply"])
    assert first.exit_code == 0, first.output
    assert "rewrote 1 file(s) with 3 rewrite(s)" in first.output
    assert "the action returns None: build the result by hand  [arche_lite/actions.py:31]" in first.output
    source = (root / "arche_lite" / "actions.py").read_text(encoding="utf-8")
    ast.parse(source)
    original = (IAR_EXAMPLE / "arche_lite" / "actions.py").read_text(encoding="utf-8")
    expected = original.replace(
        '''        return {"result": None, "error": f"cannot evaluate: {e}",
                "reflection": {"status": "Failed", "confidence": 0.1, "alignment_check": "Aligned",
                               "potential_issues": [str(e)]}}
    return {"result": value,
            "reflection": {"status": "Success", "confidence": 1.0, "alignment_check": "Aligned"}}
''', '''        return {"error": {"code": "RES-ERR-ACTN-0001", "message": f"cannot evaluate: {e}", "details": {}}, \
"data": {"result": None}, "reflection": {"status": "Failed", "confidence": 0.1, "alignment_check": "Aligned",
                               "potential_issues": [str(e)]}}  # reply-audit: default-code
    return {"error": None, "data": {"result": value}, "reflection": {"status": "Success", "confidence": 1.0, \
"alignment_check": "Aligned"}}
''').replace(
        '''    return {"status": "success", "shown": True}
''', '''    return {"error": None, "data": {"status": "success", "shown": True}, "reflection": {"status": "ok", \
"confidence": None, "alignment_check": "concern", "potential_issues": ["reflection added by reply-audit migrate: \
review it"]}}  # reply-audit: default-reflection
''')
    assert expected != original and source == expected
    for other in sorted(IAR_EXAMPLE.rglob("*.py")):
        rel = other.relative_to(IAR_EXAMPLE)
        if rel.name != "actions.py":
            assert (root / rel).read_bytes() == other.read_bytes(), rel
    again = runner.invoke(app, ["migrate", str(root), "--profile", "iar", "--check"])
    assert again.exit_code == 0, again.output
    result = scan(root, load_profile("iar", root))
    left = [(f.rule, f.line) for f in evaluate(result, select=["RA601"]).findings]
    assert left == [("RA601", 29)]


def test_iar_facts_are_the_same_from_a_pool_and_from_the_cache(tmp_path):
    from reply_audit.report.json_report import render_json

    profile = load_profile("iar", IAR_EXAMPLE)
    one = render_json(scan(IAR_EXAMPLE, profile, jobs=1))
    pooled = render_json(scan(IAR_EXAMPLE, profile, jobs=2, cache_dir=tmp_path / "cache"))
    warm = render_json(scan(IAR_EXAMPLE, profile, jobs=1, cache_dir=tmp_path / "cache"))
    assert one == pooled == warm
    assert '"registrations": [' in one and '"shape": {' in one


def _iar_tree(tmp_path, files: dict[str, str]):
    import textwrap

    for rel, text in files.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(textwrap.dedent(text), encoding="utf-8")
    return scan(tmp_path, load_profile("iar", tmp_path))


def test_registrations_never_resolve_to_a_same_named_function_elsewhere(tmp_path):
    result = _iar_tree(tmp_path, {
        "util.py": "def dumps(x):\n    return {}\n\ndef local_action(x):\n    return {}\n",
        "a.py": "class Alpha:\n    def run(self):\n        return {}\n",
        "reg.py": """
            import json

            class Zeta:
                def __init__(self):
                    registry.register_action("zeta", self.run)

                def run(self):
                    return {"error": None, "data": {}, "reflection": {}}

            def setup():
                def local_action(x):
                    return {}
                registry.register_action("local", local_action)

            registry.register_action("dumps", json.dumps)
            registry.register_action("lam", lambda x: {})
            """})
    assert [(r.name, r.handler) for r in result.inventory.registrations] == [
        ("zeta", "reg.py::Zeta.run"), ("local", None), ("dumps", None), ("lam", None)]


def test_registrations_follow_import_aliases_and_local_instances_that_shadow_a_module(tmp_path):
    """`from impl import real as run_it` registers impl.real (never a stub named run_it elsewhere); a local
    `tools = Tools()` shadows `import tools`, so `tools.run` is Tools.run, not the module's run."""
    result = _iar_tree(tmp_path, {
        "impl.py": "def real(x):\n    return {}\n",
        "stubs.py": "def run_it(x):\n    return {}\n",
        "tools.py": "def run(x):\n    return {}\n",
        "kit.py": "class Tools:\n    def run(self, x):\n        return {}\n",
        "reg.py": """
            import tools
            from impl import real as run_it
            from kit import Tools

            registry.register_action("aliased", run_it)

            def setup():
                tools = Tools()
                registry.register_action("shadowed", tools.run)

            registry.register_action("module", tools.run)
            """})
    assert [(r.name, r.handler) for r in result.inventory.registrations] == [
        ("aliased", "impl.py::real"), ("shadowed", "kit.py::Tools.run"), ("module", "tools.py::run")]


def test_spreads_and_values_assigned_on_two_paths_are_unknown_not_missing(tmp_path):
    result = _iar_tree(tmp_path, {"acts.py": """
        BASE = {"error": None, "data": {}}

        def spread(x):
            return {**BASE, "reflection": {"status": "ok", "confidence": 0.5, "alignment_check": "pass",
                                           "potential_issues": []}}

        def branch(x):
            if x:
                out = {"oops": 1}
            else:
                out = {"error": None, "data": {}, "reflection": {}}
            return out

        registry.register_action("spread", spread)
        registry.register_action("branch", branch)
        """})
    ev = evaluate(result, select=["RA601"])
    assert ev.findings == []
    from reply_audit.results import analyse
    from reply_audit.rules.base import RuleContext

    verdicts = {r.handler.name: [c.verdict for c in r.returns]
                for r in analyse(RuleContext(result.inventory, result.profile))}
    assert verdicts == {"spread": ["unknown"], "branch": ["unknown"]}


@pytest.mark.parametrize("table,message", [
    ('[compliance.levels]\nL1 = ["bogus"]\n', "unknown check(s) ['bogus']"),
    ('[compliance]\norder = ["L0", "L9"]\n', "order names 'L9'"),
    ('[compliance]\ntarget = "L7"\n', "target 'L7' is not in order"),
    ('[result]\nrequired-keys = "error"\n', "required-keys must be a list of strings"),
    ('[result.ranges]\n"reflection.confidence" = [1, 0]\n', "two numbers with low <= high"),
    ('[result.helpers.mk]\npositionl = ["a"]\n', "unknown key(s) ['positionl']"),
    ('[migrate.result]\ntemplate = "{bogus}"\n', "is not a valid template"),
    ('[handlers]\nregister-function-position = "one"\n', "must be an integer"),
    ('[builder.methods]\nfail = "ERR"\n[builder.functions]\nfail = "ERR"\n', "also a builder method name"),
])
def test_bad_result_profiles_are_one_line_errors(tmp_path, table, message):
    from reply_audit.errors import UserError

    path = tmp_path / "p.toml"
    path.write_text('extends = "iar"\n' + table, encoding="utf-8")
    with pytest.raises(UserError, match=message.replace("[", r"\[").replace("(", r"\(").replace(")", r"\)")):
        load_profile(str(path))


def test_an_extends_cycle_is_a_user_error(tmp_path):
    from reply_audit.errors import UserError

    (tmp_path / "a.toml").write_text('extends = "b.toml"\n', encoding="utf-8")
    (tmp_path / "b.toml").write_text('extends = "a.toml"\n', encoding="utf-8")
    with pytest.raises(UserError, match="extends itself"):
        load_profile(str(tmp_path / "a.toml"))


def test_result_envelope_refuses_rather_than_drops_an_own_line_comment(tmp_path):
    root = tmp_path / "t"
    root.mkdir()
    (root / "acts.py").write_text(
        'def a(x):\n    return {\n        "result": x,\n        # checked below\n'
        '        "reflection": {"status": "ok"},\n    }\n\n\nregistry.register_action("a", a)\n', encoding="utf-8")
    runner = CliRunner()
    out = runner.invoke(app, ["migrate", str(root), "--profile", "iar", "--apply"])
    assert out.exit_code == 1
    assert "the rewrite would drop the comment 'checked below': move it out of the dict first" in out.output
    assert "# checked below" in (root / "acts.py").read_text(encoding="utf-8")


def test_result_envelope_reads_a_split_string_key_as_the_scan_does(tmp_path):
    root = tmp_path / "t"
    root.mkdir()
    (root / "acts.py").write_text('def a(x):\n    return {"da" "ta": x, "error": None}\n\n\n'
                                  'registry.register_action("a", a)\n', encoding="utf-8")
    out = CliRunner().invoke(app, ["migrate", str(root), "--profile", "iar", "--apply"])
    assert out.exit_code == 0, out.output
    assert (root / "acts.py").read_text(encoding="utf-8").splitlines()[1] == (
        '    return {"error": None, "data": x, "reflection": {"status": "ok", "confidence": None, '
        '"alignment_check": "concern", "potential_issues": ["reflection added by reply-audit migrate: review it"]}}'
        "  # reply-audit: default-reflection")


def _expected_table(name: str, section: str) -> list[list[str]]:
    """Rows of the table under `## SECTION` of a fixture's hand-counted EXPECTED.md (cells without backticks)."""
    text = (CONVENTIONS / name / "EXPECTED.md").read_text(encoding="utf-8")
    body = text.split(f"## {section}\n", 1)[1].split("\n## ", 1)[0]
    rows = [[c.strip().strip("`") for c in line.strip().strip("|").split("|")] for line in body.splitlines()
            if line.startswith("|")]
    return [r for r in rows[2:]]   # past the header and the rule


def test_plain_constants_with_per_method_code_places_and_codes_only_at_code_positions():
    """A plain class of UPPER_SNAKE constants is the registry; `success(message, data)` takes no code and
    `error(code, message, data)` takes one first ([builder.methods] tables); strings spelled like codes anywhere
    else (environment names, template ids) are no codes ([codes] scope, auto: positions for a bare spelling).
    Every rule on: the findings are the hand count's."""
    result, ev = _scan("plain_constants")
    assert [(r.name, r.role, r.names) for r in result.inventory.registries] == [
        ("ErrorCodes", "canonical", ["INVALID_ARGUMENT", "NOT_FOUND", "UPSTREAM_DOWN"])]
    assert [[c.path, str(c.line), c.method, c.code or ""] for c in result.inventory.calls] == [
        [p, line, method, code.split(" ")[0] if not code.startswith("(") else ""]
        for p, line, method, code in _expected_table("plain_constants", "Reply calls")]
    assert [[f.path, str(f.line), f.rule] for f in ev.findings] == [
        row[:3] for row in _expected_table("plain_constants", "Findings")]


def test_a_bare_code_spelling_can_still_be_applied_everywhere():
    root = CONVENTIONS / "plain_constants"
    profile = load_profile(str(root / "profile.toml"), root)
    profile.data["codes"]["scope"] = "everywhere"
    profile.__dict__.pop("code_scope", None)
    everywhere = scan(root, profile)
    # environment names and template ids become registered codes: a typo of one would pass RA301
    assert {"API_TOKEN", "EU_WEST", "WELCOME_MAIL"} <= everywhere.inventory.canonical_codes
    positions = scan(root, load_profile(str(root / "profile.toml"), root))
    assert positions.inventory.canonical_codes == {"NOT_FOUND", "INVALID_ARGUMENT", "UPSTREAM_DOWN"}


def test_handlers_by_name_pattern_and_by_an_if_elif_or_match_dispatch_on_the_tool_name():
    result, ev = _scan("name_dispatch")
    assert [[h.name, str(h.line)] for h in result.inventory.handlers] == [
        row[:2] for row in _expected_table("name_dispatch", "Handlers")]
    assert [[r.name, r.target, r.via] for r in result.inventory.registrations] == \
        _expected_table("name_dispatch", "Registrations")
    assert [[f.path, str(f.line), f.rule] for f in ev.findings] == _expected_table("name_dispatch", "Findings")


def test_helpers_that_set_their_own_code_an_error_kept_in_a_variable_and_a_string_returned():
    result, ev = _scan("error_helpers")
    calls = [[str(c.line), c.method, c.code or "", c.type] for c in result.inventory.calls
             if c.path == "server.py"]
    assert calls == _expected_table("error_helpers", "Reply calls")
    assert [[f.path, str(f.line), f.rule] for f in ev.findings] == _expected_table("error_helpers", "Findings")
    assert ("RA306", "server.py", 21, "handler delete_user returns a string, not a reply") in _found(ev)
    assert ("RA303", "server.py", 28, "terminal validation_error() is not returned") in _found(ev)


def test_a_model_beside_plain_dicts():
    root = CONVENTIONS / "model_replies"
    ev = evaluate(scan(root, load_profile(None, root)))
    assert [[f.path, str(f.line), f.rule] for f in ev.findings] == _expected_table("model_replies", "Findings")


IAR_ALIASES = '''def register_action(name, fn):
    ACTIONS[name] = fn


def make_reflection(status, confidence):
    return {"status": status, "confidence": confidence, "alignment_check": "pass", "potential_issues": [],
            "meta": {"source": "engine"}}


def old_search(query):
    return {"error": None, "data": {"hits": []},
            "iar": {"status": "ok", "confidence": 0.9, "alignment_check": "pass", "potential_issues": [],
                    "meta": {"source": "old"}}}


def new_search(query):
    return {"error": None, "data": {}, "reflection": make_reflection("ok", 0.8)}


register_action("old_search", old_search)
register_action("new_search", new_search)
'''


@pytest.mark.parametrize("profile_text,expected", [
    ("", [("RA601", 11, "action old_search returns a dict without reflection")]),

    ('[tool.reply-audit.result.key-aliases]\niar = "reflection"\n'
     '[tool.reply-audit.result.helpers.make_reflection]\npositional = ["status", "confidence"]\n'
     'fills = { alignment_check = "pass", potential_issues = [], meta = { source = "engine" } }\n', []),
])
def test_iar_key_aliases_and_helper_fills_holding_a_table(tmp_path, profile_text, expected):
    """`iar`, an older name of `reflection`, is read as it when [result.key-aliases] says so; a result helper's
    `fills` may hold a table (`meta = { source = "engine" }`), whose keys count as set."""
    from support import write_tree

    write_tree(tmp_path, {"actions.py": IAR_ALIASES, "pyproject.toml": '[tool.reply-audit]\nprofile = "iar"\n'
                          '[tool.reply-audit.result]\nrequired-nested = ["reflection.status", "reflection.confidence", '
                          '"reflection.alignment_check", "reflection.potential_issues", "reflection.meta.source"]\n'
                          + profile_text})
    result = scan(tmp_path, load_profile(None, tmp_path))
    found = [(f.rule, f.line, f.message) for f in evaluate(result).findings if f.rule.startswith("RA60")]
    assert found == expected
    shapes = {h.name: r.shape for h in result.inventory.handlers for r in h.returns}
    if profile_text:   # the alias renames the key; the table a helper fills is read key by key
        assert shapes["old_search"]["reflection.meta.source"] == ["str", "old"]
        assert shapes["new_search"]["reflection.meta.source"] == ["str", "engine"]


def test_registrations_follow_package_re_exports_and_module_aliases(tmp_path):
    """`from app.tools import search_tool` where app/tools/__init__.py re-exports `search as search_tool`, a star
    re-export, a submodule imported from the package, and the package under an alias all name the function."""
    from support import write_tree

    write_tree(tmp_path, {
        "app/__init__.py": "",
        "app/tools/__init__.py": "from .search import search as search_tool\nfrom .files import *\nfrom . import fetch\n",
        "app/tools/search.py": 'def search(query):\n    return {"error": None}\n',
        "app/tools/files.py": '__all__ = ["save_file"]\n\n\ndef save_file(path):\n    return {"error": None}\n',
        "app/tools/fetch.py": 'def fetch_url(url):\n    return {"error": None}\n',
        "app/engine.py": "from app.tools import search_tool, save_file, fetch\nfrom app import tools as t\n\n\n"
                         "def register_action(name, fn):\n    pass\n\n\n"
                         'register_action("search", search_tool)\nregister_action("save", save_file)\n'
                         'register_action("fetch", fetch.fetch_url)\nregister_action("search2", t.search_tool)\n'
                         'register_action("gone", t.missing)\n'})
    result = scan(tmp_path, load_profile("iar", tmp_path))
    assert [(r.name, r.handler) for r in result.inventory.registrations] == [
        ("search", "app/tools/search.py::search"), ("save", "app/tools/files.py::save_file"),
        ("fetch", "app/tools/fetch.py::fetch_url"), ("search2", "app/tools/search.py::search"), ("gone", None)]
    assert [(f.rule, f.line) for f in evaluate(result, select=["RA609"]).findings] == [("RA609", 13)]


def test_class_and_function_names_may_be_globs(tmp_path):
    """`"*Response" = {…}` in [builder.functions] covers every envelope class so named; `[result] builders =
    ["make_*_result"]` every result builder so named."""
    from support import write_tree

    write_tree(tmp_path / "a", {
        "server.py": "@mcp.tool()\ndef run(q: str):\n    if not q:\n"
                     '        return ToolResponse(success=False, error="q is required")\n'
                     '    return SearchResponse(success=True, data={"q": q})\n',
        "pyproject.toml": '[tool.reply-audit.builder.functions]\n"*Response" = { type-keyword = "success", '
                          'type-values = { true = "S", false = "E" }, code-keyword = "error_code", code-position = -1 }\n'
                          '[tool.reply-audit.builder]\ncode-required = ["E"]\n'
                          '[tool.reply-audit.handlers]\nsafety-decorator = ""\n'})
    result = scan(tmp_path / "a", load_profile(None, tmp_path / "a"))
    assert [(c.method, c.line, c.type) for c in result.inventory.calls] == [
        ("ToolResponse", 4, "E"), ("SearchResponse", 5, "S")]
    assert [(f.rule, f.line) for f in evaluate(result).findings] == [("RA501", 0), ("RA311", 4)]
    write_tree(tmp_path / "b", {
        "actions.py": "def search(q):\n    return make_search_result(q)\n\n\n"
                      "def fetch(u):\n    return make_fetch_result(u)\n\n\n"
                      'register_action("search", search)\nregister_action("fetch", fetch)\n',
        "pyproject.toml": '[tool.reply-audit]\nprofile = "iar"\n[tool.reply-audit.result]\nbuilders = ["make_*_result"]\n'})
    from reply_audit.profile import load_profile as load
    from reply_audit.records import Return
    from reply_audit.results import ResultJudge

    judge = ResultJudge(load(None, tmp_path / "b"))
    records = [Return(line=1, col=4, end_line=1, end_col=20, kind="other", keys=[], in_except=False, except_kind=None,
                      literal=False, value_span=None, key_values={}, code=None, shape={}, callee=name, texts={},
                      except_types=[], spread=False, guards=[], cites_params=False, try_reads="", guard_reads="",
                      literal_type="", names_params=False, try_fixed_keys=False)
               for name in ("make_search_result", "build_result")]
    assert [judge.check_return(r).verdict for r in records] == ["helper", "unknown"]


def test_a_pattern_that_matches_no_member_of_a_code_list_is_one_finding_and_legacy_maps_onto_layerless_codes(
        tmp_path):
    from support import write_tree

    write_tree(tmp_path, {
        "codes.py": "from enum import Enum\n\n\nclass ErrorCode(str, Enum):\n    NOT_FOUND = \"not-found\"\n"
                    "    BAD_INPUT = \"bad-input\"\n    GONE = \"gone\"\n",
        "legacy.py": 'LEGACY_TO_CANONICAL = {"OLD_NOT_FOUND": "NOT_FOUND", "OLD_BAD": "BAD_INPUT"}\n',
        "pyproject.toml": "[tool.reply-audit.codes]\npattern = '^[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)*$'\n"
                          'enums = ["ErrorCode"]\n[tool.reply-audit.mappings]\ntable-names = ["LEGACY_TO_CANONICAL"]\n'})
    result = scan(tmp_path, load_profile(None, tmp_path))
    found = [(f.rule, f.path, f.line, f.message) for f in evaluate(result).findings if f.rule.startswith("RA1")]
    assert found[0] == ("RA101", "codes.py", 4, "ErrorCode: none of its 3 members is LAYER-AREA-TYPE-NNN ([codes] "
                                                "pattern): set the pattern to their spelling")
    assert [f for f in found if f[0] == "RA111"] == []   # a layerless code breaks no layer rule


def test_an_iar_repository_with_dated_backups_and_an_older_key_name():
    root = CONVENTIONS / "iar_backups"
    ev = evaluate(scan(root, load_profile(None, root)))
    assert [[f.path, str(f.line), f.rule] for f in ev.findings] == _expected_table("iar_backups", "Findings")
    builtin = evaluate(scan(root, load_profile("iar", None)))
    assert sorted((f.rule, f.path, f.line) for f in builtin.findings) == sorted(
        ("RA601", f"{folder}/actions.py", line) for folder in ("arche", "arche_backup_20240101",
                                                                "arche_backup_20240301") for line in (12, 21))
    proposal = CliRunner().invoke(app, ["init", str(root)])
    assert proposal.exit_code == 0
    assert '"arche_backup_*"]\n# arche_backup_*: a backup or retired copy (by its name), e.g. ' \
           'arche_backup_20240101/\n' in proposal.stdout


def test_a_re_exported_name_bound_twice_is_the_last_binding_and_star_import_cycles_end(tmp_path):
    from support import write_tree

    write_tree(tmp_path, {
        "app/__init__.py": "",
        "app/tools/__init__.py": "from .a import *\nfrom .b import *\n",
        "app/tools/a.py": "from app.tools import *\n\n\ndef run(x):\n    return {\"error\": None}\n",
        "app/tools/b.py": "from app.tools import *\n\n\ndef run(x):\n    return {\"error\": None}\n",
        "app/main.py": "from app.tools import run, nothing\n\n\n"
                       'register_action("run", run)\nregister_action("nothing", nothing)\n'})
    result = scan(tmp_path, load_profile("iar", tmp_path))
    assert [(r.name, r.handler) for r in result.inventory.registrations] == [
        ("run", "app/tools/b.py::run"), ("nothing", None)]
