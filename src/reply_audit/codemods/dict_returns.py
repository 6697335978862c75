"""dict-returns: plan 001 phase 3, handlers that return raw dicts are converted onto replies (codemods.convert)."""

from __future__ import annotations

from typing import TYPE_CHECKING, cast

from ..records import HandlerReturn
from .base import Codemod, Edit, Example, Skip
from .convert import plan_handler

if TYPE_CHECKING:  # pragma: no cover
    from ..rules.base import Finding
    from .context import PlanContext

_REPLY = '''
from dataclasses import dataclass


@dataclass(frozen=True)
class Reply:
    reply_type: str
    code: str
    data: dict
    message: str | None = None


class Codes:
    WA_READ_S_001 = "WA-READ-S-001"
    WA_RES_I_001 = "WA-RES-I-001"
    MCP_SYS_S_001 = "MCP-SYS-S-001"
    MCP_SYS_I_001 = "MCP-SYS-I-001"
    MCP_SYS_E_001 = "MCP-SYS-E-001"


LEGACY_TO_CANONICAL = {"NOTES-Q-I-001": "WA-RES-I-001"}
'''

_SAFETY = '''
from replies import Reply


def mcp_safe_tool(func):
    def wrapper(*args, **kwargs):
        result = func(*args, **kwargs)
        if not isinstance(result, Reply):
            return Reply("E", "MCP-SYS-E-003", {"returned": type(result).__name__})
        return result
    return wrapper


class ReplyBuilder:
    def __init__(self, tool: str) -> None:
        self.tool = tool

    def success(self, code: str, data: dict | None = None, message: str | None = None) -> Reply:
        return Reply("S", code, data or {}, message)

    def invalid(self, code: str, data: dict | None = None, message: str | None = None) -> Reply:
        return Reply("I", code, data or {}, message)

    def denied(self, code: str, data: dict | None = None, message: str | None = None) -> Reply:
        return Reply("D", code, data or {}, message)

    def error(self, code: str, data: dict | None = None, message: str | None = None) -> Reply:
        return Reply("E", code, data or {}, message)
'''


class DictReturnsCodemod(Codemod):
    name = "dict-returns"
    phase = 3
    order = 70
    fixes = ("RA306",)
    subjects = (HandlerReturn,)
    doc = ("Plan 001 phase 3 (strict mode): a handler that returns raw dicts (RA306) is converted onto replies, "
           "the whole handler in one edit. A dict literal whose flags ([migrate.dict-returns] success-flags), error "
           "keys (error_keys) and status (status_keys, failure_values) are literals is decided now: Success, or a "
           "failure (a dict returned from an `except` with no flag saying True is one too), and a failure is "
           "never written as a Success. A refusal by policy (denied_flags, decision_keys, denied_patterns) is "
           "Denied with a D code of the layer that owns D; bad input caught narrowly (input_exceptions) is "
           "Invalid; an unexpected exception or a text saying the system failed (error_patterns) is Error; "
           "anything else Invalid. Its error or message text (message_keys) "
           "becomes `message=` when the builder method takes one; its own code key becomes the code argument when "
           "it is, or maps (LEGACY_TO_CANONICAL, mapping files) to, a registered code of that TYPE, and otherwise "
           "moves to `legacy_code` in data: the payload never carries a second `code`. Any other dict (through a "
           "variable, from a helper, with a flag computed at run time, or any value of a handler annotated "
           "`-> dict`) goes through `_reply_from_legacy` ([migrate.dict-returns] helper), written once per module, "
           "which classifies the result at run time by the same keys. The code is the dict's own (or mapped) code, "
           "else the handler's [tools.HANDLER] entry in a mapping file, else the registered code the evidence "
           "chooses ([migrate.codes], docs/migrate.md); a site whose names and message point to no area gets "
           "the fallback code of its type (the profile's default, unmarked where a sign decided the type); where the "
           "evidence names a domain "
           "but no clear winner, the profile's default is written marked `# reply-audit: default-code` (RA310). "
           "The handler also gets the safety decorator if it lacks it, the builder's construction ([migrate] "
           "builder_setup, checked against the constructor's required parameters: a call that would raise is "
           "never written), and the return annotation the builder's methods declare (`-> dict` becomes `-> "
           "Reply`), with their imports. Under a wrapper that turns raw results into Errors, a handler that lacks "
           "it is converted only when every one of its returns becomes a reply; otherwise it is reported.")
    examples = [Example(
        before={"replies.py": _REPLY, "safety.py": _SAFETY,
                "pyproject.toml": '[tool.reply-audit.migrate]\nbuilder-imports = ["from safety import ReplyBuilder"]\n',
                "server.py": '''
from replies import Reply
from safety import ReplyBuilder, mcp_safe_tool

NOTES = {"a": "first note"}


@mcp.tool()
def notes_search(query: str) -> dict:
    """Search the notes."""
    if not query:
        return {"code": "NOTES-Q-I-001", "error": "empty query", "hint": "pass a word"}
    try:
        hits = [n for n in NOTES if query in NOTES[n]]
    except Exception as exc:
        return {"success": False, "error": str(exc)}
    return {
        "success": True,
        "results": hits,  # newest first
        "count": len(hits),
    }


@mcp.tool()
def notes_stats() -> dict:
    stats = {"count": len(NOTES)}
    stats["largest"] = max(NOTES, default=None)
    return stats
'''},
        after={"server.py": '''
from replies import Reply
from safety import ReplyBuilder, mcp_safe_tool


def _reply_from_legacy(result, success, success_code, failure, failure_code,
                       refused=None, refused_code=None) -> Reply:
    """Written by reply-audit migrate: a legacy dict result as a reply, classified by its own flags and
    error keys (a failure is never a Success; a refusal by policy is one, Denied when `refused` is given)."""
    if isinstance(result, Reply):
        return result
    if not isinstance(result, dict):
        raise TypeError(f"expected a dict or a reply, got {type(result).__name__}")
    data = dict(result)
    NOTHING = ("", "none", "no", "0", "n/a", "null", "-")   # "Error: none" reports no error
    if "code" in data:
        data["legacy_code"] = data.pop("code")
    flags = [data.pop(key) for key in ["success", "ok"] if key in data]
    flags = [flag.strip().lower() not in ("false", "0", "no", "off", "none", "")
             if isinstance(flag, str) else flag for flag in flags]
    denied = any(data.get(key) is False for key in ["allowed", "permitted", "authorized"]) or any(
        str(data.get(key, "")).lower() in ["denied", "deny", "forbidden", "refused", "reject", "rejected"]
        for key in ["decision", "policy_decision"])
    failed = denied or False in flags or True not in flags and (
        any(data.get(key) for key in ["error"])
        or any(data.get(key) is True or str(data.get(key)).strip().lower() in ("true", "yes", "1")
               for key in ["isError", "is_error", "failed"])
        or any(str(data.get(key, "")).lower() in [
            "error", "fail", "failed", "failure"] for key in ["status"])
        or any(str(data.get(key) or "").strip().lower().startswith(
            tuple(["error:", "failed:", "failure:", "fatal:"]))
               and str(data.get(key)).split(":", 1)[-1].strip().lower() not in NOTHING
               for key in ["error", "message", "reason"]))
    message = next((str(data.pop(key)) for key in ["error", "message", "reason"] if data.get(key)), None)
    if denied and refused is not None:
        return refused(refused_code, data=data, message=message)
    if failed:
        return failure(failure_code, data=data, message=message)
    return success(success_code, data=data, message=message)


NOTES = {"a": "first note"}


@mcp.tool()
@mcp_safe_tool
def notes_search(query: str) -> Reply:
    """Search the notes."""
    rb = ReplyBuilder(tool="notes_search")
    if not query:
        return rb.invalid("WA-RES-I-001", data={"hint": "pass a word"}, message="empty query")
    try:
        hits = [n for n in NOTES if query in NOTES[n]]
    except Exception as exc:
        return rb.error("MCP-SYS-E-001", data={}, message=str(exc))
    return rb.success("WA-READ-S-001", data={
        "results": hits,  # newest first
        "count": len(hits),
    })


@mcp.tool()
@mcp_safe_tool
def notes_stats() -> Reply:
    rb = ReplyBuilder(tool="notes_stats")
    stats = {"count": len(NOTES)}
    stats["largest"] = max(NOTES, default=None)
    return _reply_from_legacy(stats, rb.success, "MCP-SYS-S-001", rb.invalid, "MCP-SYS-I-001")  # reply-audit: default-code
'''},  # noqa: E501 (the rewritten line, pinned whole)
        note="the wrapper turns raw results into Errors, so each handler is wrapped and converted in one edit; the "
             "legacy code NOTES-Q-I-001 maps to WA-RES-I-001; a broad except's Error takes [migrate.except-to-error] "
             "code; a search's Success the only Success code of READ; a dict built in a variable is classified "
             "at run time: "
             "notes_stats names no domain, so it gets the fallback codes, marked because the failure's type is "
             "known only at run time",
    ), Example(
        before={"replies.py": _REPLY, "safety.py": _SAFETY,
                "pyproject.toml": '[tool.reply-audit.migrate]\nbuilder-imports = ["from safety import ReplyBuilder"]\n',
                "server.py": '''
from safety import mcp_safe_tool


@mcp.tool()
def notes_flush(force: bool = False) -> dict:
    if not force:
        return {"error": "pass force=True"}
    NOTES.clear()
    return None
'''},
        after={},
        skipped=("mcp_safe_tool turns a result that is not a reply into an Error (safety.py:5: line 8: a result that "
                 "is not a Reply becomes a reply of type E); 1 return(s) of notes_flush cannot become replies (line "
                 "10: it returns None, which is no reply: decide what it should say), so it is neither wrapped nor "
                 "converted",),
        note="a handler that would stay half raw under a rejecting wrapper is left whole, with the reason",
    )]

    def plan(self, finding: Finding, ctx: PlanContext) -> Edit | Skip | None:
        subject = cast(HandlerReturn, finding.subject)   # the planner hands it only findings about a HandlerReturn
        handler, ret = subject.handler, subject.ret
        found = plan_handler(handler, ctx)
        if found.edit is None and ret.line in found.left:   # nothing converted: each return says why
            return Skip(found.left[ret.line])
        if found.skip is not None:
            return Skip(found.skip)
        if ret.line in found.left:
            return Skip(found.left[ret.line])
        return found.edit
