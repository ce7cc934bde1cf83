"""How the interpreter shares the GIL between the GUI thread and job threads.

CPython lets a thread that holds the GIL keep it for the *switch interval* (5 ms
by default) after another thread asks for it. The GUI thread asks for it many
times per frame (each slot, each Python paint method, again after every Qt call
that released it), so while jobs run pure-Python loops (building a diff,
taking the previous one apart, reviewer_ui.runtime.disposal) those waits add up to long stalls:
bench/viewer_bench.py measured diff_max_stall 124-227 ms at 5 ms and 46-47 ms
at 1 ms on this machine, and diff_to_visible did not get slower. Measured again
with the lazy layout (perfgui3, load 4-8, ``--no-switch-interval``): diff_max_stall
53-184 ms at 5 ms against 31-101 ms at 1 ms; it stays while the diff runs in the app.
"""

from __future__ import annotations

import sys

GUI_SWITCH_INTERVAL_S = 0.001


def favour_gui_thread() -> None:
    """Make threads hand the GIL over within GUI_SWITCH_INTERVAL_S (process-wide;
    the main window calls it, benchmarks call it as the app does)."""
    sys.setswitchinterval(GUI_SWITCH_INTERVAL_S)
