"""The decisions `migrate` makes (reply type by meaning, code from the registry), checked against a hand count
on a fixture with its own registry, and the decisions file a human reviews them in."""

from __future__ import annotations

import json
import shutil
import tomllib
from dataclasses import replace
from pathlib import Path

import pytest

from reply_audit.cli import app
from reply_audit.records import Return
from support import CliRunner

FIXTURE = Path(__file__).parent / "fixtures" / "decisions"
RUNNER = CliRunner()
MARKER = "  # reply-audit: default-code"


def cli(*args):
    return RUNNER.invoke(app, [str(a) for a in args])


@pytest.fixture
def lending(tmp_path) -> Path:
    root = tmp_path / "lending-tree"
    shutil.copytree(FIXTURE, root)
    return root


def _decisions(root: Path, *extra) -> list[dict]:
    done = cli("migrate", root, "--mapping", root / "member_admin.mapping.toml", "-f", "json", *extra)
    assert done.exit_code == 0, done.output
    return json.loads(done.stdout)["decisions"]


def _returns(root: Path) -> list[str]:
    return [line.strip() for line in (root / "lending" / "server.py").read_text().splitlines()
            if line.strip().startswith("return ")]


# ------------------------------------------------------------------------------------- the hand count
def test_every_type_agrees_with_the_hand_count_and_no_code_written_unmarked_is_wrong(lending):
    """expected.toml was written from the code and the registry alone: every reply type agrees with it, every
    code written without the marker is the hand count's code, and exactly four are left marked for a human:
    two areas named (lend_book: LOAN or BOOK), an empty state whose type waits for review, a refusal with
    no Denied code of its area, and a Success no registered code describes."""
    hand = tomllib.loads((FIXTURE / "expected.toml").read_text())["site"]
    found = _decisions(lending)
    assert [(d["function"], d["message"]) for d in found] == [(h["function"], h["message"]) for h in hand]
    assert [d["type"] for d in found] == [h.get("written", h["type"]) for h in hand]
    assert [(d["function"], d["code"]) for d in found if not d["marked"]] == \
        [(h["function"], h["code"]) for h, d in zip(hand, found) if not d["marked"]]
    assert [(d["function"], d["line"]) for d in found if d["marked"]] == \
        [("lend_book", 31), ("list_loans", 53), ("member_admin", 94), ("desk_request", 123)]
    assert sum(not d["marked"] for d in found) == 23


def test_each_decision_lists_the_signals_that_decided_it(lending):
    by_line = {d["line"]: d for d in _decisions(lending)}
    assert by_line[27]["type_evidence"] == ["'success' is False", "'error' holds an error",
                                            "'allowed' is False (denied_flags)"]
    assert by_line[27]["code_evidence"] == ["score 3.00, 3.00 ahead of the next", "the name says 'lend': area LOAN",
                                            "the message says 'borrow': area LOAN", "the only D code of area LOAN",
                                            "the only area named with D codes"]
    # the name (desk_request) names no area: the message does (`catalogue` is one of BOOK's area_words)
    assert by_line[120]["code_evidence"] == ["score 2.12, 1.12 ahead of the next",
                                             "the message says 'catalogue': area BOOK", "message words title (0.56)"]
    # too little on its own (1.72): the code evidence chose for the handler's other return decides it
    assert by_line[122]["code_evidence"] == ["score 2.22, 1.22 ahead of the next", "the message says 'book': area BOOK",
                                             "message words book (0.36)",
                                             "chosen by evidence for another return of this handler"]
    assert (by_line[74]["type"], by_line[74]["type_confidence"], by_line[74]["type_evidence"][-1]) == \
        ("I", "high", "caught as ValueError (input_exceptions) from a block that reads a parameter")
    assert (by_line[53]["type_confidence"], by_line[53]["type_alternative"], by_line[53]["code_evidence"][0]) == \
        ("low", "S", "the reply type is uncertain (alternative S): the code waits for the review; the ranking "
                     "chose WA-LOAN-I-001")
    assert "the legacy code 'LIB_LOAN_STORE_DOWN' spells its message key LOAN_STORE_DOWN" in \
        by_line[63]["code_evidence"]
    assert by_line[61]["code_evidence"] == ["its legacy code 'LIB-OLD-I-007' maps to it"]
    assert "already used in this module" in by_line[79]["code_evidence"]
    # a legacy code that spells a registered message key names the type when the words do not
    assert (by_line[109]["type"], by_line[109]["type_confidence"], by_line[109]["type_evidence"]) == (
        "E", "medium", ["'success' is False", "'error' holds an error", "a failure outside an except",
                        "its legacy code 'LIB_CATALOGUE_OFFLINE' spells the message key CATALOGUE_OFFLINE of "
                        "WA-BOOK-E-001, type E: not I"])
    # a mapping table is a human's decision: it names the type even over the parameter guard
    assert (by_line[111]["type"], by_line[111]["type_confidence"], by_line[111]["type_evidence"][-1]) == (
        "E", "high", "its legacy code 'LIB-OLD-E-003' maps to WA-LOAN-E-001 (a mapping table or file), type E: "
                     "not I")
    assert by_line[111]["code_evidence"] == ["its legacy code 'LIB-OLD-E-003' maps to it"]
    assert len(by_line[96]["code_evidence"]) == 1
    assert by_line[96]["code_evidence"][0].endswith("member_admin.mapping.toml [[tools.member_admin.sites]]")


def test_the_scan_never_contradicts_a_type_migrate_chose_with_evidence(lending):
    """After the migration, RA305 (an empty state answered Invalid) speaks only where migrate itself said the
    type was uncertain, with Success as the alternative."""
    found = _decisions(lending)
    assert cli("migrate", lending, "--mapping", lending / "member_admin.mapping.toml", "--apply").exit_code == 0
    doc = json.loads(cli("scan", lending, "-f", "json", "--fail-on", "none").stdout)
    flagged = [(f["path"], f["line"]) for f in doc["findings"] if f["rule"] == "RA305"]
    uncertain = [d for d in found if d["type_confidence"] == "low"]
    assert [d["function"] for d in uncertain] == ["list_loans"]
    assert len(flagged) == 1 and flagged[0][0] == "lending/server.py"
    line = (lending / "lending" / "server.py").read_text().splitlines()[flagged[0][1] - 1]
    assert "No loans found" in line


# --------------------------------------------------------------------------------- the decisions file
def test_a_missing_decisions_file_is_written_and_nothing_is_applied(lending):
    before = (lending / "lending" / "server.py").read_text()
    target = lending / "decisions.toml"
    done = cli("migrate", lending, "--apply", "--decisions", target)
    assert done.exit_code == 1
    assert "wrote 27 decision(s) to" in done.output and "(nothing was applied)" in done.output
    assert (lending / "lending" / "server.py").read_text() == before
    rows = tomllib.loads(target.read_text())["site"]
    assert len(rows) == 27
    assert {k for k in rows[0]} >= {"fingerprint", "path", "function", "line", "type", "code", "reviewed",
                                    "message", "type_confidence", "type_evidence", "code_confidence",
                                    "code_evidence", "alternatives"}
    assert len({r["fingerprint"] for r in rows}) == 27


def _edit(target: Path, line: int, **changes) -> None:
    """Change the row of the site at LINE (as written) in the decisions file."""
    text = target.read_text()
    blocks = text.split("\n[[site]]\n")
    for i, block in enumerate(blocks):
        if f"\nline = {line}\n" in block:
            for key, value in changes.items():
                old = next(row for row in block.splitlines() if row.startswith(f"{key} = "))
                block = block.replace(old, f"{key} = {json.dumps(value)}", 1)
            blocks[i] = block
            break
    else:
        raise AssertionError(f"no row for line {line}")
    target.write_text("\n[[site]]\n".join(blocks))


def test_reviewed_choices_are_applied_by_fingerprint_after_lines_move(lending):
    target = lending / "decisions.toml"
    assert cli("migrate", lending, "--mapping", lending / "member_admin.mapping.toml",
               "--decisions", target).exit_code == 0
    _edit(target, 31, code="WA-LOAN-S-001")            # a marked code, chosen
    _edit(target, 53, type="S", code="WA-LOAN-S-001")  # the empty state: Success after all
    _edit(target, 94, code="EN-LOAN-D-001", reviewed=True)
    _edit(target, 45, type="skip")                     # left as it is
    _edit(target, 123, code="WA-BOOK-S-001")           # the Success no code describes: a reviewer's choice
    server = lending / "lending" / "server.py"
    server.write_text("# moved by a line\n" + server.read_text())
    done = cli("migrate", lending, "--mapping", lending / "member_admin.mapping.toml", "--apply",
               "--decisions", target)
    assert done.exit_code == 0, done.output
    returns = _returns(lending)
    assert 'return rb.success("WA-LOAN-S-001", data={"isbn": isbn, "due": "in 3 weeks"})' in returns
    assert 'return rb.success("WA-LOAN-S-001", data={}, message="No loans found")' in returns
    assert 'return rb.denied("EN-LOAN-D-001", data={}, message="Only librarians are allowed to freeze cards")' \
        in returns
    assert 'return {"success": True, "book": found}' in returns
    assert not any(MARKER.strip() in r for r in returns)
    assert 'return rb.success("WA-BOOK-S-001", data={"ticket": ticket})' in returns
    assert "26 converted return(s)" in done.output and "4 from reviewed choices" in done.output


def test_a_row_no_site_matches_is_stale_and_never_applied(lending):
    target = lending / "decisions.toml"
    assert cli("migrate", lending, "--decisions", target).exit_code == 0
    server = lending / "lending" / "server.py"
    server.write_text(server.read_text().replace("Archive store timed out", "Archive store did not answer"))
    done = cli("migrate", lending, "-f", "json", "--decisions", target)
    doc = json.loads(done.stdout)
    stale = doc["decisions_file"]["stale"]
    assert [(r["function"], r["line"]) for r in stale] == [("return_loan", 63)]
    assert "stale row" in done.output and "no site has its fingerprint any more; not applied" in done.output
    changed = next(d for d in doc["decisions"] if d["line"] == 63)
    assert changed["origin"] == "proposed"


@pytest.mark.parametrize("change,reason", [
    ({"code": "WA-LOAN-I-001"}, "WA-LOAN-I-001 ({where}) is not a code of type S"),
    ({"code": "WA-NOPE-S-009"}, "WA-NOPE-S-009 ({where}) is not in the canonical registry"),
    ({"type": "D", "code": "EN-LOAN-D-001", "reviewed": True}, None),
])
def test_a_choice_that_cannot_be_written_is_skipped_with_the_row_named(lending, change, reason):
    target = lending / "decisions.toml"
    assert cli("migrate", lending, "--decisions", target).exit_code == 0
    _edit(target, 31, **change)
    where_line = next(n for n, row in enumerate(target.read_text().splitlines(), start=1)
                      if row == "line = 31") - 4
    doc = json.loads(cli("migrate", lending, "-f", "json", "--decisions", target).stdout)
    skipped = [s["reason"] for s in doc["skipped"]]   # (at the line the return has once its handler is converted)
    if reason is None:   # a human may call a success a refusal: the choice is theirs, and it is written
        assert [d["type"] for d in doc["decisions"] if d["line"] == 31] == ["D"]
        return
    assert skipped == [reason.format(where=f"{target}:{where_line}")]


@pytest.mark.parametrize("content,message", [
    ("version = 1\n[[site]]\nfingerprint = 'x'\ntype = 'Q'\n", "type 'Q' must be one of S, I, D, E, runtime, skip"),
    ("version = 2\n", "version = 1 expected"),
    ("version = 1\n[[site]]\ntype = 'S'\n", "a [[site]] needs its fingerprint"),
    ("version = [\n", "is not valid TOML"),
    ("version = 1\n[[site]]\nfingerprint = 'x'\ntype = 'runtime'\n", "a runtime site needs failure_type I, D or E"),
])
def test_a_bad_decisions_file_is_one_line_and_exit_2(lending, content, message):
    target = lending / "decisions.toml"
    target.write_text(content)
    done = cli("migrate", lending, "--decisions", target)
    assert done.exit_code == 2
    assert message in done.output and done.output.count("\n") == 1


# ----------------------------------------------------------------------- per-site choices in mapping files
@pytest.mark.parametrize("content,message", [
    ("[[tools.h.sites]]\nmatch = '('\ncode = 'MCP-SYS-I-001'\n", "match '(' is not a regular expression"),
    ("[[tools.h.sites]]\ncode = 'MCP-SYS-I-001'\n", "needs match (a pattern of the return's message) or "
                                                     "fingerprint"),
    ("[[tools.h.sites]]\nmatch = 'x'\ntype = 'Q'\n", "type must be S, I, D, E or skip"),
    ("[[tools.h.sites]]\nmatch = 'x'\ncolour = 'red'\n", "unknown key(s) colour"),
    ("[[tools.h.sites]]\nmatch = 'x'\ntype = 'I'\ncode = 'MCP-SYS-E-001'\n", "must be a code of type I"),
])
def test_a_bad_site_table_in_a_mapping_file_is_one_line_and_exit_2(lending, content, message):
    mapping = lending / "bad.mapping.toml"
    mapping.write_text(content)
    done = cli("migrate", lending, "--mapping", mapping)
    assert done.exit_code == 2
    assert message in done.output and done.output.count("\n") == 1


def test_one_handler_takes_two_codes_for_one_method_through_its_site_tables(lending):
    assert cli("migrate", lending, "--mapping", lending / "member_admin.mapping.toml", "--apply").exit_code == 0
    returns = _returns(lending)
    assert 'return rb.invalid("MCP-SYS-I-002", data={}, message="Renaming is not supported yet")' in returns
    assert 'return rb.invalid("MCP-SYS-I-001", data={}, message="Merging needs two cards")' in returns


def test_a_second_run_with_the_same_decisions_changes_nothing(lending):
    target = lending / "decisions.toml"
    assert cli("migrate", lending, "--decisions", target).exit_code == 0
    assert cli("migrate", lending, "--apply", "--decisions", target).exit_code == 0
    after = (lending / "lending" / "server.py").read_text()
    done = cli("migrate", lending, "--apply", "--decisions", target)
    assert done.exit_code == 0
    assert (lending / "lending" / "server.py").read_text() == after


# ------------------------------------------------------------------------------------ the classifier
def _ret(values: dict, texts: dict | None = None, guards: list | None = None, **more) -> Return:
    """A literal dict returned at line 1, with VALUES (key -> kind), TEXTS and the enclosing tests GUARDS."""
    plain = Return(line=1, col=4, end_line=1, end_col=20, kind="dict", keys=list(values), in_except=False,
                   except_kind=None, literal=True, value_span=None, key_values=values, code=None, shape={},
                   callee=None, texts=texts or {}, except_types=[], spread=False, guards=guards or [],
                   cites_params=False, try_reads="", guard_reads="", literal_type="", names_params=False,
                   try_fixed_keys=False)
    return replace(plain, **more)


@pytest.mark.parametrize("ret,outcome,letter,last", [
    (_ret({"success": "false", "policy_decision": "str", "error": "str"},
          {"policy_decision": "REQUIRE_TOKEN", "error": "token needed"}), "refused", "D",
     "'policy_decision' is 'REQUIRE_TOKEN': a policy decision that does not allow (decision_keys, allow_values)"),
    (_ret({"success": "false", "decision": "str", "error": "str"}, {"decision": "ALLOW", "error": "disk full"}),
     "failure", "I", "a failure outside an except"),
    (_ret({"success": "false", "error": "other"}, guards=["result.decision == Decision.DENY"]), "refused", "D",
     "under `if result.decision == Decision.DENY`: a policy decision that refuses (decision_keys, denied_values)"),
    (_ret({"success": "false", "error": "other"}, guards=["not (result.decision == Decision.DENY)"]),
     "failure", "I", "a failure outside an except"),
    (_ret({"error": "str"}, {"error": "Daemon not running"}), "failure", "E",
     "its text matches '\\\\bnot running\\\\b' (error_patterns)"),
    (_ret({"error": "str"}, {"error": "nope"}, in_except=True, except_kind="narrow", except_types=["ValueError"],
          try_reads="direct"),
     "failure", "I", "caught as ValueError (input_exceptions) from a block that reads a parameter"),
    (_ret({"error": "str"}, {"error": "nope"}, in_except=True, except_kind="narrow", except_types=["ValueError"],
          try_reads=""),
     "failure", "E", "caught as ValueError, but from a block that reads no parameter: not the caller's input"),
    (_ret({"error": "str"}, {"error": "nope"}, in_except=True, except_kind="narrow",
          except_types=["OSError"]), "failure", "E", "caught by a narrow except (OSError)"),
    (_ret({"rows": "other"}), "success", "S", "no flag, error key or failing status: a result"),
    (_ret({"error": "str"}, {"error": "Launcher repair not yet implemented"}), "failure", "E",
     "its text matches '\\\\bnot (yet )?implemented\\\\b' (unsupported_patterns): the system lacks it, as HTTP's "
     "501"),
    (_ret({"allowed": "false", "error": "text"}, {"error": "Path not found: …"}, cites_params=True), "failure", "I",
     "its message quotes a parameter"),   # after "'allowed' is False, but its text matches … (invalid_patterns)"
    (_ret({"allowed": "false", "error": "text"}, {"error": "Token required: …"}), "refused", "D",
     "'allowed' is False (denied_flags)"),
])
def test_the_classifier_says_which_signal_decided(ret, outcome, letter, last):
    from reply_audit.meaning import classify_dict
    from reply_audit.profile import load_profile

    verdict = classify_dict(ret, "tool", load_profile(None, None))
    assert (verdict.outcome, verdict.letter, verdict.signals[-1]) == (outcome, letter, last)
