"""reviewer_ui.runtime.disposal: big structures are taken apart piece by piece, shared ones left intact;
the idle collector frees frozen garbage cycles."""

from __future__ import annotations

import gc
import weakref

from reviewer_ui.runtime.disposal import take_apart


class Holder:
    def __init__(self, payload):
        self.payload = payload


def test_unshared_containers_are_emptied_and_shared_ones_kept():
    shared = {"keep": [1, 2, 3]}
    doomed_inner = [{"a": i} for i in range(1000)]
    outer = Holder({"items": doomed_inner, "shared": shared})
    probe = weakref.ref(outer)
    del doomed_inner
    box = [outer]
    del outer
    emptied = take_apart(box)
    assert box == [] and probe() is None  # released
    assert shared == {"keep": [1, 2, 3]}  # still referenced here: untouched
    assert emptied >= 1002  # the holder, its dict, the list and the 1000 small dicts


def test_idle_collector_collects_cycles_when_nothing_happens(qtbot, runner):
    from PySide6.QtWidgets import QApplication

    from reviewer_ui.runtime.gcpolicy import IdleCollector

    class Cycle:
        pass

    a, b = Cycle(), Cycle()
    a.other, b.other = b, a
    probe = weakref.ref(a)
    gc.freeze()  # as the app does: frozen garbage is out of reach of normal collections
    del a, b
    gc.collect()
    assert probe() is not None
    collector = IdleCollector(QApplication.instance(), runner, idle_s=0.05)
    try:
        qtbot.waitUntil(lambda: collector.collections == 1, timeout=3000)
        assert probe() is None
    finally:
        collector.close()  # else it collects (and freezes the heap) 50 ms after every later window
        gc.unfreeze()


def test_taking_apart_steps_aside_for_more_urgent_work():
    """The helper frees a tree's value a piece at a time and lets the quick lane's calls go
    first (``pause``): freed in one cascade it held the lane's next answer for 75-400 ms."""
    from reviewer_ui.runtime.disposal import PAUSE_EVERY, take_apart

    value = {"records": [{"id": i, "tags": [i, i + 1]} for i in range(3 * PAUSE_EVERY)]}
    probe = value["records"][-1]["tags"]
    pauses = []
    box = [value]
    del value
    emptied = take_apart(box, lambda: pauses.append(1))
    assert box == [] and emptied >= 6 * PAUSE_EVERY
    assert len(pauses) == emptied // PAUSE_EVERY
    assert probe == [3 * PAUSE_EVERY - 1, 3 * PAUSE_EVERY], "what someone else still holds is left whole"
