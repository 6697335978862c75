"""Behaviour of the notes tools as they are today (including known defects)."""

import pytest

from notesvc import server
from notesvc.tools import legacy_tools


@pytest.fixture(autouse=True)
def clean():
    server.NOTES.clear()
    server.SESSION.clear()


def test_read_missing_then_written():
    assert server.notes_read("a").reply_type == "I"
    assert server.notes_write("a", " hello ").code == "EN-WRITE-S-001"
    reply = server.notes_read("a")
    assert (reply.reply_type, reply.code, reply.data["text"]) == ("S", "WA-READ-S-001", "hello")
    assert reply.trace_id


def payload(reply):
    """The tool's data, whether the safety net wrapped a raw dict (MCP-SYS-S-900) or the tool built the reply."""
    return reply.data["payload"] if reply.code == "MCP-SYS-S-900" else reply.data


def test_search_and_stats_keep_their_payload():
    # raw dicts today (wrapped by the safety net); builder replies once migrated: the payload is the same
    server.NOTES["a"] = "needle"
    reply = server.notes_search("needle")
    assert reply.reply_type == "S"
    assert (payload(reply)["results"], payload(reply)["count"]) == (["a"], 1)
    assert payload(server.notes_stats())["count"] == 1
    assert payload(server.notes_search(""))["error"] == "query must not be empty"


def test_lock():
    assert server.notes_lock("a").code == "MCP-SYS-S-001"
    assert server.SESSION["locked"] == ["a"]


def test_delete_and_status():
    assert server.notes_delete("nope").code == "WA-RES-I-001"
    assert server.session_status().reply_type == "I"   # should be Success: an empty state is no mistake
    assert server.session_open("ann").code == "WA-READ-S-099"  # well-formed, so accepted, though unregistered
    assert server.session_status().code == "CT-GATE-S-001"


def test_shadow_builder_crashes_on_invalid():
    # _ShadowBuilder has no invalid(): the safety net turns the crash into an Error
    assert server.notes_export("pdf").code == "MCP-SYS-E-001"
    with pytest.raises(AttributeError):
        legacy_tools.import_notes({}, "")
    server.NOTES["a"] = "x"
    assert server.notes_export("md").code == "WA-READ-S-001"


def test_copy_branches_on_message_text():
    server.NOTES["a"] = "x"
    assert server.notes_copy("a", "b").code == "WA-WRITE-S-001"
    assert server.notes_copy("zz", "b").code == "WA-RES-I-001"
