"""Actions defined next to the registry, in every state of adoption."""

from .reflection import _create_reflection


def calculate(expression: str) -> dict:
    """L1: a reflection, but in its own vocabulary and without error and data."""
    try:
        value = eval(expression, {"__builtins__": {}})  # noqa: S307 - example code
    except Exception as e:
        return {"result": None, "error": f"cannot evaluate: {e}",
                "reflection": {"status": "Failed", "confidence": 0.1, "alignment_check": "Aligned",
                               "potential_issues": [str(e)]}}
    return {"result": value,
            "reflection": {"status": "Success", "confidence": 1.0, "alignment_check": "Aligned"}}


def summarize(text: str, ratio: float = 0.2) -> dict:
    """L2: the reflection comes from a helper; its literal arguments are checked like dict values."""
    if not text:
        return {"error": None, "data": {"summary": ""},
                "reflection": _create_reflection("skipped", "nothing to summarize", 1.0, "pass", [], "")}
    summary = text[: max(1, int(len(text) * ratio))]
    return {"error": None, "data": {"summary": summary},
            "reflection": _create_reflection("ok", "summarized", 1.4, "pass", [], summary[:40])}


def display_output(content) -> dict:
    """L0: a raw dict, and None for nothing to show."""
    if content is None:
        return None
    print(content)
    return {"status": "success", "shown": True}


def fetch_url(url: str) -> dict:
    """L0: migrated once by reply-audit; the reflection waits for a human."""
    return {"error": None, "data": {"url": url}, "reflection": {"status": "ok", "confidence": None, "alignment_check": "concern", "potential_issues": ["reflection added by reply-audit migrate: review it"]}}  # reply-audit: default-reflection
