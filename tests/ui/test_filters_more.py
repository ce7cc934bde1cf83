"""The item browser's run-aware filters through the real main window, on the
bundled samples: review state, score range, runs that disagree, the score mode
(which the Score column follows), multi-select, saved filters, sorting by score
and review in SQL, and Ctrl+J / Ctrl+K to the next / previous failing item."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt

from reviewer.review.annotate import save_annotation
from reviewer.review.rubric import Draft
from reviewer.samples import ensure_samples
from reviewer.scoring.job import score_run
from reviewer.store import ItemQuery
from tests.ui.conftest import rows_shown, shown_main_window
from reviewer_ui.models.item_table import COL

SELECTION = "sample-tool-selection"  # 32 items, runs careful-nlt (3 fail) and hasty-nlt (10 fail)


@pytest.fixture
def sample_store(tmp_path):
    """The bundled samples; both tool-selection runs scored (faithful), the call-chain
    runs scored in both modes; three tool-selection items annotated."""
    from reviewer.store import Store

    store = Store(str(tmp_path / "samples.sqlite3"))
    ensure_samples(store)
    ds = store.dataset(SELECTION)
    for run in store.runs(ds.id):
        score_run(store, run.id)
    for run in store.runs(store.dataset("sample-call-chains").id):
        score_run(store, run.id)
        score_run(store, run.id, mode="fixed")
    rows = store.item_page(ItemQuery(dataset_id=ds.id), 0, 100)
    ok = Draft(verdict="pass", ambiguity="low")
    save_annotation(store, rows[4].id, "alice", ok, None)  # in review
    save_annotation(store, rows[2].id, "alice", ok, None)  # settled (both agree)
    save_annotation(store, rows[2].id, "bob", ok, None)
    save_annotation(store, rows[6].id, "alice", ok, None)  # disagreement
    save_annotation(store, rows[6].id, "bob", Draft(verdict="reject", ambiguity="high"), None)
    store.annotated = {"in_review": rows[4].id, "settled": rows[2].id, "disagreement": rows[6].id}
    yield store
    store.close()


@pytest.fixture
def win(qtbot, sample_store, settings):
    w = shown_main_window(qtbot, sample_store, settings)
    yield w
    w.runner.shutdown(5000)


def _open(qtbot, win, name: str, run: str | None = None):
    """Show dataset ``name`` with ``run`` picked (None: "(no run)"); wait for its scores."""
    store = win.store
    names = [r.name for r in store.runs(store.dataset(name).id)]
    win.select_dataset(name)
    qtbot.waitUntil(lambda: [win.run_box.itemText(i).split("  (")[0] for i in range(1, win.run_box.count())] == names
                    and win.filters.run_id() is not None, timeout=5000)
    index = 0 if run is None else next(i for i in range(win.run_box.count())
                                       if win.run_box.itemText(i).startswith(run + "  ("))
    win.run_box.setCurrentIndex(index)
    qtbot.waitUntil(lambda: win.filters.run_id() == win.run_box.currentData() and not win.runner.is_running("scores")
                    and (run is None) == (win.model._scores is None), timeout=5000)
    return win.current_dataset(), win.current_run_id()


def _shown_ids(qtbot, win) -> list[int]:
    model = rows_shown(qtbot, win)
    return [model.item_id(r) for r in range(model.rowCount())]


def _score_cells(qtbot, win) -> list[str]:
    model = rows_shown(qtbot, win)
    return [model.index(r, COL["Score"]).data() for r in range(model.rowCount())]


def _row_count(qtbot, win) -> int:
    return rows_shown(qtbot, win).rowCount()


def _run_id(store, dataset: str, run: str) -> int:
    return next(r.id for r in store.runs(store.dataset(dataset).id) if r.name == run)


def test_review_state_filter_shows_items_at_that_stage(qtbot, win, sample_store):
    _open(qtbot, win, SELECTION, "careful-nlt")
    box = win.filters.review
    for label, state in (("In review", "in_review"), ("Settled", "settled"), ("Disagreement", "disagreement")):
        box.setCurrentText(label)
        assert _shown_ids(qtbot, win) == [sample_store.annotated[state]], label
        wanted = sample_store.annotated[state]
        qtbot.waitUntil(lambda wanted=wanted: win.item_view.bundle is not None
                        and win.item_view.bundle.detail.id == wanted, timeout=5000)
    box.setCurrentText("Not annotated")
    assert _row_count(qtbot, win) == 29 and not set(_shown_ids(qtbot, win)) & set(sample_store.annotated.values())
    assert "29 of 32 items" in win.count_label.text()
    box.setCurrentText("Any")
    assert _row_count(qtbot, win) == 32


def test_score_range_uses_the_selected_run_and_is_off_without_one(qtbot, win, sample_store):
    _ds, run_id = _open(qtbot, win, SELECTION, "hasty-nlt")
    scores = sample_store.run_scores(run_id)
    f = win.filters
    assert f.score_range.isEnabled()
    f.score_max.setValue(0.5)
    f.score_range.setChecked(True)
    failing = {i for i, v in scores.items() if v <= 0.5}
    assert len(failing) == 10
    assert set(_shown_ids(qtbot, win)) == failing
    assert set(_score_cells(qtbot, win)) == {"0"}  # the Score column shows the same run
    with qtbot.waitSignal(win.model.query_changed, timeout=3000):  # bounds are debounced while typed
        f.score_min.setValue(0.5)
        f.score_max.setValue(1.0)
    assert set(_shown_ids(qtbot, win)) == set(scores) - failing
    # Another run: the same range now reads that run's scores.
    other = _run_id(sample_store, SELECTION, "careful-nlt")
    win.run_box.setCurrentIndex(win.run_box.findData(other))
    qtbot.waitUntil(lambda: not win.model.loading() and win.model.rowCount() == 29, timeout=5000)
    # No run: the range cannot apply, so it is disabled and ignored.
    win.run_box.setCurrentIndex(0)
    qtbot.waitUntil(lambda: not win.model.loading() and win.model.rowCount() == 32, timeout=5000)
    assert not f.score_range.isEnabled() and f.score_range.isChecked()
    assert win.model.query().score_min is None and "pick a run" in f.score_note.text()


def test_runs_disagree_lists_other_runs_and_keeps_items_whose_verdicts_differ(qtbot, win, sample_store):
    _ds, careful = _open(qtbot, win, SELECTION, "careful-nlt")
    hasty = _run_id(sample_store, SELECTION, "hasty-nlt")
    box = win.filters.disagree
    assert [box.itemText(i) for i in range(box.count())] == ["(no other run)", "hasty-nlt"]
    a, b = sample_store.run_scores(careful), sample_store.run_scores(hasty)
    differ = {i for i in a if (a[i] == 1.0) != (b[i] == 1.0)}
    assert differ and len(differ) < 32
    box.setCurrentIndex(1)
    assert set(_shown_ids(qtbot, win)) == differ
    assert win.model.query().runs_disagree == (careful, hasty)
    # Picking the other run in the toolbar: the picker offers the first run instead.
    win.run_box.setCurrentIndex(win.run_box.findData(hasty))
    qtbot.waitUntil(lambda: not win.model.loading() and win.model.rowCount() == 32, timeout=5000)
    assert [box.itemText(i) for i in range(box.count())] == ["(no other run)", "careful-nlt"]


def test_categories_can_be_ticked_together(qtbot, win):
    _open(qtbot, win, "sample-tool-qa", "alpha-7b direct")
    box = win.filters.category
    assert box.summary() == "Any"
    box.showPopup()
    view = box.view()
    qtbot.waitUntil(view.isVisible, timeout=3000)
    rows = {box.itemData(i): i for i in range(1, box.count())}
    for value in ("FILTERING", "AGGREGATION"):
        rect = view.visualRect(box.model().index(rows[value], 0))
        qtbot.mouseClick(view.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    assert view.isVisible(), "ticking keeps the list open"
    assert box.checked() == ["AGGREGATION", "FILTERING"] and box.summary() == "2 of 3"
    assert _row_count(qtbot, win) == 4
    assert {win.model.row_at(r).category for r in range(4)} == {"AGGREGATION", "FILTERING"}
    rect = view.visualRect(box.model().index(0, 0))  # "Any" clears and closes
    qtbot.mouseClick(view.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    qtbot.waitUntil(lambda: not view.isVisible(), timeout=3000)
    assert box.checked() == [] and _row_count(qtbot, win) == 6


def test_saved_filters_restore_every_new_field(qtbot, win, sample_store, settings):
    _open(qtbot, win, SELECTION, "careful-nlt")
    f = win.filters
    f.category.set_checked(["customer_service", "mental_health"])
    f.review.setCurrentText("Not annotated")
    f.disagree.setCurrentIndex(1)
    f.score_mode.setCurrentText("fixed")
    f.score_range.setChecked(True)
    f.score_min.setValue(0.25)
    qtbot.waitUntil(lambda: win.model.query().score_min == 0.25, timeout=3000)
    saved, rows = f.state(), _shown_ids(qtbot, win)
    f.save_as("triage")
    f.clear()
    assert f.state()["review"] is None and f.mode() == "faithful" and f.disagree_run_name() is None
    assert _row_count(qtbot, win) == 32
    f.load_saved("triage")
    assert f.state() == saved and _shown_ids(qtbot, win) == rows
    assert win.model.query().score_mode == "fixed" and win.model.query().review == "unannotated"
    # A restarted app reads them back from the settings file.
    from reviewer_ui.views.filter_bar import FilterBar

    settings.sync()
    again = FilterBar(settings)
    qtbot.addWidget(again)
    stored = again.saved_filters()["triage"]
    assert stored["disagree_run"] == "hasty-nlt" and stored["score_mode"] == "fixed"
    assert stored["categories"] == ["customer_service", "mental_health"] and stored["score_min"] == 0.25


def test_filters_saved_before_multi_select_still_load(qtbot, win, settings):
    _open(qtbot, win, "sample-tool-qa", "alpha-7b direct")
    settings.setValue("filters/saved", '{"old": {"text": "", "kind": null, "category": "FILTERING", '
                                       '"depth": null, "gold": "Any"}}')
    win.filters.load_saved("old")
    assert win.filters.category.checked() == ["FILTERING"] and _row_count(qtbot, win) == 2


def _focus_table(qtbot, win):
    win.activateWindow()
    win.table.setFocus()
    qtbot.waitUntil(lambda: win.table.hasFocus(), timeout=3000)


def test_ctrl_j_and_ctrl_k_walk_the_failing_items_of_the_selected_run(qtbot, win, sample_store):
    _ds, hasty = _open(qtbot, win, SELECTION, "hasty-nlt")
    scores = sample_store.run_scores(hasty)
    failing_rows = [r for r in range(win.model.rowCount()) if scores[win.model.item_id(r)] < 1]
    assert len(failing_rows) == 10
    qtbot.waitUntil(lambda: win.current_row() == 0, timeout=5000)
    _focus_table(qtbot, win)

    def walk(key, expected):
        for row in expected:
            qtbot.keyClick(win.table, key, Qt.KeyboardModifier.ControlModifier)
            qtbot.waitUntil(lambda row=row: win.current_row() == row and win.item_view.bundle is not None
                            and win.item_view.bundle.detail.id == win.model.item_id(row), timeout=5000)

    walk(Qt.Key.Key_J, [r for r in failing_rows if r > 0])
    qtbot.keyClick(win.table, Qt.Key.Key_J, Qt.KeyboardModifier.ControlModifier)
    qtbot.waitUntil(lambda: "No failing item after" in win.statusBar().currentMessage(), timeout=5000)
    assert win.current_row() == failing_rows[-1]
    walk(Qt.Key.Key_K, failing_rows[-2::-1])
    qtbot.keyClick(win.table, Qt.Key.Key_K, Qt.KeyboardModifier.ControlModifier)
    qtbot.waitUntil(lambda: "No failing item before" in win.statusBar().currentMessage(), timeout=5000)


def test_next_failing_follows_the_table_order_and_needs_a_run(qtbot, win, sample_store):
    _open(qtbot, win, SELECTION, "hasty-nlt")
    win.table.sortByColumn(COL["Score"], Qt.SortOrder.DescendingOrder)  # the header click
    assert win.model.query().sort == "score" and win.model.query().descending
    cells = _score_cells(qtbot, win)
    assert cells[:22] == ["1"] * 22 and cells[22:] == ["0"] * 10  # sorted in SQL, passing first
    win.select_row(0)
    win.next_failing()
    qtbot.waitUntil(lambda: win.current_row() == 22, timeout=5000)
    win.run_box.setCurrentIndex(0)  # no run: nothing to sort by or fail
    qtbot.waitUntil(lambda: win.model.query().sort == "position", timeout=5000)
    assert win.table.horizontalHeader().sortIndicatorSection() == -1
    win.next_failing()
    assert "Pick a run first" in win.statusBar().currentMessage()


def test_score_column_and_score_sort_follow_the_score_mode(qtbot, win, sample_store):
    _ds, run = _open(qtbot, win, "sample-call-chains", "chainsmith-8b")
    faithful, fixed = sample_store.run_scores(run), sample_store.run_scores(run, mode="fixed")
    changed = [i for i in faithful if faithful[i] != fixed[i]]
    assert len(changed) == 1, "the sample has one call chain the fixed scorer judges differently"
    row = _shown_ids(qtbot, win).index(changed[0])
    cell = win.model.index(row, COL["Score"])
    assert cell.data() == f"{faithful[changed[0]]:.3g}" and "faithful" in cell.data(Qt.ItemDataRole.ToolTipRole)
    win.table.sortByColumn(COL["Score"], Qt.SortOrder.AscendingOrder)
    win.filters.score_mode.setCurrentText("fixed")
    qtbot.waitUntil(lambda: not win.runner.is_running("scores"), timeout=5000)
    row = _shown_ids(qtbot, win).index(changed[0])
    cell = win.model.index(row, COL["Score"])
    assert cell.data() == f"{fixed[changed[0]]:.3g}" and "fixed" in cell.data(Qt.ItemDataRole.ToolTipRole)
    query = win.model.query()
    assert (query.sort, query.score_mode) == ("score", "fixed")
    assert [fixed[i] for i in _shown_ids(qtbot, win)] == sorted(fixed[i] for i in _shown_ids(qtbot, win))


def test_review_column_sorts_by_progress(qtbot, win, sample_store):
    _open(qtbot, win, SELECTION, "careful-nlt")
    win.table.sortByColumn(COL["Review"], Qt.SortOrder.DescendingOrder)
    a = sample_store.annotated
    assert _shown_ids(qtbot, win)[:3] == [a["settled"], a["disagreement"], a["in_review"]]
    assert [win.model.index(r, COL["Review"]).data() for r in range(3, 32)] == ["not reviewed"] * 29  # an annotator's view (blind)
    tip = win.model.index(3, COL["Review"]).data(Qt.ItemDataRole.ToolTipRole)
    assert tip == "not reviewed by you yet"  # the cell is short; its tooltip says it whole
