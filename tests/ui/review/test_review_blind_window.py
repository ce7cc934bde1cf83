"""Journey on SQLite: alice (annotator) and carol (adjudicator) share one window of a dataset
blind to model identity. Alice never reads a run or model name anywhere in the window (the
item view, output panes, run picker, filters, scores, table, tooltips, title, status bar;
the Runs dock is closed) and types P, P, F without waiting: nothing is lost. Carol, in the
same window, sees the names. Keyboard first, at 1366x768 and 1920x1080, screenshots per
step when $REVIEWER_SHOTS is set."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt

from reviewer.review import Review
from reviewer.review.annotate import set_role, snapshot
from tests.ui.conftest import shown_main_window
from tests.ui.journeys import shot
from tests.ui.review.visible import everything_shown


@pytest.mark.parametrize("size", [(1366, 768), (1920, 1080)], ids=["1366x768", "1920x1080"])
def test_annotator_of_a_blind_dataset_sees_outputs_not_models_and_keys_are_never_lost(qtbot, demo_store, settings,
                                                                                        size):
    store = demo_store
    ds = store.dataset("demo-tool_qa")
    runs = store.runs(ds.id)
    secrets = sorted({r.name for r in runs} | {r.model for r in runs if r.model})
    assert len(runs) >= 2 and secrets
    set_role(store, "carol", "adjudicator")
    set_role(store, "alice", "annotator")
    carol_core = Review(store, "carol")
    carol_core.set_rule(ds.id, carol_core.rule(ds.id), blind_models=True)

    window = shown_main_window(qtbot, store, settings, size)
    try:
        ws = window.review
        ws.session.set_identity("alice")
        window.select_dataset("demo-tool_qa")
        qtbot.waitUntil(lambda: window.item_view.bundle is not None and window.item_view.bundle.blind
                        and window.item_view.bundle.detail.dataset_id == ds.id, timeout=10000)
        qtbot.waitUntil(lambda: ws.annotation.detail is not None
                        and ws.annotation.detail.id == window.item_view.bundle.detail.id, timeout=10000)
        first = ws.annotation.detail
        seen = everything_shown(window)
        assert [s for s in secrets if s in seen] == [], "alice saw a run or model name"
        assert "Output 1" in seen and "Output 2" in seen
        assert window.run_box.currentText().startswith("Output ")
        assert not window.runs_dock.isVisible() and not window.runs_dock.toggleViewAction().isEnabled()
        shot(window, "alice-blind")

        # P, P, F as fast as she types, from the item table: two items passed, the third opens the fix editor
        window.activateWindow()
        window.table.setFocus()
        qtbot.waitUntil(window.table.hasFocus, timeout=3000)
        for key in (Qt.Key.Key_P, Qt.Key.Key_P, Qt.Key.Key_F):
            qtbot.keyClick(window.table, key)
        panel = ws.annotation
        qtbot.waitUntil(lambda: panel.fix_dialog is not None and panel.fix_dialog.isVisible(), timeout=15000)
        third = panel.detail
        order = [window.model.item_id(r) for r in range(window.model.rowCount())]
        assert order.index(third.id) == order.index(first.id) + 2
        passed = [snapshot(store, order[order.index(first.id) + k], "alice").mine for k in (0, 1)]
        assert [m.draft.verdict if m else None for m in passed] == ["pass", "pass"]
        assert "annotated 2 of" in ws.queues.mine_label.text()  # current as soon as the saves landed
        seen = everything_shown(window) + "\n" + everything_shown(panel.fix_dialog)
        assert [s for s in secrets if s in seen] == []
        shot(window, "alice-fix-editor-after-p-p-f", panel.fix_dialog)
        panel.fix_dialog.close()

        # carol, in the same window, sees which run wrote what
        ws.session.set_identity("carol")
        qtbot.waitUntil(lambda: window.item_view.bundle is not None and not window.item_view.bundle.blind,
                        timeout=10000)
        seen = everything_shown(window)
        assert all(r.name in seen for r in runs)
        assert window.runs_dock.toggleViewAction().isEnabled()
        shot(window, "carol-sees-names")
    finally:
        window.runner.shutdown(5000)


def test_blindness_switched_by_someone_else_reloads_the_open_item_numbered(qtbot, demo_store, settings):
    """alice has an item open, names shown; carol, in her own process's connection, makes the
    dataset blind: within the live poll (SQLite's data_version) alice's item reloads as
    "Output 1, 2" with no run name left on screen; switched back, the names return."""
    from reviewer.store import Store

    store = demo_store
    ds = store.dataset("demo-tool_qa")
    runs = store.runs(ds.id)
    names = sorted({r.name for r in runs})
    set_role(store, "carol", "adjudicator")
    set_role(store, "alice", "annotator")
    window = shown_main_window(qtbot, store, settings, (1366, 768))
    carol_store = Store(store.engine.url.database)  # another connection: a change the window did not make
    try:
        ws = window.review
        ws.session.set_identity("alice")
        window.select_dataset("demo-tool_qa")
        qtbot.waitUntil(lambda: window.item_view.bundle is not None and not window.item_view.bundle.blind
                        and window.item_view.bundle.detail.dataset_id == ds.id, timeout=10000)
        opened = window.item_view.bundle.detail.id
        assert all(n in everything_shown(window) for n in names)  # not blind yet: names shown

        carol = Review(carol_store, "carol")
        carol.set_rule(ds.id, carol.rule(ds.id), blind_models=True)
        qtbot.waitUntil(lambda: window.item_view.bundle.blind, timeout=10000)  # no click, no restart
        qtbot.waitUntil(lambda: window.run_box.currentText().startswith("Output "), timeout=5000)
        assert window.item_view.bundle.detail.id == opened  # the same item, reloaded
        seen = everything_shown(window)
        assert [n for n in names if n in seen] == [] and "Output 1" in seen and "Output 2" in seen
        assert not window.runs_dock.isVisible()
        shot(window, "alice-item-reloaded-blind")

        carol.set_rule(ds.id, carol.rule(ds.id), blind_models=False)
        qtbot.waitUntil(lambda: not window.item_view.bundle.blind, timeout=10000)
        qtbot.waitUntil(lambda: all(n in everything_shown(window) for n in names), timeout=5000)
    finally:
        carol_store.close()
        window.runner.shutdown(5000)


def test_a_blind_annotator_cannot_follow_a_run_across_items_with_the_picker(qtbot, demo_store, settings):
    """alice picks "Output 2" on one item; J opens the next item on its own "Output 1" (whatever
    run that is there), never on the run she picked; the Score column, one run on every item, is hidden."""
    from reviewer_ui.models.item_table import COL

    store = demo_store
    ds = store.dataset("demo-tool_qa")
    set_role(store, "carol", "adjudicator")
    set_role(store, "alice", "annotator")
    carol = Review(store, "carol")
    carol.set_rule(ds.id, carol.rule(ds.id), blind_models=True)
    window = shown_main_window(qtbot, store, settings, (1366, 768))
    try:
        window.review.session.set_identity("alice")
        window.select_dataset("demo-tool_qa")
        qtbot.waitUntil(lambda: window.item_view.bundle is not None and window.item_view.bundle.blind
                        and window.item_view.bundle.detail.dataset_id == ds.id, timeout=10000)
        assert window.table.isColumnHidden(COL["Score"])
        # the run's own filters would follow it across items too: off
        assert not window.filters.score_range.isEnabled() and not window.next_failing_action.isEnabled()
        firsts = []
        for step in range(min(6, window.model.rowCount() - 1)):
            bundle = window.item_view.bundle
            first = next(r for r, label in bundle.aliases.items() if label == "Output 1")
            assert window.run_box.currentText() == "Output 1" and window.item_view.run_id == first
            firsts.append(first)
            second = next(r for r, label in bundle.aliases.items() if label == "Output 2")
            window.run_box.setCurrentIndex(window.run_box.findData(second))  # alice looks at Output 2
            assert window.item_view.run_id == second and window.run_box.currentText() == "Output 2"
            qtbot.waitUntil(lambda: not window.filters.score_range.isEnabled(), timeout=3000)  # still off
            window.activateWindow()
            window.table.setFocus()
            qtbot.waitUntil(window.table.hasFocus, timeout=3000)
            qtbot.keyClick(window.table, Qt.Key.Key_J)
            qtbot.waitUntil(lambda: window.item_view.bundle is not bundle
                            and window.run_box.currentText() == "Output 1", timeout=10000)
        assert len(set(firsts)) > 1, "the shuffle gave every item the same Output 1: the test proves nothing"
        assert "Output" in window.run_box.currentText()
        shot(window, "alice-picker-resets-per-item")
        window.review.session.set_identity("carol")  # names again, and the Score column back
        qtbot.waitUntil(lambda: not window.item_view.bundle.blind, timeout=10000)
        qtbot.waitUntil(lambda: not window.table.isColumnHidden(COL["Score"]), timeout=5000)
        assert window.filters.score_range.isEnabled() and window.next_failing_action.isEnabled()
    finally:
        window.runner.shutdown(5000)
