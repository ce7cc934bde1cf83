"""Where the GUI thread stalls during a start: a developer's tool (issue #14/#17).

    QT_QPA_PLATFORM=offscreen python tools/startup_stalls.py DB [--min-ms 30]

Starts the app (reviewer_ui.app.main) on DB (a fresh path for a first start), and
until the first start's job ends prints every stretch over ``--min-ms`` in which the
event loop did not come back, with the Python stacks a sampler thread saw on the GUI
thread meanwhile (the most frequent first). A stretch with no Python frame below
``app.exec`` was Qt's own work (layout, painting, style polish).

How it measures without disturbing what it measures: a 10 ms timer on the GUI
thread (the bench's ``first_start_max_gui_stall``) tells how late the loop came
back, and the sampler keeps only text. No application-wide event filter and no ``notify`` override: a
Python hook that is called for every event also sees objects still under
construction, and a wrapper it made (kept alive, say, by a sampled frame) is what a
later getter returns with the half-built type ("'QWidget' object has no attribute
'setPageStep'"; see reviewer_ui.runtime.gcpolicy.IdleCollector).
"""

from __future__ import annotations

import argparse
import collections
import sys
import threading
import time


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("db")
    parser.add_argument("--min-ms", type=float, default=30.0)
    args = parser.parse_args()
    from reviewer_ui import app as app_module

    gui = threading.get_ident()
    state = {"since": None, "samples": [], "origin": time.perf_counter()}
    stretches: list[tuple[float, float, list[str]]] = []

    def sampler() -> None:
        while True:
            time.sleep(0.004)
            last = state["since"]
            if last is None or time.perf_counter() - last < 0.015:
                continue
            frame = sys._current_frames().get(gui)
            stack = []
            while frame is not None and len(stack) < 8:
                code = frame.f_code
                stack.append(f"{code.co_filename.rsplit('/', 1)[-1]}:{code.co_name}:{frame.f_lineno}")
                frame = frame.f_back
            del frame
            state["samples"].append(" < ".join(stack))

    def on_shown(window, job) -> None:
        from PySide6.QtCore import QTimer

        def tick() -> None:
            # A 10 ms timer, as the start-up bench's max_stall: how late it comes is the stall.
            now = time.perf_counter()
            last, state["since"] = state["since"], now
            if last is not None and (now - last - 0.010) * 1000 >= args.min_ms:
                stretches.append((last - state["origin"], now - last - 0.010, state["samples"]))
            state["samples"] = []
            QTimer.singleShot(10, tick)

        tick()
        threading.Thread(target=sampler, daemon=True).start()
        print(f"window shown at {time.perf_counter() - state['origin']:.3f} s")

        def done() -> None:
            QTimer.singleShot(500, window.close)

        job.done.connect(done) if job.running else done()

    app_module.main(args.db, ["reviewer"], on_shown=on_shown)
    for at, length, samples in stretches:
        print(f"--- at {at:.3f} s: {length * 1000:.0f} ms, {len(samples)} samples")
        for stack, n in collections.Counter(samples).most_common(5):
            print(f"  {n:3d}  {stack}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
