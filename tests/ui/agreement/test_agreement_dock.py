"""The agreement dock in the main window: opened from the Review menu, live on
annotation saves, and a clicked disagreement selects its item in the table."""

from __future__ import annotations

from reviewer.store import ItemQuery
from tests.ui.agreement.conftest import rate
from tests.ui.conftest import open_dataset


def test_dock_opens_from_the_menu_follows_saves_and_navigates(qtbot, window):
    panel = window.agreement
    panel.timer.setInterval(50)
    panel.resamples.setValue(100)
    open_dataset(qtbot, window, "tool_qa")  # the demo dataset with six items
    assert not window.agreement_dock.isVisible()  # nothing is computed until asked for
    review_menu = next(a.menu() for a in window.menuBar().actions() if a.text() == "&Review")
    assert window.agreement_action in review_menu.actions()

    ds = window.current_dataset()
    rows = window.store.item_page(ItemQuery(dataset_id=ds.id), 0, 100)
    rate(window.store, rows[0].id, "alice", "pass")
    rate(window.store, rows[0].id, "bob", "pass")
    with qtbot.waitSignal(panel.updated, timeout=30_000):
        window.agreement_action.trigger()
    assert window.agreement_dock.isVisible()
    assert panel.result.scope == ds.name and panel.result.report.n_ratings == 2

    # bob rejects the last item alice passed: the saved signal of the review panel brings it in
    last = rows[-1]
    rate(window.store, last.id, "alice", "pass")
    view = rate(window.store, last.id, "bob", "reject", ("semantic_ambiguity",), "high")
    with qtbot.waitSignal(panel.updated, timeout=30_000):
        window.review.annotation.saved.emit(view)
    assert panel.result.report.n_ratings == 4
    assert panel.disagreement_table.rowCount() == 1

    window.select_row(0)
    panel.disagreement_table.cellClicked.emit(0, 0)
    qtbot.waitUntil(lambda: window.model.item_id(window.current_row()) == last.id, timeout=5000)
