"""The layout check (tools/fitcheck) finds what a user would call cut: it must fail
on tabs that scroll, on a must-show table column out of view or with cut text,
and on a cut label; and pass when they fit."""

from __future__ import annotations

from PySide6.QtGui import QStandardItem, QStandardItemModel
from PySide6.QtWidgets import QLabel, QTableView, QTabWidget, QVBoxLayout, QWidget

from tools.fitcheck import fit_problems


def _window(qtbot, *widgets, size=(260, 300)) -> QWidget:
    w = QWidget()
    col = QVBoxLayout(w)
    for child in widgets:
        col.addWidget(child)
    qtbot.addWidget(w)
    w.resize(*size)
    w.show()
    qtbot.waitExposed(w)
    return w


def test_tabs_that_scroll_are_reported_and_tabs_that_fit_are_not(qtbot):
    tabs = QTabWidget()
    for title in ("Model text", "Prediction", "Details", "Gold vs output"):
        tabs.addTab(QWidget(), title)
    tabs.setMinimumWidth(10)
    w = _window(qtbot, tabs, size=(220, 200))
    assert any(p.startswith("tabs scroll or elide") for p in fit_problems(w))
    w.resize(700, 200)
    qtbot.waitUntil(lambda: fit_problems(w) == [], timeout=3000)


def _table(rows: list[tuple[str, str, str]]) -> QTableView:
    model = QStandardItemModel(len(rows), 3)
    model.setHorizontalHeaderLabels(["ID", "Category", "Review"])
    for r, cells in enumerate(rows):
        for c, text in enumerate(cells):
            model.setItem(r, c, QStandardItem(text))
    view = QTableView()
    view.setModel(model)
    view.model_ref = model
    view.setProperty("wholeColumns", [2])
    view.setProperty("elidedColumns", [0])
    return view


def test_a_must_show_column_out_of_view_or_cut_is_reported(qtbot):
    view = _table([("SECFilingsTaskList_0412", "EXTRACTIVE", "not reviewed by you yet")])
    w = _window(qtbot, view, size=(260, 200))
    view.setColumnWidth(0, 110)
    view.setColumnWidth(1, 100)
    view.setColumnWidth(2, 120)  # starts at 210 px of a ~240 px viewport: out of view
    assert any("'Review'" in p and "not in view" in p for p in fit_problems(w))
    view.horizontalHeader().moveSection(2, 1)  # Review after ID: in view, but 120 px cuts its text
    view.setColumnWidth(2, 60)
    assert any(p.startswith("cell text cut: 'Review'") for p in fit_problems(w))
    w.resize(340, 200)
    view.setColumnWidth(0, 70)
    view.setColumnWidth(2, view.fontMetrics().horizontalAdvance("not reviewed by you yet") + 12)
    try:
        qtbot.waitUntil(lambda: fit_problems(w) == [], timeout=3000)
    except Exception:  # noqa: BLE001
        assert fit_problems(w) == []


def test_a_cut_label_is_reported(qtbot):
    label = QLabel("A label whose text is far longer than the window it sits in")
    label.setMinimumWidth(10)
    w = _window(qtbot, label, size=(120, 80))
    assert any(p.startswith("text cut") for p in fit_problems(w))


def test_a_wrapped_cell_whose_row_is_too_short_is_reported(qtbot):
    from reviewer_ui.widgets.wrapping_delegate import WrappingDelegate

    call = 'search_flights(origin="Porto",destination="Oslo",date="2024-06-01")→API_call_0'
    view = _table([("1", call, "match")])
    view.setWordWrap(True)  # Qt's own wrap: breaks at spaces only, the call is cut
    view.setProperty("wrappedColumns", [1])
    w0 = _window(qtbot, view, size=(300, 250))
    assert any("does not wrap long words" in p for p in fit_problems(w0))
    w0.layout().removeWidget(view)
    view.setParent(None)
    view.setItemDelegate(WrappingDelegate(view, {1}))
    view.setProperty("wrappedColumns", [1])
    view.setProperty("wholeColumns", [])
    view.setProperty("elidedColumns", [])
    w = _window(qtbot, view, size=(300, 250))
    view.setColumnWidth(0, 30)
    view.setColumnWidth(1, 120)
    view.setRowHeight(0, view.fontMetrics().height() + 4)  # one line: the call is cut
    assert any(p.startswith("wrapped cell cut: 'Category'") for p in fit_problems(w))
    view.resizeRowsToContents()  # the row grows to the wrapped call (no space in it to wrap at)
    assert view.rowHeight(0) > 2 * view.fontMetrics().height()
    assert fit_problems(w) == []
