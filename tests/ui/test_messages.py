"""Small things a user reads: ids elide in the middle with the whole id in the
tooltip; the Review column has a tooltip; the tool-QA header shows payload text
as it is (no HTML entities); Ctrl+J on an unscored run says the run is not
scored; a job's step message leaves the status bar when no job runs."""

from __future__ import annotations

from PySide6.QtCore import Qt

from tests.ui.conftest import open_dataset
from reviewer_ui.models.item_table import COL


def test_ids_and_review_states_have_their_whole_text_in_a_tooltip(qtbot, window):
    open_dataset(qtbot, window, "tool_qa")
    assert window.table.textElideMode() == Qt.TextElideMode.ElideMiddle
    m = window.model
    index = m.index(0, COL["ID"])
    assert m.data(index, Qt.ItemDataRole.ToolTipRole) == m.data(index, Qt.ItemDataRole.DisplayRole)
    # The Review cell shows the short form (it reads whole in the narrow column); the tooltip the sentence.
    index = m.index(0, COL["Review"])
    assert m.data(index, Qt.ItemDataRole.DisplayRole) == "not reviewed"
    assert m.data(index, Qt.ItemDataRole.ToolTipRole) == "not reviewed by you yet"


def test_tool_qa_header_shows_quotes_not_entities(qtbot, window):
    layout = open_dataset(qtbot, window, "tool_qa")
    assert layout.meta.textFormat() == Qt.TextFormat.PlainText
    bundle = window.item_view.bundle
    bundle.detail.payload = dict(bundle.detail.payload or {}, api_query='{"city": "Lisbon"}')
    layout.fill_left(bundle)
    assert 'api_query: {"city": "Lisbon"}' in layout.meta.text() and "&quot;" not in layout.meta.text()


def test_ctrl_j_on_an_unscored_run_says_it_is_not_scored(qtbot, window):
    open_dataset(qtbot, window, "tool_qa")
    qtbot.waitUntil(lambda: window.current_run_id() is not None, timeout=5000)
    qtbot.waitUntil(lambda: window.model._scores is not None, timeout=5000)
    assert not window.model.has_scores()  # the demo's runs are not scored
    window.next_failing()
    assert "no faithful scores yet" in window.statusBar().currentMessage()
    assert "No failing item" not in window.statusBar().currentMessage()


def test_job_step_messages_leave_the_status_bar(qtbot, window):
    from reviewer.jobs import Progress

    open_dataset(qtbot, window, "tool_qa")
    window._on_progress(Progress(1, 2, "reading stored scores", 0.1))  # as a job reports its step
    assert window.statusBar().currentMessage() == "reading stored scores"
    window._on_active(0)  # the last job ended
    assert window.statusBar().currentMessage() == ""


def test_tool_selection_diff_compares_the_chosen_tools_element_by_element(qtbot, window):
    layout = open_dataset(qtbot, window, "tool_select")
    layout.tabs.setCurrentWidget(layout.diff)
    window.run_box.setCurrentIndex(window.run_box.findText("selector-b", Qt.MatchFlag.MatchStartsWith))
    qtbot.waitUntil(lambda: layout.diff.result is not None
                    and layout.diff.title_right.text().startswith("Output of selector-b"), timeout=5000)
    assert "raw text" not in layout.diff.title_right.text()
    kinds = {c.path_text for c in layout.diff.result.changes}
    assert kinds and all(p.startswith("$[") for p in kinds), kinds  # per element, not "type changed $"


def test_the_percentage_stands_beside_the_bar_in_full(qtbot, window):
    from reviewer.jobs import Progress

    window._on_progress(Progress(5, 10, "", 1.0))
    assert not window.progress.isTextVisible()  # not drawn across the bar's fill edge
    assert window.progress_text.text() == "50%" and window.progress_text.isVisible()
    assert window.progress_text.width() >= window.progress_text.sizeHint().width()
    window._on_active(0)
    assert not window.progress_text.isVisible()


def test_the_progress_bar_goes_with_its_job_while_a_quick_job_still_runs(qtbot, window):
    """A job that reported progress ends while another (a save, an item's review state) still
    runs: its bar, percentage, Cancel and step message go at once, not when the runner is idle."""
    import threading

    from reviewer.jobs import Progress

    open_dataset(qtbot, window, "tool_qa")
    qtbot.waitUntil(lambda: window.runner.active == 0, timeout=10000)
    release = threading.Event()

    def quick_but_blocked(ctx):
        release.wait(10)

    def reporting(ctx):
        ctx.progress(3, 3, "reading stored scores")

    try:
        window.runner.start("test-blocked", quick_but_blocked)
        with qtbot.waitSignal(window.runner.job("test-blocked").done, timeout=15000, raising=False):
            reporting_job = window.runner.start("test-reporting", reporting)
            with qtbot.waitSignal(reporting_job.done, timeout=10000):
                pass
            assert window.runner.is_running("test-blocked")
            assert not window.progress.isVisible() and not window.progress_text.isVisible()
            assert not window.cancel_button.isVisible()
            assert window.statusBar().currentMessage() != "reading stored scores"
            release.set()
    finally:
        release.set()
