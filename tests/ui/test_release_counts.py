"""The release panel's counts are ways into the items they count: "Released",
"Withheld" and each reason narrow the item table to exactly those items, by
keyboard (Space on a count, Enter on a reason) as well as by mouse, and
"Show all" (or clearing the filters) brings every item back."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt

from reviewer.review.annotate import save_annotation
from reviewer.review.rubric import Draft
from reviewer.samples import DATA_DIR
from reviewer.store import Store
from tests.ui.conftest import shown_main_window
from tests.ui.journeys import shot
from tools.fitcheck import fit_problems

OK = {"schema_conformance": True, "content_faithfulness": True, "cross_field_consistency": True}


def _passed() -> Draft:
    return Draft(verdict="pass", checks=dict(OK), ambiguity="low", difficulty="medium")


@pytest.fixture
def reviewed_store(tmp_path):
    """schemagen (5 items): s0 passed by both (released), s1 rejected by both, s2 disputed,
    s3 and s4 not annotated."""
    store = Store(str(tmp_path / "release.sqlite3"))
    store.import_dataset(DATA_DIR / "schemagen" / "schemagen.jsonl")
    ds = store.datasets()[0]
    from reviewer.store.queries import ItemQuery

    ids = [r.id for r in store.item_page(ItemQuery(dataset_id=ds.id), 0, 10)]
    for who in ("alice", "bob"):
        save_annotation(store, ids[0], who, _passed(), None)
        save_annotation(store, ids[1], who, Draft(verdict="reject", ambiguity="low"), None)
    save_annotation(store, ids[2], "alice", _passed(), None)
    save_annotation(store, ids[2], "bob", Draft(verdict="reject", ambiguity="low"), None)
    store.reviewed_ids = ids
    yield store
    store.close()


def _table_ids(w) -> list[int]:
    return [w.model.item_id(r) for r in range(w.model.rowCount())]


def _fits(qtbot, w) -> None:
    try:  # layouts settle in posted events
        qtbot.waitUntil(lambda: fit_problems(w) == [], timeout=3000)
    except Exception:  # noqa: BLE001 - report what is cut
        assert fit_problems(w) == []


def _press(qtbot, widget, key) -> None:
    widget.setFocus()
    qtbot.waitUntil(widget.hasFocus, timeout=3000)
    qtbot.keyClick(widget, key)


@pytest.mark.parametrize("size", [(1366, 768)], ids=lambda s: f"{s[0]}x{s[1]}")
def test_release_counts_filter_the_item_table_by_keyboard(qtbot, reviewed_store, settings, size):
    ids = reviewed_store.reviewed_ids
    w = shown_main_window(qtbot, reviewed_store, settings, size=size)
    try:
        qtbot.waitUntil(lambda: w.model.rowCount() == 5 and w.review.detail is not None, timeout=5000)
        w.activateWindow()
        qtbot.waitUntil(w.isActiveWindow, timeout=3000)
        panel = w.review.release
        with qtbot.waitSignal(panel.counted, timeout=10000):
            w.review.setCurrentWidget(panel)  # the Release tab counts when shown
        assert panel.released_button.text() == "Released: 1"
        assert panel.withheld_button.text() == "Withheld: 4"

        _press(qtbot, panel.withheld_button, Qt.Key.Key_Space)
        qtbot.waitUntil(lambda: w.model.rowCount() == 4, timeout=5000)
        assert _table_ids(w) == ids[1:]
        assert w.filters.only_row.isVisible() and w.filters.only_label.text() == "Showing only the 4 items withheld from Gold"
        assert "4 of 5 items" in w.count_label.text()
        _fits(qtbot, w)
        shot(w, "release-withheld")

        _press(qtbot, panel.released_button, Qt.Key.Key_Space)
        qtbot.waitUntil(lambda: w.model.rowCount() == 1, timeout=5000)
        assert _table_ids(w) == [ids[0]]
        # the first (only) row is selected and shown
        qtbot.waitUntil(lambda: w.item_view.bundle is not None and w.item_view.bundle.detail.id == ids[0],
                        timeout=5000)

        # Each reason, by Enter on the focused entry.
        reasons = {panel.reason_list.item(i).data(Qt.ItemDataRole.UserRole): i
                   for i in range(panel.reason_list.count())}
        assert set(reasons) == {"rejected", "not settled by dual review yet"}
        for reason, expected in (("rejected", [ids[1]]), ("not settled by dual review yet", ids[2:])):
            panel.reason_list.setCurrentRow(reasons[reason])
            _press(qtbot, panel.reason_list, Qt.Key.Key_Return)
            qtbot.waitUntil(lambda expected=expected: _table_ids(w) == expected, timeout=5000)
            assert w.filters.only_label.text().endswith(f"withheld ({reason})")
        shot(w, "release-not-settled")

        # A click works as well as Enter.
        rect = panel.reason_list.visualItemRect(panel.reason_list.item(reasons["rejected"]))
        qtbot.mouseClick(panel.reason_list.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
        qtbot.waitUntil(lambda: _table_ids(w) == [ids[1]], timeout=5000)

        # The set narrows the other filters, it does not replace them: a search still applies on top.
        w.filters.search.setText("no-such-item")
        qtbot.waitUntil(lambda: w.model.rowCount() == 0, timeout=5000)
        w.filters.search.setText("")
        qtbot.waitUntil(lambda: _table_ids(w) == [ids[1]], timeout=5000)

        _press(qtbot, w.filters.only_clear, Qt.Key.Key_Space)
        qtbot.waitUntil(lambda: w.model.rowCount() == 5, timeout=5000)
        assert not w.filters.only_row.isVisible()

        # Clear filters (Ctrl+Shift+X) drops the set too.
        _press(qtbot, panel.withheld_button, Qt.Key.Key_Space)
        qtbot.waitUntil(lambda: w.model.rowCount() == 4, timeout=5000)
        w.table.setFocus()
        qtbot.keyClick(w.table, Qt.Key.Key_X, Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier)
        qtbot.waitUntil(lambda: w.model.rowCount() == 5, timeout=5000)
        assert not w.filters.only_row.isVisible()
    finally:
        w.runner.shutdown(5000)
