"""Once an item's gold changes through review, the item view shows the new gold and scores at once.

alice fixes bikes-0's gold ("0" -> "12") and bob passes it, both from the keyboard; carol, the
adjudicator, opens it from the adjudication queue (Ctrl+Shift+A, Enter), takes alice's Fix and
settles with Ctrl+Enter. The item table said "adjudicated: fix" at once, but the item view kept
the old gold and the old scores ("chatty-3b ✓ 1.00") until the database was opened again.
The same holds when the two annotators' Fixes agree: the second save settles the item by itself
and writes the gold. Screenshots go to $ADJ2_SHOTS (default /tmp/adj2-shots)."""

from __future__ import annotations

import os

import pytest
from PySide6.QtCore import Qt

from reviewer.review import annotate
from tests.ui.journeys import annotate_rows, become, open_fix_dialog, show_row, wait_idle, window_signed_in
from tests.ui.review.test_adjudicate_fit import open_from_queue

SHOTS = os.environ.get("ADJ2_SHOTS", "/tmp/adj2-shots")
NEW_GOLD = "12"


def _window(qtbot, store, tmp_path, size, advance=True):
    from reviewer.scoring.job import score_run

    for name in ("alice", "bob"):
        annotate.set_role(store, name, "annotator")
    dataset = next(d for d in store.datasets() if d.name == "demo-tool_qa")
    for run in store.runs(dataset.id):  # the runs are scored against the original gold
        score_run(store, run.id, "faithful")
    return window_signed_in(qtbot, store, tmp_path, size, "alice", "demo-tool_qa",
                            {"review/advance_after_verdict": advance})


def _fix_by_keyboard(qtbot, window, row: int, gold: str) -> None:
    """As the signed-in annotator: E opens the Fix dialog, type the new answer, Ctrl+Enter saves the Fix."""
    panel = window.review.annotation
    item_id = show_row(qtbot, window, row)
    qtbot.waitUntil(lambda: not panel.loading, timeout=5000)
    stored: list = []
    panel.saved.connect(stored.append)
    try:
        window.activateWindow()  # the Fix dialog of an earlier fix had the focus
        qtbot.waitUntil(window.isActiveWindow, timeout=3000)
        dialog, editor = open_fix_dialog(qtbot, window)
        editor.line.setFocus()
        qtbot.waitUntil(editor.line.hasFocus, timeout=3000)
        editor.line.selectAll()
        qtbot.keyClicks(editor.line, gold)
        qtbot.keyClick(editor.line, Qt.Key.Key_Return, Qt.KeyboardModifier.ControlModifier)
        qtbot.waitUntil(lambda: not dialog.isVisible(), timeout=5000)
        qtbot.waitUntil(lambda: any(v.item_id == item_id and v.draft.verdict == "fix" for v in stored),
                        timeout=10000)
        # The panel moves on to the next item by itself: done when it has (no keys wait for it).
        qtbot.waitUntil(lambda: not panel.typing_ahead and not panel.saving, timeout=10000)
    finally:
        panel.saved.disconnect(stored.append)


def _shows(window, item_id: int, gold) -> bool:
    bundle = window.item_view.bundle
    return (bundle is not None and bundle.detail.id == item_id and bundle.detail.gold == gold
            and window.item_view.state.text() == "")


def _score(window, run: str = "chatty-3b") -> str:
    """The item header's score of ``run`` ("<b>✓</b> 1.00"); chatty-3b answered bikes-0 with "0"."""
    text = window.item_view.scores.text()
    return text.split(run, 1)[1].split("<span", 1)[0] if run in text else ""


@pytest.mark.parametrize("size", [(1366, 768), (1920, 1080)], ids=lambda s: f"{s[0]}x{s[1]}")
def test_the_item_view_shows_the_settled_gold_and_scores_once_the_adjudicator_settles(
        qtbot, demo_store, tmp_path, size):
    window = _window(qtbot, demo_store, tmp_path, size)
    ws = window.review
    item = demo_store.find_item("demo-tool_qa", "bikes-0")
    row = next(r for r in range(window.model.rowCount()) if window.model.item_id(r) == item.id)
    try:
        wait_idle(qtbot, window)
        _fix_by_keyboard(qtbot, window, row, NEW_GOLD)  # alice: the answer is 12
        become(qtbot, window, "bob")
        wait_idle(qtbot, window)
        show_row(qtbot, window, row)
        qtbot.waitUntil(lambda: not ws.annotation.typing_ahead, timeout=10000)
        window.activateWindow()  # alice's Fix dialog had the focus: the verdict keys are the window's
        qtbot.waitUntil(window.isActiveWindow, timeout=3000)
        annotate_rows(qtbot, window, {row: "pass"})  # bob: the gold is right
        become(qtbot, window, "carol", "adjudicator")
        open_from_queue(qtbot, window, item.id)
        view = ws.adjudication
        qtbot.waitUntil(lambda: view.detail is not None and view.detail.id == item.id and view.a is not None
                        and window.item_view.bundle is not None and window.item_view.bundle.detail.id == item.id,
                        timeout=10000)
        wait_idle(qtbot, window)
        assert _shows(window, item.id, item.gold) and "✓" in _score(window)
        os.makedirs(SHOTS, exist_ok=True)
        window.grab().save(os.path.join(SHOTS, f"settle-{size[0]}x{size[1]}-before.png"))
        take_a = view.pick_a if view.a.annotator == "alice" else view.pick_b
        take_a.setFocus()
        qtbot.keyClick(take_a, Qt.Key.Key_Space)  # Take A: alice's Fix
        view.rationale.setFocus()
        qtbot.keyClicks(view.rationale, "the station has 12 free bikes")
        qtbot.waitUntil(view.settle_button.isEnabled, timeout=3000)
        with qtbot.waitSignal(view.settled, timeout=10000):
            qtbot.keyClick(view.rationale, Qt.Key.Key_Return, Qt.KeyboardModifier.ControlModifier)
        assert demo_store.item(item.id).gold == NEW_GOLD
        try:  # the item view loads the item again (jobs: the gold, then the re-scored outputs)
            qtbot.waitUntil(lambda: _shows(window, item.id, NEW_GOLD) and "✗" in _score(window), timeout=5000)
        except qtbot.TimeoutError:
            pass  # the asserts below say what is still shown
        wait_idle(qtbot, window)
        window.grab().save(os.path.join(SHOTS, f"settle-{size[0]}x{size[1]}-after.png"))
        bundle = window.item_view.bundle
        assert bundle.detail.id == item.id
        assert bundle.detail.gold == NEW_GOLD, f"the item view still shows the old gold {bundle.detail.gold!r}"
        assert "gold edited" in window.item_view.facts.text()
        assert "✗" in _score(window), f"chatty-3b still scored {_score(window)!r} against the old gold"
        assert view.detail.id == item.id and view.a is not None  # carol still sees the item she settled
    finally:
        wait_idle(qtbot, window)
        window.runner.shutdown(5000)
        window.close()


def test_the_item_view_shows_the_gold_two_agreeing_fixes_settle(qtbot, demo_store, tmp_path):
    """alice and bob both fix bikes-0 to 12 (advance after verdict off, so bob stays on it): bob's
    save settles the item by itself and writes the gold; the item view shows it."""
    window = _window(qtbot, demo_store, tmp_path, (1366, 768), advance=False)
    item = demo_store.find_item("demo-tool_qa", "bikes-0")
    row = next(r for r in range(window.model.rowCount()) if window.model.item_id(r) == item.id)
    try:
        wait_idle(qtbot, window)
        _fix_by_keyboard(qtbot, window, row, NEW_GOLD)
        become(qtbot, window, "bob")
        wait_idle(qtbot, window)
        assert _shows(window, item.id, item.gold)
        _fix_by_keyboard(qtbot, window, row, NEW_GOLD)
        assert demo_store.item(item.id).gold == NEW_GOLD  # settled: both fixes agree
        try:
            qtbot.waitUntil(lambda: _shows(window, item.id, NEW_GOLD) and "✗" in _score(window), timeout=5000)
        except qtbot.TimeoutError:
            pass
        wait_idle(qtbot, window)
        os.makedirs(SHOTS, exist_ok=True)
        window.grab().save(os.path.join(SHOTS, "unanimous-fix-1366x768-after.png"))
        assert window.item_view.bundle.detail.gold == NEW_GOLD, "the item view still shows the old gold"
        assert "✗" in _score(window)
    finally:
        wait_idle(qtbot, window)
        window.runner.shutdown(5000)
        window.close()
