"""RA307: control flow that branches on message text."""

from collections.abc import Iterator

from .base import Example, Finding, Rule, RuleContext


class MessageBranching(Rule):
    id = "RA307"
    name = "message-branching"
    severity = "medium"
    category = "call"
    requirement = "no-message-branching"
    chunk = "strict-mode"
    spec = "spec 000 §1, §6; plan 001 phase 3"
    doc = ("Messages are derived and may change at any time; agents and code branch on TYPE and CODE only. A "
           "comparison or test on `.message` breaks silently when a message is reworded. Only messages of replies "
           "count: the owner was assigned from a handler, a builder method or a Reply class, or is named like one "
           "([messages] reply-names).")
    fix = ("Compare `reply.code` or `reply.reply_type`.")
    valid = [Example('def f(reply):\n    if reply.code == "WA-RES-I-001":\n        return 1\n'),
             Example('def f(entries, q):\n    return [e for e in entries if q in e.message.lower()]\n',
                     note="log entries have messages too")]
    invalid = [Example('def f(reply):\n    if reply.message == "Path not found":\n        return 1\n'
                       '    if "denied" in reply.message.lower():\n        return 2\n',
        findings=[
            ("mod.py", 2, 8, "branches on message text (compare on `reply.message`)"),
            ("mod.py", 4, 8, "branches on message text (contains on `reply.message`)"),
        ]),
               Example('import re\ndef f(reply):\n    if re.search("denied", reply.message):\n        return 1\n'
                       '    return (reply.message or "")[:4] == "Path"\n',
                       note="any read of the message inside a condition or a comparison",
        findings=[
            ("mod.py", 3, 28, "branches on message text (test on `reply.message`)"),
            ("mod.py", 5, 12, "branches on message text (compare on `reply.message`)"),
        ])]

    def check(self, ctx: RuleContext) -> Iterator[Finding]:
        from ..names import Names

        handlers = {h.name for h in ctx.inventory.handlers}
        classes = Names(ctx.profile.builder_list("reply_classes"))
        replyish = handlers | set(ctx.profile.all_builder_methods)
        names = set(ctx.profile.setting("messages", "reply_names"))
        for m in ctx.inventory.message_branches:
            owner = m.text.split(".")[0]
            if not (m.owner_binding in replyish or m.owner_binding in classes or owner in names):
                continue  # `error.message` of a log entry is not a reply's message
            if not ctx.is_test(m.path):
                yield self.finding(m.path, m.line, f"branches on message text ({m.kind} on `{m.text}`)", col=m.col,
                                   function=m.function, key=m.text)
