"""Garbage collection around jobs that build big object graphs.

Python's cyclic collector runs whenever enough container objects were
allocated, in whichever thread allocates, holding the GIL for a time
proportional to *every* tracked object. Parsing or diffing a 5 MB document
allocates about a million dicts and lists, which set off full collections
of 100-300 ms; the GUI thread waits for the GIL all that time
(bench/viewer_bench.py: diff_max_stall 322 ms with the collector, 58 ms without).

``paused()`` switches automatic collection off while such a job runs and, at
the end, freezes what exists (``gc.freeze``) so later collections skip it.
Nothing leaks through that: frozen objects are still freed by reference
counting when the app drops them; only reference cycles created before the
freeze are never collected, and the parsed JSON, diffs and documents built
here have none.
"""

from __future__ import annotations

import gc
import threading
from contextlib import contextmanager

_lock = threading.Lock()
_depth = 0
_paused_by_us = False


@contextmanager
def paused():
    global _depth, _paused_by_us
    with _lock:
        if _depth == 0 and gc.isenabled():
            gc.disable()
            _paused_by_us = True
        _depth += 1
    try:
        yield
    finally:
        with _lock:
            _depth -= 1
            if _depth == 0 and _paused_by_us:
                gc.freeze()
                gc.enable()
                _paused_by_us = False
