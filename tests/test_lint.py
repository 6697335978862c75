"""The project's own code passes its linter: ruff, with the rules pyproject.toml selects."""

from __future__ import annotations

import subprocess
import sys

from support import REPO


def test_ruff_is_clean():
    done = subprocess.run([sys.executable, "-m", "ruff", "check", "--no-cache", "--output-format", "concise", str(REPO)],
                          capture_output=True, text=True, cwd=REPO, timeout=300)
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
