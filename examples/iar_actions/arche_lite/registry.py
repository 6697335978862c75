"""The action registry: every action is registered here by name."""

from typing import Any, Callable, Dict

from . import actions
from .actions import calculate, display_output, summarize
from .reflection import trace
from .tools import files
from .tools.search import search_web


class ActionRegistry:
    def __init__(self) -> None:
        self.actions: Dict[str, Callable[..., Dict[str, Any]]] = {}

    def register_action(self, action_type: str, function: Callable[..., Dict[str, Any]]) -> None:
        self.actions.setdefault(action_type, function)

    def execute(self, action_type: str, **inputs: Any) -> Dict[str, Any]:
        return self.actions[action_type](**inputs)


registry = ActionRegistry()
registry.register_action("search_web", trace(search_web))
registry.register_action("save_file", files.save_file)
registry.register_action("read_file", files.read_file)
registry.register_action("calculate", calculate)
registry.register_action("summarize", trace(summarize))
registry.register_action("display_output", display_output)
registry.register_action("fetch_url", actions.fetch_url)
registry.register_action("forecast", run_forecast)
