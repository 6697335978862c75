"""The package type-checks: mypy, with the settings in pyproject.toml ([tool.mypy])."""

from __future__ import annotations

import subprocess
import sys

from support import REPO


def test_mypy_is_clean(tmp_path):
    done = subprocess.run([sys.executable, "-m", "mypy", "--cache-dir", str(tmp_path / "cache")],
                          capture_output=True, text=True, cwd=REPO, timeout=600)
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
