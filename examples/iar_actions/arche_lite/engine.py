"""The workflow engine registers its own control actions."""

from .registry import registry


class WorkflowEngine:
    def __init__(self) -> None:
        self.register_action("for_each", self.for_each)

    def register_action(self, action_type, action_func):
        registry.register_action(action_type, action_func)

    def for_each(self, items, action_type) -> dict:
        results = [registry.execute(action_type, item=item) for item in items]
        if not results:
            return {"error": None, "data": {"results": []},
                    "reflection": {"status": "skipped", "confidence": 1.0, "alignment_check": "pass",
                                   "potential_issues": ["no items"]}}
        return {"error": None, "data": {"results": results},
                "reflection": {"status": "ok", "confidence": 0.8, "alignment_check": "pass",
                               "potential_issues": []}}
