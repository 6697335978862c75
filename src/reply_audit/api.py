"""The public Python API: what the command line does, callable from Python.

Each function takes paths and settings and returns typed records; none prints
or exits. Errors a user can fix are raised as `UserError` (one line). The
command line (`cli.py`) only parses arguments, calls these and prints.

    from reply_audit import api
    result = api.scan(Path("src"))
    evaluation = api.evaluate(result)
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

from .codemods.planner import evaluate_fixable
from .engine import Evaluation
from .profile import Profile, load_profile
from .scan import ScanResult
from .scan import scan as _scan

__all__ = ["Evaluation", "Profile", "ScanResult", "evaluate", "load_profile", "scan"]


def scan(path: Path, profile: Profile | None = None, mapping_paths: list[Path] | None = None, *,
         jobs: int | None = 1, cache_dir: Path | None = None, progress=None) -> ScanResult:
    """The facts and inventory of PATH (a folder or one file), under PROFILE (default: the one PATH's
    configuration names, found as `reply-audit scan` finds it)."""
    if profile is None:
        profile = load_profile(None, path if path.is_dir() else path.parent)
    return _scan(path, profile, mapping_paths, display_root=path.as_posix(), jobs=jobs, cache_dir=cache_dir,
                 progress=progress)


def evaluate(result: ScanResult, select: list[str] | None = None, ignore: list[str] | None = None,
             baseline: Counter[str] | None = None) -> Evaluation:
    """The findings of RESULT that count (selection, suppressions, a baseline), each one `migrate` would fix
    marked `fixable`."""
    return evaluate_fixable(result, select, ignore, baseline)
