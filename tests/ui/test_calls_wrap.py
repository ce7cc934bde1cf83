"""NesTools Calls table: every call reads whole at any pane width. Rows were sized for the
column's whole width while a cell is painted 1 px narrower (the grid line): a call that
needed that px wrapped once more when painted and its last line ("API_call_3,") was cut."""

from __future__ import annotations

from PySide6.QtCore import Qt

from reviewer.samples import DATA_DIR
from reviewer_ui.widgets.wrapping_delegate import PADDING, wrapped_height
from tests.ui.conftest import shown_main_window


def _cut_cells(table) -> list[str]:
    cut = []
    for row in range(table.rowCount()):
        for column in (1, 2, 3):
            item = table.item(row, column)
            rect = table.visualRect(table.model().index(row, column))  # the rect paint() gets: less the grid
            need = wrapped_height(item.text(), table.font(), rect.width() - 2 * PADDING) + 2 * PADDING
            if need > rect.height():
                cut.append(f"row {row + 1} column {column}: {item.text()!r}")
    return cut


def test_every_call_reads_whole_at_any_width(qtbot, settings, tmp_path):
    from reviewer.store import Store

    store = Store(str(tmp_path / "calls.sqlite3"))
    store.import_dataset(DATA_DIR / "nestools", name="calls")
    store.import_run(store.datasets()[0].id, DATA_DIR / "nestools" / "predictions" / "chainsmith-8b"
                     / "raw_response.jsonl", name="chainsmith")
    w = shown_main_window(qtbot, store, settings, size=(1366, 768))
    try:
        qtbot.waitUntil(lambda: w.item_view.bundle is not None and bool(w.item_view.bundle.outputs), timeout=5000)
        for row in range(w.model.rowCount()):
            w.table.setFocus()
            w.select_row(row)
            qtbot.waitUntil(lambda: w.item_view.bundle is not None and w.item_view.bundle.detail.id
                            == w.model.item_id(row), timeout=5000)
            layout = w.item_view.current_layout()
            table = layout.calls
            total = sum(layout.splitter.sizes())
            for left in range(160, 260, 2):  # the splitter dragged: the calls pass many wrap points
                before = table.viewport().width()
                layout.splitter.setSizes([left, total - left])
                qtbot.waitUntil(lambda: table.viewport().width() != before, timeout=5000)
                # The rows are refitted (posted) to the heights the delegate asks for ...
                qtbot.waitUntil(lambda: all(table.rowHeight(r) == table.sizeHintForRow(r)
                                            for r in range(table.rowCount())), timeout=5000)
                assert not _cut_cells(table), f"left pane {left} px: {_cut_cells(table)}"  # ... enough to paint
    finally:
        w.runner.shutdown(5000)
        store.close()
