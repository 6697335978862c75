"""Reflection helpers shared by the tools."""


def _create_reflection(status, summary, confidence, alignment, issues, preview):
    return {
        "status": status,
        "summary": summary,
        "confidence": confidence,
        "alignment_check": alignment,
        "potential_issues": issues,
        "raw_output_preview": preview,
    }


def trace(fn):
    """Log every call of an action (a decorator applied where the action is registered)."""
    return fn
