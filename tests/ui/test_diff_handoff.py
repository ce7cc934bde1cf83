"""What keeps the GUI thread free around a diff: the replaced diff is taken apart
on a worker after the new one is shown (never freed on the GUI thread), a job
waits for the caller to drop its references to what it was handed, and the
prepared panes carry their line numbers and longest line."""

from __future__ import annotations

import threading
import weakref

from tests.ui.test_diff_view import LEFT, RIGHT
from reviewer_ui.diffdoc import build_diff
from reviewer_ui.runtime.disposal import _shred
from reviewer_ui.views.diff_view import RETIRE_AFTER_MS, DiffView


class Holder:
    def __init__(self, payload):
        self.payload = payload


def test_a_job_waits_for_the_caller_to_let_go_before_taking_apart(qtbot):
    payload = Holder([[i, i + 1] for i in range(1000)])
    box, emptied = [payload], []
    worker = threading.Thread(target=lambda: emptied.append(_shred(None, box)))
    worker.start()
    qtbot.waitUntil(lambda: box == [], timeout=3000)  # the job holds it; this test still does too
    del payload
    worker.join(5)
    assert emptied and emptied[0] > 1000, "taken apart piece by piece, not left whole for the caller to free"


def test_the_replaced_diff_is_disposed_on_a_worker_after_the_new_one_shows(qtbot, runner):
    view = DiffView(runner)
    qtbot.addWidget(view)
    view.resize(900, 600)
    view.show()
    with qtbot.waitSignal(view.ready, timeout=5000):
        view.compare(LEFT, RIGHT)
    first = weakref.ref(view.result)
    disposals = []
    runner.started.connect(lambda job: disposals.append(job) if job.key.startswith("dispose:") else None)
    with qtbot.waitSignal(view.ready, timeout=5000):
        view.compare(RIGHT, LEFT)
    assert first() is not None and not disposals, "kept while the new diff paints"
    assert view.changes.count() == len(view.result.changes) and view.result.left.lines[1] == '  "name": "Amelie",'
    qtbot.waitUntil(lambda: bool(disposals), timeout=RETIRE_AFTER_MS * 10)
    qtbot.waitUntil(lambda: disposals[0].state == "finished", timeout=5000)
    assert first() is None and view.result is not None


def test_panes_number_their_lines_and_know_the_longest():
    r = build_diff(None, LEFT, RIGHT)
    for doc in (r.left, r.right):
        numbers = [doc.number(i) for i in range(len(doc))]
        fillers = [i for i, role in doc.roles.items() if role == "filler"]
        assert fillers, "one side lacks a key the other has"
        assert all(numbers[i] is None for i in fillers)
        assert [n for n in numbers if n is not None] == list(range(1, len(doc) - len(fillers) + 1))
        assert doc.max_len == max(len(line) for line in doc.lines)
    assert r.differences_only()[0].number(0) == 1
