"""How the interpreter shares the GIL between the GUI thread and job threads.

CPython lets a thread that holds the GIL keep it for the *switch interval* (5 ms
by default) after another thread asks for it. The GUI thread asks for it many
times per frame (each slot, each Python paint method, again after every Qt call
that released it), so while jobs run pure-Python loops (building a diff,
taking the previous one apart, reviewer_ui.runtime.disposal) those waits add up to long stalls:
bench/viewer_bench.py measured diff_max_stall 124-227 ms at 5 ms and 46-47 ms
at 1 ms on this machine, and diff_to_visible did not get slower. Measured again
with the lazy layout (perfgui3, load 4-8, ``--no-switch-interval``): diff_max_stall
53-184 ms at 5 ms against 31-101 ms at 1 ms. Since the big diff is laid out in the helper
process (reviewer_ui.diffproc) the diff no longer clearly depends on it (perf4, load 3-5,
max of 5 diffs per run: diff_max_stall 22, 27, 43, 97 ms at 5 ms; 23-60 ms, one run 195, at
1 ms), nor does opening a big item (item_open_max_stall 16-28 ms at 5 ms). It stays for the jobs that still run Python loops in the app, a rerun
first (bench/rerun_bench.py gui_max_stall_during_rerun: medians 41 and 67 ms at 5 ms,
37 and 49 ms at 1 ms, alternating, load 3-4).
"""

from __future__ import annotations

import sys

GUI_SWITCH_INTERVAL_S = 0.001


def favour_gui_thread() -> None:
    """Make threads hand the GIL over within GUI_SWITCH_INTERVAL_S (process-wide;
    the main window calls it, benchmarks call it as the app does)."""
    sys.setswitchinterval(GUI_SWITCH_INTERVAL_S)
