"""A stand-in for an MCP server object: `@mcp.tool()` registers a function as a tool."""

from __future__ import annotations

from typing import Any, Callable


class FakeMCP:
    def __init__(self) -> None:
        self.tools: dict[str, Callable[..., Any]] = {}

    def tool(self) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
        def register(func: Callable[..., Any]) -> Callable[..., Any]:
            self.tools[func.__name__] = func
            return func

        return register


mcp = FakeMCP()
