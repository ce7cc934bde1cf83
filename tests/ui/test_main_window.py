"""The main window: keyboard navigation, search and filters, saved filters,
pane toggles, and settings that survive a restart."""

from __future__ import annotations

from PySide6.QtCore import Qt

from tests.ui.conftest import open_dataset, rows_shown
from reviewer_ui import theme
from reviewer_ui.main_window import MainWindow


def _shown_id(window):
    b = window.item_view.bundle
    return b.detail.record_id if b else None


def _focus_table(qtbot, window):
    window.activateWindow()
    window.table.setFocus()
    qtbot.waitUntil(lambda: window.table.hasFocus(), timeout=3000)


def test_j_k_and_ctrl_arrows_move_through_items(qtbot, window):
    open_dataset(qtbot, window, "tool_qa")
    assert _shown_id(window) == "bikes-0"
    _focus_table(qtbot, window)
    qtbot.keyClick(window.table, Qt.Key.Key_J)
    qtbot.waitUntil(lambda: _shown_id(window) == "bikes-1", timeout=5000)
    qtbot.keyClick(window.table, Qt.Key.Key_Down, Qt.KeyboardModifier.ControlModifier)
    qtbot.waitUntil(lambda: _shown_id(window) == "bikes-2", timeout=5000)
    qtbot.keyClick(window.table, Qt.Key.Key_K)
    qtbot.waitUntil(lambda: _shown_id(window) == "bikes-1", timeout=5000)
    qtbot.keyClick(window.table, Qt.Key.Key_Up, Qt.KeyboardModifier.ControlModifier)
    qtbot.keyClick(window.table, Qt.Key.Key_K)  # already first: stays
    qtbot.waitUntil(lambda: _shown_id(window) == "bikes-0", timeout=5000)
    assert window.current_row() == 0


def test_typing_j_in_the_search_box_searches(qtbot, window):
    open_dataset(qtbot, window, "tool_qa")
    _focus_table(qtbot, window)
    qtbot.keyClick(window.table, Qt.Key.Key_F, Qt.KeyboardModifier.ControlModifier)
    assert window.filters.search.hasFocus()
    qtbot.keyClicks(window.filters.search, "st-00j")
    assert window.filters.search.text() == "st-00j"  # J typed, not "next item"
    assert _shown_id(window) == "bikes-0"


def test_text_search_and_category_filter_narrow_the_table(qtbot, window):
    open_dataset(qtbot, window, "tool_qa")
    assert window.model.rowCount() == 6
    with qtbot.waitSignal(window.model.query_changed, timeout=10000):
        window.filters.search.setText("st-004")
    assert window.model.rowCount() == 1 and window.model.row_at(0).record_id == "bikes-4"
    qtbot.waitUntil(lambda: _shown_id(window) == "bikes-4", timeout=5000)
    assert "1 of 6 items" in window.count_label.text()
    window.filters.search.clear()
    qtbot.waitUntil(lambda: window.model.rowCount() == 6, timeout=10000)
    box = window.filters.category
    box.setCurrentIndex(box.findData("FILTERING"))
    assert rows_shown(qtbot, window).rowCount() == 2
    assert {window.model.row_at(r).category for r in range(2)} == {"FILTERING"}
    window.filters.gold.setCurrentText("Edited gold")
    assert rows_shown(qtbot, window).rowCount() == 0


def test_saved_filters_round_trip_through_settings(qtbot, window, settings):
    open_dataset(qtbot, window, "tool_qa")
    box = window.filters.category
    box.setCurrentIndex(box.findData("AGGREGATION"))
    window.filters.save_as("aggregations")
    window.filters.clear()
    assert rows_shown(qtbot, window).rowCount() == 6
    window.filters.load_saved("aggregations")
    assert rows_shown(qtbot, window).rowCount() == 2
    settings.sync()
    assert "aggregations" in window.filters.saved_filters()
    window.filters.delete_saved("aggregations")
    assert window.filters.saved_filters() == {}


def test_f9_hides_and_shows_the_browser(qtbot, window):
    open_dataset(qtbot, window, "tool_qa")
    _focus_table(qtbot, window)
    assert window.browser.isVisible()
    qtbot.keyClick(window.table, Qt.Key.Key_F9)
    assert not window.browser.isVisible()
    window.item_view.setFocus()
    qtbot.keyClick(window.item_view, Qt.Key.Key_F9)
    assert window.browser.isVisible()


def test_settings_persist_dataset_theme_and_panes(qtbot, demo_store, settings, window):
    open_dataset(qtbot, window, "schema_gen")
    window.toggle_theme(True)
    assert theme.current() == "dark"
    window.toggle_browser(False)
    window.splitter.setSizes([300, 1100])
    window.close()  # saves the settings and stops the first window's jobs
    again = None
    try:
        # The restart shows its first item after a chain of four jobs (datasets, dataset state,
        # rows, item), each queued behind the others on a loaded machine: it polled a 5 s clock
        # for ``bundle`` and failed once. It now waits on the signal the item view sends when the
        # item is shown (``loaded``); no job result is delivered before the event loop runs, so
        # connecting right after the constructor misses nothing. The bound is only a hang guard.
        again = MainWindow(demo_store, settings)
        qtbot.addWidget(again)
        with qtbot.waitSignal(again.item_view.loaded, timeout=60000) as shown:
            again.show()
        assert shown.args[0].detail.kind == "schema_gen"
        assert again.item_view.bundle is not None
        assert again.current_dataset().name == "demo-schema_gen"
        assert str(settings.value("theme")) == "dark"
        assert not again.browser.isVisible()
    finally:
        if again is not None:
            again.runner.shutdown(5000)
        window.toggle_theme(False)  # the theme is app-wide: leave it light for other tests


def test_run_picker_lists_runs_and_feeds_the_item_view(qtbot, window):
    layout = open_dataset(qtbot, window, "extraction")
    runs = [window.run_box.itemText(i) for i in range(window.run_box.count())]
    assert runs[0] == "(no run)" and runs[1].startswith("extractor-a") and runs[2].startswith("extractor-b")
    window.run_box.setCurrentIndex(2)
    assert layout.outputs.current().output.run == "extractor-b"


def test_a_filter_the_next_dataset_lacks_falls_back_to_any(qtbot, window):
    open_dataset(qtbot, window, "tool_qa")
    box = window.filters.category
    box.setCurrentIndex(box.findData("FILTERING"))
    assert rows_shown(qtbot, window).rowCount() == 2
    open_dataset(qtbot, window, "extraction")
    qtbot.waitUntil(lambda: window.filters.category.currentData() is None, timeout=5000)
    assert rows_shown(qtbot, window).rowCount() == 1 and window.model.row_at(0).record_id == "bio-1"


def test_job_progress_is_painted_by_the_event_loop_not_inside_the_progress_slot(qtbot, window):
    """QProgressBar.setValue repaints at once whenever the bar moves a chunk, and that
    synchronous repaint painted every pane with pending damage from inside the progress
    slot (a first start's landed samples held the GUI thread that way). The status bar's
    bar must take the new value without any widget painting during the call, and show it
    at the next pass of the event loop."""
    import threading

    from PySide6.QtCore import QEvent, QObject

    from reviewer.jobs import Progress

    open_dataset(qtbot, window, "tool_qa")
    painted: list[str] = []

    class PaintSpy(QObject):
        def eventFilter(self, obj, event):  # noqa: N802 - Qt's name
            if event.type() == QEvent.Type.Paint:
                painted.append(type(obj).__name__)
            return False

    # A job that reports progress runs meanwhile (the bar belongs to it and stays shown);
    # its steps are fed to the slot directly, so each call can be checked on its own.
    release = threading.Event()
    job = window.runner.start("test-progress", lambda ctx: release.wait(30))
    spy = PaintSpy()
    watched = [window.progress, window.table.viewport(), window.item_view]
    for w in watched:
        w.installEventFilter(spy)
    try:
        window._on_progress(Progress(0, 18, "importing", 0.0), job)
        qtbot.waitUntil(lambda: "QProgressBar" in painted, timeout=3000)  # shown and painted by the loop
        for step in (3, 9, 17):
            window.item_view.update()  # pending damage elsewhere, as while samples land
            window.table.viewport().update()
            painted.clear()
            window._on_progress(Progress(step, 18, "importing", 0.1 * step), job)
            assert painted == [], f"painted inside the progress slot at step {step}: {painted}"
            assert window.progress.value() == step and window.progress_text.text() == f"{step * 100 // 18}%"
            qtbot.waitUntil(lambda: "QProgressBar" in painted, timeout=3000)
    finally:
        release.set()
    for w in watched:
        w.removeEventFilter(spy)


def test_a_window_closed_as_an_item_arrives_raises_nothing_later(qtbot, demo_store, settings):
    """Showing an item schedules a fit of the review dock for the next turn of the event loop.
    CI once deleted the window first, and the fit then touched the deleted dock ("Internal C++
    object already deleted" in the event loop). Deferred calls now carry the window as their
    context: deleted with it, they never run."""
    from shiboken6 import delete, isValid

    w = MainWindow(demo_store, settings)  # not given to qtbot: this test deletes it itself
    w.resize(1366, 768)
    w.show()
    qtbot.waitUntil(lambda: bool(w.datasets), timeout=5000)
    open_dataset(qtbot, w, "tool_qa")
    w.runner.shutdown(5000)
    dock = w.review_dock
    w.item_view.loaded.emit(w.item_view.bundle)  # an item arrives: the dock's fit is scheduled
    delete(w)  # and the window goes before the event loop turns again
    assert not isValid(dock)
    # pytest-qt fails the test on any exception raised in the event loop from here on
    for _turn in range(3):
        with qtbot.waitSignal(_next_turn(), timeout=2000):
            pass


def _next_turn():
    """A signal emitted on the event loop's next turn (after what is already queued for it)."""
    from PySide6.QtCore import QTimer

    timer = QTimer(singleShot=True, interval=0)
    timer.start()
    _next_turn.keep = timer
    return timer.timeout
