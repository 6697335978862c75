"""Web search: the compliant action (L3)."""

import time


def search_web(query: str, limit: int = 5) -> dict:
    started = time.monotonic()
    if not query.strip():
        return {
            "error": {"code": "RES-ERR-SCHE-0001", "message": "query is empty", "details": {"field": "query"}},
            "data": {},
            "reflection": {
                "status": "error",
                "confidence": 0.0,
                "alignment_check": "pass",
                "potential_issues": ["empty query"],
                "telemetry": {"duration_ms": 0, "retries": 0, "attempt": 1},
            },
        }
    hits = [{"title": f"{query} #{i}", "url": f"https://example.org/{i}"} for i in range(limit)]
    return {
        "error": None,
        "data": {"results": hits, "provider": "simulated"},
        "reflection": {
            "status": "ok",
            "confidence": 0.55,
            "alignment_check": "pass",
            "potential_issues": ["simulated_provider"],
            "telemetry": {"duration_ms": int((time.monotonic() - started) * 1000), "retries": 0, "attempt": 1},
        },
    }
