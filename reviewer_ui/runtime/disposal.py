"""Freeing big object graphs without freezing the GUI.

Dropping the last reference to a parsed 5 MB document or a diff of two of
them frees about a million objects in one C-level cascade that holds the GIL
for 50-200 ms, on whichever thread drops it, so the GUI stalls even when that
thread is a worker. ``dispose(runner, obj)`` hands the object to a job that
takes it apart piece by piece: a Python loop, during which the interpreter
lets the GUI thread run every few milliseconds.

Only containers that nothing else references (``sys.getrefcount``) are taken
apart, so an object still in use elsewhere is never modified; it is simply
released by the job.

Fewer things need this now: a diff result is compact (one text per pane, see
reviewer_ui.diffdoc) and is dropped on the GUI thread, and the parsed value behind
a big response's tree stays in the helper process (reviewer_ui.treeindex). The
item view still hands it the previous item; bench/viewer_bench.py --no-disposal
measures whether that still matters.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from typing import Any

# Our own references while inspecting a popped object: the local name and getrefcount's argument.
_OWN_REFS = 2
# How long the job waits for the caller to drop its references to the objects handed over.
HANDOFF_WAIT_S = 0.1


def _shred(ctx, box: list) -> int:
    """Take the objects in ``box`` apart (a job); return how many containers were emptied."""
    return take_apart(box)


PAUSE_EVERY = 512  # containers emptied between two calls of ``take_apart``'s ``pause``


def take_apart(box: list, pause: Callable[[], Any] | None = None) -> int:
    """Free the objects in ``box`` (whose caller drops its own references right after handing
    them over) a piece at a time, in a Python loop the interpreter can switch threads in;
    return how many containers were emptied. ``pause``, called every PAUSE_EVERY containers,
    may wait for more urgent work. Qt-free: the helper process uses it too
    (reviewer_ui.treeindex), where one cascade held up the quick lane's answers."""
    stack = box[:]
    box.clear()  # the caller's reference is gone: the stack holds the only ones now
    _await_handoff(stack)
    emptied = 0
    while stack:
        obj = stack.pop()
        if sys.getrefcount(obj) > _OWN_REFS:
            continue  # someone else still uses it: leave it whole
        kind = type(obj)
        if kind is list:
            stack.extend(obj)
            obj.clear()
        elif kind is dict:
            stack.extend(obj.values())
            obj.clear()
        elif hasattr(obj, "__dict__") and not isinstance(obj, type):
            stack.extend(vars(obj).values())
            vars(obj).clear()
        else:
            continue
        emptied += 1
        if pause is not None and emptied % PAUSE_EVERY == 0:
            pause()
    return emptied


def _await_handoff(stack: list) -> None:
    """Wait (briefly) until nothing but ``stack`` holds the objects handed over.

    The caller still holds them while ``dispose`` runs (its argument tuple, its own
    names until it drops them), and this job can start before that: starting it
    releases the GIL. Looking at them at once would leave them whole, and the caller's
    last ``del`` would then free the whole graph on the GUI thread (a 35 ms stall for
    the previous diff, seen in bench/viewer_bench.py)."""
    deadline = time.monotonic() + HANDOFF_WAIT_S
    for i in range(len(stack)):
        # References: the stack's own and getrefcount's argument.
        while sys.getrefcount(stack[i]) > 2 and time.monotonic() < deadline:
            time.sleep(0.001)


def dispose(runner, *objects: Any) -> None:
    """Release ``objects`` on a worker, a piece at a time. The caller must drop
    its own references right after the call."""
    box = [o for o in objects if o is not None]
    if box:
        runner.start(f"dispose:{id(box)}", _shred, box)
