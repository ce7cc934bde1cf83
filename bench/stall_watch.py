"""Which Python code runs while the GUI's event loop is late: viewer_bench with a watchdog.

Runs bench/viewer_bench.py (same arguments) with a thread that, whenever the bench's
10 ms StallMeter timer is more than WATCH_LATE_MS late, samples the Python stack of
every thread (``sys._current_frames``). For the longest gaps over REPORT_GAP_MS it
prints, per sample, where the GUI thread was and which other threads were running
Python code rather than waiting. A GUI thread sampled in ``processEvents`` is inside
Qt (painting, or waiting for the GIL); the thread busy beside it is the suspect.
The watchdog itself needs the GIL to sample: a C call that holds it shows up as a
gap with no samples, followed by a sample of the holder as it returns.

Found this way (load 3-4): the process pool's feeder thread pickling a 10 MB diff pair
and pushing it through the helper's pipe (fixed: the pair goes in files).

Run: .venv/bin/python bench/stall_watch.py --only diff --repeat 8
"""

from __future__ import annotations

import sys
import threading
import time
import traceback
from pathlib import Path

WATCH_LATE_MS = 20.0  # sample when the timer is this late
REPORT_GAP_MS = 40.0  # gaps reported (the target is 50 ms)
REPORTED = 5  # the longest gaps
IDLE_FRAMES = ("wait", "select", "sleep", "_recv", "accept", "_worker")


def _short(frame, depth: int = 3) -> str:
    return " < ".join(f"{Path(f.filename).name}:{f.lineno} {f.name}"
                      for f in reversed(traceback.extract_stack(frame)[-depth:]))


def main() -> None:
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    import viewer_bench

    last = [time.perf_counter()]
    samples: list = []
    gaps: list = []
    tick, start = viewer_bench.StallMeter._tick, viewer_bench.StallMeter.start

    def watched_start(self) -> None:
        last[0] = time.perf_counter()
        samples.clear()
        start(self)

    def watched_tick(self) -> None:
        now = time.perf_counter()
        gap = (now - last[0]) * 1000
        if gap > REPORT_GAP_MS and self.timer.isActive():
            gaps.append((gap, list(samples)))
        last[0] = now
        samples.clear()
        tick(self)

    viewer_bench.StallMeter._tick, viewer_bench.StallMeter.start = watched_tick, watched_start

    def watch() -> None:
        while True:
            time.sleep(0.003)
            late = (time.perf_counter() - last[0]) * 1000
            if late > WATCH_LATE_MS:
                names = {t.ident: t.name for t in threading.enumerate()}
                stacks = {names.get(tid, str(tid)): _short(frame) for tid, frame in sys._current_frames().items()
                          if names.get(tid) != "stall-watch"}
                samples.append((round(late), stacks))

    threading.Thread(target=watch, name="stall-watch", daemon=True).start()
    viewer_bench.main()
    for gap, taken in sorted(gaps, key=lambda g: -g[0])[:REPORTED]:
        print(f"gap: {gap:.0f} ms, {len(taken)} samples")
        for late, stacks in taken:
            print(f"  @{late} ms GUI: {stacks.get('MainThread')}")
            for name, stack in stacks.items():
                if name != "MainThread" and not any(idle in stack for idle in IDLE_FRAMES):
                    print(f"      [{name}] {stack}")


if __name__ == "__main__":  # the helper process is spawned: it imports this module without running it
    main()
