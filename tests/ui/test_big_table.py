"""A 100,000-item table never reads the database on the GUI thread (issue 14).

The item table's rows come from jobs: a new query's count and first page, then the pages
scrolled to and their neighbours, while rows not in yet show "…". These tests drive the
real window on SQLite and PostgreSQL by keyboard — first start, scrolling to the end,
sorting, filtering, switching datasets, picking and reviewing an item — and record every
SQL statement's thread: the GUI thread must run none. The journey also saves a screenshot
of each step to $REVIEWER_SHOTS (when set) at 1366x768 and 1920x1080.
"""

from __future__ import annotations

import os

import pytest
from PySide6.QtCore import QSettings, Qt

from reviewer.store import Store
from reviewer.store.queries import ItemQuery
from tests.ui.journeys import wait_idle
from tests.ui.review.test_review_annotation_panel import SqlThreads
from tools.big_dataset import fill
from reviewer_ui.main_window import MainWindow
from reviewer_ui.models.item_table import COL, PLACEHOLDER, ItemTableModel

BIG = 100_000


@pytest.fixture
def big_store(db_url):
    """A store holding a 100k-item dataset ("big") and a 500-item one ("small")."""
    store = Store(db_url)
    store.big = fill(store, BIG, name="big")
    store.small = fill(store, 500, name="small")
    yield store
    store.close()


def record_ids(model, rows) -> list[str]:
    return [model.data(model.index(r, COL["ID"])) for r in rows]


def visible_rows(table) -> range:
    first = table.rowAt(0)
    last = table.rowAt(table.viewport().height() - 1)
    return range(first, (last if last >= 0 else table.model().rowCount() - 1) + 1)


def screen_filled(table) -> bool:
    """Every row in view shows its data (no placeholder left)."""
    model = table.model()
    return all(model.data(model.index(r, COL["ID"])) not in (None, PLACEHOLDER) for r in visible_rows(table))


def test_the_model_reads_pages_on_the_runner_and_shows_placeholders_meanwhile(qtbot, big_store, runner):
    sql = SqlThreads(big_store.engine)
    sql.on = True
    model = ItemTableModel(big_store, runner=runner)
    with qtbot.waitSignal(model.query_changed, timeout=10000) as shown:
        model.set_query(ItemQuery(dataset_id=big_store.big))
        assert model.rowCount() == 0 and model.loading()  # nothing read on the spot
    assert shown.args == [BIG] and model.rowCount() == BIG
    assert record_ids(model, range(3)) == ["r0000000", "r0007919", "r0015838"]  # the first page came with it
    assert model.data(model.index(50_000, COL["ID"])) == PLACEHOLDER  # not read yet: asked for
    assert model.data(model.index(50_000, COL["Kind"])) is None
    qtbot.waitUntil(lambda: model.data(model.index(50_000, COL["ID"])) != PLACEHOLDER, timeout=10000)
    assert model.item_id(50_000) == model.row_at(50_000).id

    # sorting: the rows shown stay until the new order's first page is in (no empty flash)
    before = record_ids(model, range(3))
    with qtbot.waitSignal(model.query_changed, timeout=10000):
        model.sort(COL["ID"], Qt.SortOrder.DescendingOrder)
        assert model.loading() and model.rowCount() == BIG and record_ids(model, range(3)) == before
    assert record_ids(model, range(3)) == ["r0099999", "r0099998", "r0099997"]

    # a newer query wins over one still in flight; its count comes with its first page
    counts = []
    model.query_changed.connect(counts.append)
    model.set_query(ItemQuery(dataset_id=big_store.big, categories=["FILTERING"]))
    model.set_query(ItemQuery(dataset_id=big_store.big, categories=["FILTERING"], depths=[2]))
    qtbot.waitUntil(lambda: not model.loading(), timeout=10000)
    expected = sum(1 for i in range(BIG) if i % 3 == 1 and i % 5 == 2)  # tools.big_dataset's categories, depths
    assert counts == [expected] and model.rowCount() == expected
    assert {model.row_at(r).depth for r in range(10)} == {2}
    qtbot.waitUntil(lambda: model.ids_known(), timeout=10000)  # the id list: every row's item id
    assert model.item_id(expected - 1) is not None and model.row_of(model.item_id(6000)) == 6000
    sql.on = False
    assert sql.gui == [], f"SQL on the GUI thread: {sql.gui[:3]}"
    assert any("item" in s for s in sql.worker)


def test_refresh_keeps_the_rows_shown_until_they_are_read_again(qtbot, big_store, runner):
    model = ItemTableModel(big_store, runner=runner)
    with qtbot.waitSignal(model.query_changed, timeout=10000):
        model.set_query(ItemQuery(dataset_id=big_store.big))
    fetched = model.pages_fetched
    model.refresh()
    assert record_ids(model, range(3)) == ["r0000000", "r0007919", "r0015838"]  # still shown, no "…"
    qtbot.waitUntil(lambda: model.pages_fetched > fetched and not model._stale & {0}, timeout=10000)
    assert record_ids(model, range(3)) == ["r0000000", "r0007919", "r0015838"]


def _focus_table(qtbot, window):
    window.activateWindow()
    window.table.setFocus()
    qtbot.waitUntil(window.table.hasFocus, timeout=3000)


def _shot(window, name: str) -> None:
    folder = os.environ.get("REVIEWER_SHOTS")
    if folder:
        from tests.ui.journeys import shot

        shot(window, name)


def _close(qtbot, window) -> None:
    """Let the window's pending work land (a save refreshes the review queue 400 ms later),
    then close it: nothing may reach the store after the test drops its database."""
    wait_idle(qtbot, window)
    window.close()


def _shown_item(window):
    b = window.item_view.bundle
    return b.detail.id if b else None


def _current_item_shown(qtbot, window):
    """The item view shows the current row's item and the screen has no placeholder."""
    qtbot.waitUntil(lambda: screen_filled(window.table) and window.model.item_id(window.current_row()) is not None
                    and _shown_item(window) == window.model.item_id(window.current_row()), timeout=15000)


@pytest.mark.parametrize("size", [(1366, 768), (1920, 1080)])
def test_browsing_a_100k_table_by_keyboard_runs_no_sql_on_the_gui_thread(qtbot, big_store, tmp_path, size):
    """First start on the big dataset, PageDown, Ctrl+End and PageUp, sort by ID and by
    depth both ways, filter, switch datasets and back, pick an item and review it: every
    statement on a worker."""
    from reviewer.review import annotate

    settings = QSettings(str(tmp_path / "settings.ini"), QSettings.Format.IniFormat)
    settings.setValue("dataset", "big")
    sql = SqlThreads(big_store.engine)
    sql.on = True  # from the window's construction (its sign-in) on: its first show, datasets, first screen
    window = MainWindow(big_store, settings)
    qtbot.addWidget(window)
    window.resize(*size)
    window.show()
    try:
        qtbot.waitUntil(lambda: window.model.rowCount() == BIG, timeout=15000)
        _current_item_shown(qtbot, window)
        assert window.current_row() == 0 and "100,000 items" in window.count_label.text()
        _shot(window, "first-screen")

        _focus_table(qtbot, window)
        for _ in range(3):
            qtbot.keyClick(window.table, Qt.Key.Key_PageDown)
            _current_item_shown(qtbot, window)
        assert window.current_row() > 30
        qtbot.keyClick(window.table, Qt.Key.Key_End, Qt.KeyboardModifier.ControlModifier)
        assert window.current_row() == BIG - 1  # the move needs no read: the row is there, its data comes
        assert window.table.horizontalScrollBar().value() == 0  # in the ID's column still (Qt's went to the last)
        _current_item_shown(qtbot, window)
        assert window.model.row_at(BIG - 1).position == BIG - 1
        _shot(window, "scrolled-to-the-end")
        qtbot.keyClick(window.table, Qt.Key.Key_PageUp)
        _current_item_shown(qtbot, window)

        window.table.sortByColumn(COL["ID"], Qt.SortOrder.DescendingOrder)  # as a header click does
        qtbot.waitUntil(lambda: not window.model.loading() and screen_filled(window.table), timeout=15000)
        assert record_ids(window.model, range(2)) == ["r0099999", "r0099998"]
        window.table.sortByColumn(COL["ID"], Qt.SortOrder.AscendingOrder)
        qtbot.waitUntil(lambda: not window.model.loading() and screen_filled(window.table), timeout=15000)
        assert record_ids(window.model, range(2)) == ["r0000000", "r0000001"]
        window.table.sortByColumn(COL["Depth"], Qt.SortOrder.DescendingOrder)
        qtbot.waitUntil(lambda: not window.model.loading() and screen_filled(window.table), timeout=15000)
        assert window.model.data(window.model.index(0, COL["Depth"])) == "4"
        _shot(window, "sorted-by-depth")

        qtbot.keyClick(window.table, Qt.Key.Key_F, Qt.KeyboardModifier.ControlModifier)
        qtbot.keyClicks(window.filters.search, "r009999")
        qtbot.waitUntil(lambda: window.model.rowCount() == 10 and not window.model.loading(), timeout=15000)
        _current_item_shown(qtbot, window)
        assert window.current_row() == 0 and "10 of 100,000 items" in window.count_label.text()
        _shot(window, "filtered")
        window.filters.search.clear()
        qtbot.waitUntil(lambda: window.model.rowCount() == BIG and not window.model.loading(), timeout=15000)

        window.dataset_box.setFocus()
        qtbot.keyClick(window.dataset_box, Qt.Key.Key_Down)  # to "small"
        qtbot.waitUntil(lambda: window.model.rowCount() == 500 and not window.model.loading(), timeout=15000)
        _current_item_shown(qtbot, window)
        qtbot.keyClick(window.dataset_box, Qt.Key.Key_Up)  # back to "big"
        qtbot.waitUntil(lambda: window.model.rowCount() == BIG and not window.model.loading(), timeout=15000)
        _current_item_shown(qtbot, window)

        # Not browsing: the admin's grant is the test's own write. Signing in reads the role in a job.
        sql.on = False
        annotate.set_role(big_store, "alice", "annotator")
        sql.on = True
        session = window.review.session
        session.set_identity("alice")
        qtbot.waitUntil(lambda: session.signed_in and session.name == "alice", timeout=15000)
        _focus_table(qtbot, window)
        for _ in range(2):
            qtbot.keyClick(window.table, Qt.Key.Key_Down)
        _current_item_shown(qtbot, window)
        item_id = window.model.item_id(window.current_row())
        panel = window.review.annotation
        qtbot.waitUntil(lambda: panel.detail is not None and panel.detail.id == item_id and not panel.loading,
                        timeout=15000)
        _shot(window, "item-picked")
        with qtbot.waitSignal(panel.saved, timeout=15000):
            qtbot.keyClick(window.table, Qt.Key.Key_R)  # Reject: saved, then on to the next item
        qtbot.waitUntil(lambda: window.current_row() == 3, timeout=15000)
        _current_item_shown(qtbot, window)
        qtbot.waitUntil(lambda: "reject" in (window.model.data(window.model.index(2, COL["Review"])) or ""),
                        timeout=15000)  # the Review column is read again, in place
        _shot(window, "reviewed")
        sql.on = False
        assert sql.gui == [], f"SQL on the GUI thread while browsing: {sql.gui}"
        assert any("annotation" in s for s in sql.worker)
    finally:
        _close(qtbot, window)


def test_a_query_the_database_refuses_shows_an_empty_table_and_says_why(qtbot, big_store, runner):
    model = ItemTableModel(big_store, runner=runner)
    with qtbot.waitSignal(model.query_changed, timeout=10000):
        model.set_query(ItemQuery(dataset_id=big_store.big))
    with qtbot.waitSignal(model.load_failed, timeout=10000) as failed:
        model.set_query(ItemQuery(dataset_id=big_store.big, review="no such state"))
    assert "no such state" in failed.args[0]
    assert not model.loading() and model.rowCount() == 0  # not the old rows under the new filter


def test_a_sort_shows_the_top_of_the_new_order_wherever_the_table_was_scrolled(qtbot, big_store, tmp_path):
    settings = QSettings(str(tmp_path / "settings.ini"), QSettings.Format.IniFormat)
    settings.setValue("dataset", "big")
    window = MainWindow(big_store, settings)
    qtbot.addWidget(window)
    window.resize(1366, 768)
    window.show()
    try:
        qtbot.waitUntil(lambda: window.model.rowCount() == BIG and screen_filled(window.table), timeout=15000)
        window.table.verticalScrollBar().setValue(50_000)
        qtbot.waitUntil(lambda: screen_filled(window.table), timeout=15000)
        window.table.sortByColumn(COL["ID"], Qt.SortOrder.DescendingOrder)
        qtbot.waitUntil(lambda: not window.model.loading() and screen_filled(window.table), timeout=15000)
        assert window.table.rowAt(0) == 0 and record_ids(window.model, [0]) == ["r0099999"]
    finally:
        _close(qtbot, window)
