"""Screenshots of the three-person review journey (alice, bob, carol) at 1366x768 and 1920x1080.

Runs the journey test on the team database (needs PostgreSQL, see tests/conftest.py) with
REVIEWER_SHOTS pointing at OUT, so that the screenshots are those of the asserted steps:

    python tools/review_protocol_screenshots.py [OUT]     (default: ./shots/review-protocol)
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def main() -> int:
    out = Path(sys.argv[1] if len(sys.argv) > 1 else "shots/review-protocol").resolve()
    out.mkdir(parents=True, exist_ok=True)
    env = dict(os.environ, REVIEWER_SHOTS=str(out), QT_QPA_PLATFORM=os.environ.get("QT_QPA_PLATFORM", "offscreen"))
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                           "tests/ui/review/test_review_journey_team.py"], cwd=ROOT, env=env)
    for png in sorted(out.rglob("*.png")):
        print(png)
    return done.returncode


if __name__ == "__main__":
    sys.exit(main())
