"""Parsing (errors, fallback) and profiles (built-in, layering, validation)."""

from __future__ import annotations

import sys

import pytest

from reply_audit.errors import UserError
from reply_audit.file_facts import facts_for_source
from reply_audit.parsing import parse_source
from reply_audit.profile import load_profile, merge
from support import scan_tree, write_tree


# ------------------------------------------------------------------------ parsing
def test_syntax_error_is_a_problem_with_line():
    parsed = parse_source(b"x = 1\ndef broken(:\n    pass\n")
    assert parsed.tree is None and parsed.parser == "none"
    assert (parsed.problem.line, parsed.problem.message) == (2, "invalid syntax")


def test_nul_bytes_and_bad_encoding_are_problems():
    assert parse_source(b"x = 1\x00\n").problem.message == "file contains NUL bytes"
    bad = parse_source(b"# -*- coding: utf-8 -*-\nx = '\xff\xfe'\n")
    assert bad.tree is None and "decode" in bad.problem.message


def test_libcst_fallback_keeps_the_statements_this_python_understands(profile):
    # An invalid \U escape: CPython rejects the module, libcst parses it. The two
    # good statements still give facts; the bad one is listed with its line.
    source = (
        b'NOT_FOUND = "WA-RES-I-001"\n'
        b'\n'
        b'BAD = "C:\\Users\\x"\n'
        b'CRASH = "MCP-SYS-E-001"\n'
    )
    facts = facts_for_source(source, "m.py", profile)
    assert facts.parser == "fallback"
    assert [(s.line, s.message.split(":")[0]) for s in facts.skipped] == [
        (3, "line 3 (a statement) not read, this Python rejects line 3")]
    assert [(c.code, c.line) for r in facts.registries for c in r.codes] == [
        ("WA-RES-I-001", 1), ("MCP-SYS-E-001", 4)]


# Files this Python rejects where libcst's parser splits them too: the tokenizer's split must be the same
SPLIT_BY_BOTH = {
    "bom": b'\xef\xbb\xbfA = "WA-RES-I-001"\nB = "C:\\Users\\x"\nC = 1\n',
    "crlf class": b'A = 1\r\nclass K:\r\n    x = "C:\\Users"\r\n    def f(self):\r\n        return 1\r\n',
    "coding": b'# -*- coding: latin-1 -*-\nA = "\xe9"\nB = "\\N{nope}"\n',
    "decorators": b'import x\n@x.y\n@x.z(1)\nclass K:\n    @property\n    def a(self):\n        return "\\Ux"\n'
                  b'    b = 2\n',
    "clauses": b'try:\n    a = "\\U1"\nexcept E:\n    pass\nelse:\n    b = 1\nfinally:\n    c = 2\nd = 3\n',
    "async": b'async def f():\n    return "\\x1"\nasync def g():\n    return 1\n',
    "one-line class": b'class K: x = "\\U"\ny = 1\n',
    "no last newline": b'a = 1\nb = "\\U"',
    "comments": b'class K:\n    def f(self):\n        return "\\U"\n        # trailing\n    # between\n'
                b'    def g(self):\n        return 1\n',
    "multi-line": b'X = {\n    "a": "C:\\Users",\n}\nclass K:\n    """Doc: C:\\Users."""\n    y = (1,\n         2)\n',
    "a form feed": b'class A:\n    a = 1\n\x0c    def m(self):\n        x = "\\N"\nz = 1\n',
    "CR CR LF endings": b'import os\r\r\nx = 1\r\r\ny = "\\N"\r\r\ndef f(): return 1\r\r\nz = 2\r\r\n',
    # syntax newer than 3.11's grammar, tokenized alike by every Python since 3.0
    "a type alias": b'import x\ntype Ids = list[int]\nclass K:\n    type T = int\n    def f(self):\n        return 1\n',
    "type parameters": b'def first[T](xs: list[T]) -> T:\n    return xs[0]\nclass Box[T]:\n    pass\nY = 2\n',
}


@pytest.mark.skipif(sys.version_info >= (3, 12), reason="3.12 reads the type statements")
@pytest.mark.parametrize("source", SPLIT_BY_BOTH.values(), ids=list(SPLIT_BY_BOTH))
def test_the_tokenizer_splits_a_file_exactly_as_libcst_does(source):
    """Python's tokenizer splits a file the way libcst's parser does wherever libcst reads it (and libcst costs
    a third of a second to import): the statements kept and lost, and every line reported."""
    import ast

    from reply_audit import parsing

    try:
        ast.parse(source)
        raise AssertionError("the case must be one this Python rejects")
    except SyntaxError as exc:
        problem = parsing._problem(exc)
    text = parsing._decoded(source)
    split = parsing._token_split(text)
    assert not split.newer
    by_tokens = parsing._recover(text, split.units, "m.py", problem)
    libcst_text, libcst_units = parsing._libcst_units(source)
    by_libcst = parsing._recover(libcst_text, libcst_units, "m.py", problem)
    assert by_tokens.parser == "fallback" and by_tokens.skipped
    assert (by_tokens.skipped, ast.dump(by_tokens.tree)) == (by_libcst.skipped, ast.dump(by_libcst.tree))


# Where the tokenizer cannot be trusted to split as Python reads: lone CRs (Python ends a line there, the
# tokenizer's reader does not), and f-strings an older tokenizer ends early (3.12 nests quotes in them)
FOR_LIBCST = {
    "CR endings": b'@d("\\N")\rdef f():\r    return 1\rz = 2\r',
    "a lone CR after a comment": b'# h\ra = 1\nb = f(\n"\\N")\nc = 3\n',
    "a CR in a string": b"s = '''a\rb'''\nx = \"\\N\"\nz = 1\n",
    "nested quotes": b'a = 1\nb = f"{d["k"]}"\nc = 3\n',
    "a multi-line f-string": b'a = 1\nb = f"{\n  a}"\nc = 3\n',
    "a template string": b'a = 1\nb = t"{d["("]}"\nc = 3\n',
}


@pytest.mark.skipif(sys.version_info >= (3, 12), reason="3.12 reads these f-strings")
@pytest.mark.parametrize("source", [*SPLIT_BY_BOTH.values(), *FOR_LIBCST.values()],
                         ids=[*SPLIT_BY_BOTH, *FOR_LIBCST])
def test_a_file_libcst_reads_is_read_as_the_libcst_split_reads_it(source, monkeypatch):
    """Whichever split reads a file libcst's parser accepts, the result is the one libcst's split gives: the
    tree, the parser and each loss, at its line."""
    import ast

    from reply_audit import parsing

    def shown(parsed):
        return (parsed.parser, parsed.skipped, parsed.problem, ast.dump(parsed.tree) if parsed.tree else None)

    chosen = shown(parsing.parse_source(source, "m.py"))
    monkeypatch.setattr(parsing, "_token_split", lambda text: parsing._Split(units=None, newer=True))
    assert chosen == shown(parsing.parse_source(source, "m.py"))
    assert chosen[0] == "fallback"


@pytest.mark.parametrize("source,newer", [
    (b'x = f"{d["k"]}"\n', True),          # 3.12 nests the quote; 3.11 ends the string at it
    (b"x = f'{a['b']}'\n", True),
    (b'x = t"{d["k"]}"\n', True),          # a prefix 3.11 does not know is a name before a string
    (b'x = f"{\n  a}"\n', True),           # a quote that opens no string: 3.12 lets the braces span lines
    (b'x = f"{\'}\' + d["("]}"\n', True),  # a brace in a string inside the braces does not count
    (b"x = f\"{d['}']}\"\n", False),
    (b'x = f"{a:{b}}" + "{" + f"{{"\n', False),   # paired braces, a plain string, a doubled brace
    (b'x = $a\n', False),                  # a character no Python has a token for
    (b'x = `a`\n', False),
])
def test_a_token_that_may_be_newer_syntax_is_left_to_libcst(source, newer):
    from reply_audit import parsing

    if sys.version_info >= (3, 12) and b"f" in source:
        pytest.skip("3.12's tokenizer reads these f-strings")
    assert parsing._token_split(source.decode()).newer is newer


# A real syntax error, which no grammar reads (libcst's parser refuses these files whole): Python's tokenizer
# splits the file, the statements Python accepts are read and each one lost is listed with its lines
REAL_ERRORS = {
    "Python 2 after a literal error": (b'a = "\\N"\nprint "hi"\nb = 1\n', "fallback", [
        (1, "line 1 (a statement) not read, this Python rejects line 1: (unicode error) 'unicodeescape' codec "
            "can't decode bytes in position 0-1: malformed \\N character escape"),
        (2, "line 2 (a statement) not read, this Python rejects line 2: Missing parentheses in call to 'print'. "
            "Did you mean print(...)?")]),
    "an operator without an operand": (b'import os\n\ndef area(w, h):\n    return w * * h\n\n'
                                       b'def name():\n    return "WA-RES-I-001"\n', "fallback", [
        (4, "lines 3-4 (function area) not read, this Python rejects line 4: invalid syntax")]),
    "a method with an error": (b'class K:\n    def a(self):\n        return 1 +\n    def b(self):\n'
                               b'        return 2\n', "fallback", [
        (3, "lines 2-3 (K.a) not read, this Python rejects line 3: invalid syntax")]),
    # a line dedented by mistake ends the def above it early: the def is lost whole, not kept cut short
    "a line dedented by mistake": (b'@mcp_safe_tool\ndef lookup(rb, name):\n    reply = rb.error("WA-RES-E-001")\n'
                                   b'print(reply)\n    return reply\n\ndef other():\n    return 1\n', "fallback", [
        (5, "lines 1-5 (function lookup) not read, this Python rejects line 5: unexpected indent")]),
    "a method cut short": (b'class K:\n    def a(self):\n        x = 1\n    print(x)\n        return x\n'
                           b'    def b(self):\n        return 2\n', "fallback", [
        (5, "lines 2-5 (K.a) not read, this Python rejects line 5: unexpected indent")]),
    # decorators over no def: the def after the line that broke them is lost with them, not kept undecorated
    "decorators of no def": (b'import x\n\n@mcp_safe_tool\nmcp.tool()\ndef lookup(rb, name):\n'
                             b'    return rb.error("WA-RES-E-001")\n\ndef other():\n    return 1\n', "fallback", [
        (4, "lines 3-6 (a statement) not read, this Python rejects line 4: invalid syntax")]),
    "prose saved as .py": (b"# Title\n\nSome *markdown* saved as .py\n", "none", []),   # nothing kept
    "an unclosed bracket": (b"x = 1\ny = (1,\nz = 2\n", "none", []),   # no tokenizer reads past it
    "a stray backslash": (b'x = r( a\\n b\nz = 2\n', "none", []),
    # a bracket closed that was never opened, then one opened that never closes: the tokenizer's count of
    # brackets balances, but where its statements end is a guess (a call's arguments became statements)
    "brackets closed before they open": (b'x = foo(1))\nregister(\nreply.error("WA-RES-E-001"),\n)\ny = (bar(2\n',
                                         "none", []),
}


@pytest.mark.parametrize("source,parser,skipped", REAL_ERRORS.values(), ids=list(REAL_ERRORS))
def test_a_real_syntax_error_loses_only_its_statements_without_libcst(source, parser, skipped, tmp_path):
    import subprocess

    (tmp_path / "m.py").write_bytes(source)
    code = ("import sys; from reply_audit.parsing import parse_source; "
            f"p = parse_source(open({str(tmp_path / 'm.py')!r}, 'rb').read()); "
            "print(repr((p.parser, [(s.line, s.message) for s in p.skipped], 'libcst' in sys.modules)))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == repr((parser, skipped, False))


def test_one_unparseable_file_never_stops_a_scan(tmp_path):
    result = scan_tree(tmp_path, {
        "good.py": 'A = {"WA-RES-I-001": 1, "WA-RES-S-001": 2}\n',
        "bad.py": "def f(:\n",
        "notes.py": "# Title\n\nSome *markdown* saved as .py\n",
    })
    inv = result.inventory
    assert inv.files_scanned == 3
    assert [(u.path, u.line) for u in inv.unparseable] == [("bad.py", 1), ("notes.py", 3)]
    assert [r.name for r in inv.registries] == ["A"]


# ----------------------------------------------------------------------- profiles
def test_builtin_canonical_encodes_spec_000(profile):
    assert set(profile.layers) == {"WA", "EN", "CT", "MCP"}
    assert profile.layers["EN"].forbidden == {"I"} and profile.layers["WA"].forbidden == {"D"}
    assert "GATE" in profile.areas and "OPEN" not in profile.areas and "CLOSE" not in profile.areas
    assert profile.builder_methods == {"success": "S", "invalid": "I", "denied": "D", "error": "E"}
    assert profile.forbidden_methods == {"info": "success", "warn": "success", "fail": "error"}
    assert profile.obeys_layer_rules("MCP-SYS-S-001")          # 000 wins over 001: MCP may emit S
    assert not profile.obeys_layer_rules("WA-RES-D-001")
    assert not profile.obeys_layer_rules("EN-WRITE-I-001")
    assert not profile.obeys_layer_rules("DB-CONN-S-001")


def test_merge_replaces_scalars_merges_tables_and_extends_lists():
    base = {"a": {"x": 1, "l": [1, 2]}, "b": [1]}
    assert merge(base, {"a": {"x": 2, "extend-l": [2, 3]}, "b": [9]}) == {"a": {"x": 2, "l": [1, 2, 3]}, "b": [9]}
    assert base == {"a": {"x": 1, "l": [1, 2]}, "b": [1]}


def test_pyproject_table_layers_on_the_profile(tmp_path):
    write_tree(tmp_path, {"pyproject.toml": '''
        [tool.reply-audit.handlers]
        extend-decorators = ["server.tool"]

        [tool.reply-audit.layers.DB]
        allowed = ["S", "E"]
        forbidden = ["I", "D"]
    '''})
    p = load_profile(None, tmp_path)
    assert p.handler_decorators == ("mcp_safe_tool", "mcp.tool", "server.tool")
    assert p.obeys_layer_rules("DB-CONN-S-001")
    assert len(p.sources) == 2


def test_profile_file_extends_a_builtin(tmp_path):
    path = tmp_path / "mine.toml"
    path.write_text('extends = "canonical"\n[builder]\nreceiver-names = ["replies"]\n')
    p = load_profile(str(path))
    assert p.builder_list("receiver_names") == ["replies"]
    assert set(p.layers) == {"WA", "EN", "CT", "MCP"}


@pytest.mark.parametrize("text,message", [
    ("[builder]\nreciever_names = []\n", "unknown key 'builder.reciever-names'"),
    ('[codes]\npattern = "("\n', "not a valid regular expression"),
    ('[codes]\npattern = "^(?P<layer>A)(?P<family>B)$"\n', "unknown named group"),
    ('[builder.functions]\nok = "X"\n', "is not a type letter"),
    ('[builder.functions]\nok = { type = "S", colour = 1 }\n', "unknown key"),
    ('[builder.functions]\nok = { code-keyword = "c" }\n', "needs `type`"),
    ('[handlers]\nregister-calls = "register"\n', "must be a list of strings"),
    ("[layers.WA]\nallowed = ['Q']\n", "unknown type letter"),
    ("[builder]\nmethods = { ok = 'X' }\n", "is not a type letter"),
    ("[builder.methods]\nok = { type = 'X' }\n", "is not a type letter"),
    ("[builder.methods]\nok = { code-position = 1 }\n", "a table takes type \\(required\\)"),
    ("[builder.methods]\nok = { type = 'S', colour = 1 }\n", "not colour"),
    ("[builder.methods]\nok = { type = 'S', code-position = 'first' }\n", "code-position an integer"),
    ("[codes]\nscope = 'somewhere'\n", "scope must be"),
    ("[builder.functions]\nok = { type = 'E', code = 3 }\n", "code must be a string"),
    ("[result.key-aliases]\n'a.iar' = 'reflection'\n", "must name another key of the same parent"),
    ("[rules]\nselect = 'RA3'\n", r"\[rules\] select must be a list"),
    ("[scan]\nexclude = 'build'\n", r'\[scan\] exclude must be a list, e.g. exclude = \["build"\]'),
    ("[scan]\nextend-exclude = 'gen'\n", r'\[scan\] extend-exclude must be a list, e.g. extend-exclude = \["gen"\]'),
    ("[mappings]\nfiles = 'm.toml'\n", r'\[mappings\] files must be a list'),
    ("scan = 3\n", r"scan must be a table \(\[scan\]\), not a single value"),
    ("[builder\n", "not valid TOML"),
])
def test_bad_profiles_are_user_errors(tmp_path, text, message):
    path = tmp_path / "p.toml"
    path.write_text(text)
    with pytest.raises(UserError, match=message):
        load_profile(str(path))


def test_unknown_profile_name():
    with pytest.raises(UserError, match="unknown profile 'nope'"):
        load_profile("nope")


NEWER_FSTRING_IN_A_CLASS = b'''from replies import ReplyBuilder


class Actions:
    def __init__(self, rb: ReplyBuilder):
        self.rb = rb

    @staticmethod
    def shout(x):
        y = 1
        return f"{x + "!"}"

    def read(self):
        return self.rb.success("WA-READ-S-001", {})

    def write(self):
        return self.rb.error("WA-WRITE-E-001", {})
'''


def test_a_newer_fstring_inside_a_class_loses_only_its_method(profile):
    """Python 3.12 reads `f"{x + "!"}"`; an older Python loses `shout` alone (decorator to last line), and
    says which lines and the line it rejects; the class's other methods still give their facts, on their
    own lines."""
    facts = facts_for_source(NEWER_FSTRING_IN_A_CLASS, "actions.py", profile)
    assert [(c.method, c.code, c.line, c.function) for c in facts.calls] == [
        ("success", "WA-READ-S-001", 14, "Actions.read"), ("error", "WA-WRITE-E-001", 17, "Actions.write")]
    if sys.version_info < (3, 12):
        assert facts.parser == "fallback"
        assert [(s.line, s.col, s.message) for s in facts.skipped] == [
            (11, 23, "lines 8-11 (Actions.shout) not read, this Python rejects line 11: f-string: expecting '}'")]
    else:
        assert facts.parser == "ast" and facts.skipped == []


NEWER_MULTILINE_FSTRING_IN_A_CLASS = b'''class Engine:
    def __init__(self, rb):
        self.rb = rb

    def compare(self, a, b):
        if a > b:
            log(
        f"mismatch {
            type(a)}.")
        return True

    def run(self):
        return self.rb.success("WA-READ-S-001", {})
'''


def test_a_lost_method_names_the_file_line_the_error_was_detected_at(profile):
    """A 3.12 f-string whose expression spans lines: an older Python's "(detected at line N)" counts from the
    method alone; the report gives the file's line."""
    facts = facts_for_source(NEWER_MULTILINE_FSTRING_IN_A_CLASS, "engine.py", profile)
    assert [(c.method, c.line, c.function) for c in facts.calls] == [("success", 13, "Engine.run")]
    if sys.version_info < (3, 12):
        assert [s.message for s in facts.skipped] == [
            "lines 5-10 (Engine.compare) not read, this Python rejects line 8: unterminated string literal "
            "(detected at line 8)"]
    else:
        assert facts.skipped == []


def test_settings_are_kebab_case_and_the_old_snake_case_still_works_with_a_warning(tmp_path):
    from reply_audit.cli import app
    from support import CliRunner

    (tmp_path / "a.py").write_text("X = 1\n")
    config = tmp_path / "pyproject.toml"
    config.write_text('[tool.reply-audit.rules]\nfail-on = "none"\n[tool.reply-audit.handlers]\n'
                      'extend-register-calls = ["add_tool"]\n')
    kebab = load_profile(None, tmp_path)
    assert (kebab.section("rules")["fail_on"], kebab.warnings) == ("none", ())
    assert kebab.builder_list("fail_on") == [] and "add_tool" in kebab.section("handlers")["register_calls"]
    config.write_text('[tool.reply-audit.rules]\nfail_on = "none"\n[tool.reply-audit.handlers]\n'
                      'extend-register_calls = ["add_tool"]\n')
    snake = load_profile(None, tmp_path)
    assert snake.data == kebab.data
    assert snake.warnings == (
        f"{config}: [rules] `fail_on` is the old spelling of `fail-on` (it still works; the snake_case spellings "
        "will go in a later release)",
        f"{config}: [handlers] `extend-register_calls` is the old spelling of `extend-register-calls` (it still "
        "works; the snake_case spellings will go in a later release)")
    result = CliRunner().invoke(app, ["scan", str(tmp_path), "-q"])
    assert result.exit_code == 0 and result.stderr.splitlines()[0] == f"reply-audit: warning: {snake.warnings[0]}"
    shown = CliRunner().invoke(app, ["profile", "show", "--path", str(tmp_path)]).stdout
    assert 'fail-on = "none"  # from' in shown and "fail_on" not in shown   # printed the documented way
    config.write_text('[tool.reply-audit.rules]\nfail_on = "none"\nfail-on = "high"\n')
    with pytest.raises(UserError, match="`fail-on` is given twice, in kebab-case and in snake_case: keep one"):
        load_profile(None, tmp_path)


def test_a_nesting_limit_skips_the_fallback(monkeypatch):
    """A nesting limit is the same in every Python, so the fallback (for code written for a newer Python) is not
    tried: it recovers nothing there, and libcst spends about 1 GB on 1,000 nested brackets."""
    from reply_audit import parsing

    def no_fallback(*args):
        raise AssertionError("the fallback was tried")

    monkeypatch.setattr(parsing, "_fallback", no_fallback)
    nested = parsing.parse_source(b"x = " + b"[" * 1000 + b"]" * 1000 + b"\n", "deep.py")
    assert (nested.parser, nested.problem.line, nested.problem.message) == ("none", 1, "too many nested parentheses")
    indented = b"".join(b"    " * i + b"if x:\n" for i in range(120)) + b"    " * 120 + b"pass\n"
    assert parsing.parse_source(indented, "blocks.py").problem.message == "too many levels of indentation"


def test_a_profile_that_leaves_a_setting_out_gets_the_canonical_value_and_an_unknown_one_is_a_bug():
    """Defaults live in canonical.toml alone: [migrate] and its dotted sub-tables fall back to it, a key the
    profile sets wins, and a key no profile defines raises instead of being silently empty."""
    from reply_audit.profile import Profile
    own = Profile(name="hand-made", data={"migrate": {"builder_name": "builder", "dict_returns": {"error_flags": []}},
                                          "builder": {}})
    assert own.migrate_value("builder_name") == "builder"
    assert own.migrate_value("dict_returns.error_flags") == []
    assert own.migrate_value("dict_returns.success_flags") == ["success", "ok"]
    assert own.migrate_value("codes.threshold") == 2.0
    assert own.setting("builder", "code_keyword") == "code"
    with pytest.raises(KeyError, match=r"\[migrate\] dict_returns.no_such_key"):
        own.migrate_value("dict_returns.no_such_key")
    # the iar profile keeps its own empty vocabulary instead of inheriting the canonical dict conventions
    iar = load_profile("iar")
    assert iar.migrate_value("dict_returns.error_flags") == []
    assert iar.migrate_value("codes.area_words") == {}
    assert iar.migrate_value("dict_returns.message_keys") == ["message", "reason"]
