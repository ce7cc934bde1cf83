"""``python -m tools.journey_screenshots OUT_DIR``: run the journey tests (and the
layout test) with $REVIEWER_SHOTS set, so each journey step is saved as a PNG,
at 1366x768 and 1920x1080 (the journeys run at both sizes), under OUT_DIR."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

JOURNEYS = ["tests/ui/test_journey_first_day.py", "tests/ui/test_journey_runs.py",
            "tests/ui/test_journey_fix_editor.py", "tests/ui/test_fit.py", "tests/ui/test_release_counts.py",
            "tests/ui/test_list_diff.py", "tests/ui/test_diff_room.py"]


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if not argv:
        print(__doc__, file=sys.stderr)
        return 2
    out = Path(argv[0]).resolve()
    out.mkdir(parents=True, exist_ok=True)
    env = dict(os.environ, REVIEWER_SHOTS=str(out), QT_QPA_PLATFORM="offscreen")
    code = subprocess.call([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *JOURNEYS], env=env)
    for png in sorted(out.glob("*.png")):
        print(png)
    return code


if __name__ == "__main__":
    raise SystemExit(main())
