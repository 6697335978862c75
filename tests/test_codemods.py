"""Every codemod: its own BEFORE/AFTER examples rewritten exactly, and a second run that changes nothing."""

from __future__ import annotations

import textwrap

import pytest

from reply_audit.codemods import all_codemods, select_codemods
from reply_audit.migrate import migrate, write
from reply_audit.profile import load_profile
from reply_audit.scan import scan
from support import write_tree

CODEMODS = all_codemods()
CASES = [(c, i, ex) for c in CODEMODS for i, ex in enumerate(c.examples)]


def run(root, select=None, phase=None, apply=True):
    result = migrate(scan(root, load_profile(None, root)), select_codemods(select, phase))
    if apply:
        write(result, allow_dirty=True)
    return result


def read_tree(root):
    return {p.relative_to(root).as_posix(): p.read_text(encoding="utf-8") for p in sorted(root.rglob("*"))
            if p.is_file()}


@pytest.mark.parametrize("codemod,index,example", CASES, ids=[f"{c.name}-{i}" for c, i, _ in CASES])
def test_codemod_example(tmp_path, codemod, index, example):
    before = {p: textwrap.dedent(s) for p, s in example.before_tree().items()}
    write_tree(tmp_path, before)
    result = run(tmp_path, [codemod.name])
    assert result.refused == []
    expected = {**before, **{p: textwrap.dedent(s) for p, s in example.after_tree().items()}}
    assert read_tree(tmp_path) == expected
    assert {a.codemod for a in result.applied} == ({codemod.name} if example.after else set())
    assert [s.reason for s in result.skipped if s.codemod == codemod.name] == list(example.skipped)
    again = run(tmp_path, [codemod.name])
    assert (again.changed, again.applied) == ([], [])
    assert read_tree(tmp_path) == expected


def test_every_codemod_has_an_example_and_a_doc():
    names = [c.name for c in CODEMODS]
    assert names == ["safety-wrapper", "legacy-codes", "forbidden-layers", "forbidden-methods", "except-to-error",
                     "terminal-return", "dict-returns", "result-envelope"]
    for c in CODEMODS:
        assert c.examples and len(c.doc) > 150 and c.fixes and c.phase in (1, 2, 3)


def test_docs_codemods_md_is_generated_from_the_codemods():
    from reply_audit.report.codemods_doc import codemods_markdown
    from support import REPO

    assert (REPO / "docs" / "codemods.md").read_text(encoding="utf-8") == codemods_markdown(CODEMODS)


def test_codemods_command_lists_and_explains():
    from reply_audit.cli import app
    from support import CliRunner

    runner = CliRunner()
    listed = runner.invoke(app, ["codemods"])
    assert listed.exit_code == 0 and [line.split()[0] for line in listed.stdout.splitlines()[2:]] == [
        c.name for c in CODEMODS]
    explained = runner.invoke(app, ["codemods", "terminal-return"])
    assert explained.exit_code == 0 and "+        return rb.denied(" in explained.stdout
    assert runner.invoke(app, ["codemods", "nope"]).exit_code == 2


def test_every_codemod_declares_the_records_it_reads():
    """Each codemod names the subject records it fixes (Finding.subject); the planner hands it no other."""
    from reply_audit.codemods import all_codemods
    from reply_audit.records import Subject

    known = set(Subject.__args__)
    for codemod in all_codemods():
        assert codemod.subjects and set(codemod.subjects) <= known, codemod.name
