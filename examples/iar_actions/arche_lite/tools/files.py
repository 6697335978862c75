"""File actions: full reflections, but errors as bare strings or incomplete objects (L2)."""

from pathlib import Path


def save_file(path: str, content: str) -> dict:
    try:
        Path(path).write_text(content, encoding="utf-8")
    except OSError as e:
        return {
            "error": str(e),
            "data": {},
            "reflection": {"status": "error", "confidence": 0.9, "alignment_check": "pass",
                           "potential_issues": [str(e)]},
        }
    return {
        "error": None,
        "data": {"path": path, "bytes": len(content)},
        "reflection": {"status": "ok", "confidence": 0.95, "alignment_check": "pass", "potential_issues": []},
    }


def read_file(path: str) -> dict:
    if not Path(path).is_file():
        return {
            "error": {"code": "RES-ERR-IO-0404", "message": f"no file {path}"},
            "data": {},
            "reflection": {"status": "error", "confidence": 1.0, "alignment_check": "pass", "potential_issues": []},
        }
    return {
        "error": None,
        "data": {"text": Path(path).read_text(encoding="utf-8")},
        "reflection": {"status": "ok", "confidence": 1.0, "alignment_check": "pass", "potential_issues": []},
    }
