"""A longer fuzzing run than CI's: the hypothesis tests of tests/test_fuzz.py with many more examples.

    python scripts/fuzz.py [--examples 1000]

Failures are shrunk to a minimal example and printed by hypothesis; the exit code is pytest's.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--examples", type=int, default=1000)
    args = parser.parse_args()
    env = {**os.environ, "REPLY_AUDIT_FUZZ_EXAMPLES": str(args.examples)}
    return subprocess.call([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                            str(REPO / "tests" / "test_fuzz.py")], cwd=REPO, env=env)


if __name__ == "__main__":
    sys.exit(main())
