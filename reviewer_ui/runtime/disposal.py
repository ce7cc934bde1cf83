"""Freeing big object graphs a piece at a time, in the helper process.

Dropping the last reference to a parsed 5 MB document frees about a million
objects in one C-level cascade that holds the GIL for 50-200 ms. In the helper
process (reviewer_ui.treeindex) that held up the quick lane's answers to the
app, so the helper frees a tree's value with ``take_apart``: a Python loop that
steps aside for the lane's requests every PAUSE_EVERY containers.

Only containers that nothing else references (``sys.getrefcount``) are taken
apart, so an object still in use elsewhere is never modified; it is simply
released.

The app itself no longer needs this: a big response's parsed value and a big
diff's layout stay in the helper, and what the app frees when it moves to the
next item is small. Handing that to a job that took it apart (``dispose``,
removed) made no measurable difference (bench/viewer_bench.py at load 0-6).
Qt-free.
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

    The caller may still hold them when the freeing thread starts (its own names until
    it drops them): starting a thread releases the GIL. Looking at them at once would
    leave them whole, and the caller's last ``del`` would then free the whole graph in
    one cascade on the caller's thread."""
    deadline = time.monotonic() + HANDOFF_WAIT_S
    for i in range(len(stack)):
        # References: the stack's own and getrefcount's argument.
        while sys.getrefcount(stack[i]) > 2 and time.monotonic() < deadline:
            time.sleep(0.001)
