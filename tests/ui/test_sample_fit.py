"""The bundled sample datasets read at a 1366x768 laptop screen (and stay good at 1920x1080),
as a first-time user opens them in the window: the item list's Score column is in view with its
values whole for every kind, a NesTools item's Error tags show several rows without scrolling the
review panel, and the BFCL Parameters tab keeps every value whole (no sideways clipping, no value
broken in the middle of a word). Screenshots go to $FIT_SHOTS (default /tmp/fit-shots/)."""

from __future__ import annotations

import os

import pytest
from PySide6.QtCore import QPoint, QRect
from PySide6.QtGui import QTextDocument, QTextOption

from reviewer.samples import ensure_samples
from reviewer.store import Store
from reviewer_ui.models.item_table import COL
from tests.ui.conftest import shown_main_window
from tools.fitcheck import CELL_PADDING

SIZES = [(1366, 768), (1920, 1080)]
SHOTS = os.environ.get("FIT_SHOTS", "/tmp/fit-shots")


@pytest.fixture(scope="module")
def samples_db(tmp_path_factory):
    """Every bundled sample, its runs scored (faithful), as the app's first start leaves them."""
    path = tmp_path_factory.mktemp("samples") / "samples.sqlite3"
    store = Store(str(path))
    ensure_samples(store, score=True)
    store.close()
    return path


@pytest.fixture
def samples_store(samples_db):
    store = Store(str(samples_db))
    yield store
    store.close()


def _shot(widget, name: str) -> None:
    os.makedirs(SHOTS, exist_ok=True)
    widget.grab().save(os.path.join(SHOTS, f"{name}.png"))


def _open(qtbot, w, dataset) -> None:
    w.select_dataset(dataset.name)
    qtbot.waitUntil(lambda: w.item_view.bundle is not None and w.item_view.bundle.detail.kind == dataset.kind,
                    timeout=5000)


def _score_problem(w) -> str | None:
    """Why the Score column of the item list cannot be read, or None."""
    table, model = w.table, w.model
    header = table.horizontalHeader()
    column = COL["Score"]
    left, width = header.sectionViewportPosition(column), header.sectionSize(column)
    if table.isColumnHidden(column) or left < 0 or left + width > table.viewport().width() + 1:
        return f"Score column at {left}..{left + width} px of a {table.viewport().width()} px list"
    metrics = table.fontMetrics()
    for row in range(model.rowCount()):
        text = str(model.data(model.index(row, column)) or "")
        if metrics.horizontalAdvance(text) + CELL_PADDING > width:
            return f"score {text!r} needs {metrics.horizontalAdvance(text) + CELL_PADDING} px, has {width} px"
    return None


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_every_sample_shows_its_score_column_whole(qtbot, samples_store, settings, size):
    w = shown_main_window(qtbot, samples_store, settings, size=size)
    try:
        cut = {}
        for dataset in samples_store.datasets():
            _open(qtbot, w, dataset)
            qtbot.waitUntil(lambda: w.model.has_scores() and w.model.rowCount() > 0
                            and w.model.data(w.model.index(0, COL["Score"])) not in (None, ""), timeout=5000)
            try:  # the columns are fitted in a posted event once the rows are in
                qtbot.waitUntil(lambda: _score_problem(w) is None, timeout=5000)
            except qtbot.TimeoutError:
                cut[dataset.name] = _score_problem(w)
            _shot(w, f"score-{dataset.name}-{size[0]}x{size[1]}")
        assert cut == {}, cut
    finally:
        w.runner.shutdown(5000)


def _params_overflow(pane) -> str | None:
    """Why the Parameters tab cannot be read whole, or None: laid out with breaks at word
    boundaries only, its text must fit the pane's width (a value broken inside a word, such as
    'America/New_Yor' + 'k', or a column clipped at the pane's edge, needs more)."""
    width = pane.viewport().width()
    doc = pane.document().clone()
    option = QTextOption(doc.defaultTextOption())
    option.setWrapMode(QTextOption.WrapMode.WordWrap)
    doc.setDefaultTextOption(option)
    doc.setTextWidth(width)
    if doc.idealWidth() > width + 1:
        return f"needs {doc.idealWidth():.0f} px to keep its values whole, has {width} px"
    if pane.horizontalScrollBar().maximum() > 0:
        return "scrolls sideways"
    return None


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_bfcl_parameters_keep_their_values_whole(qtbot, samples_store, settings, size):
    w = shown_main_window(qtbot, samples_store, settings, size=size)
    try:
        _open(qtbot, w, next(d for d in samples_store.datasets() if d.kind == "function_call"))
        layout = w.item_view.current_layout()
        layout.tabs.setCurrentWidget(layout.params)
        cut = {}
        for row in range(w.model.rowCount()):
            w.select_row(row)
            qtbot.waitUntil(lambda: w.item_view.bundle.detail.record_id == w.model.data(w.model.index(row, 0)),
                            timeout=5000)
            for run in range(1, w.run_box.count()):
                w.run_box.setCurrentIndex(run)
                where = f"{w.item_view.bundle.detail.record_id} / {w.run_box.currentText().split()[0]}"
                try:
                    qtbot.waitUntil(lambda: _params_overflow(layout.params) is None, timeout=1000)
                except qtbot.TimeoutError:
                    cut[where] = _params_overflow(layout.params)
                    _shot(w, f"bfcl-params-{where.replace(' / ', '-')}-{size[0]}x{size[1]}")
        w.select_row(next(r for r in range(w.model.rowCount()) if w.model.data(w.model.index(r, 0)) == "simple_2"))
        qtbot.waitUntil(lambda: w.item_view.bundle.detail.record_id == "simple_2", timeout=5000)
        _shot(w, f"bfcl-params-simple_2-{size[0]}x{size[1]}")
        assert cut == {}, cut
    finally:
        w.runner.shutdown(5000)


def _tags_in_view(panel) -> int:
    """How many px of the Error tags tree the Annotate tab shows without scrolling the panel."""
    tags = panel.tags
    area = panel.parentWidget().parentWidget()  # the Annotate tab's scroll area (viewport, then area)
    area.verticalScrollBar().setValue(0)  # as the item opens
    box = QRect(tags.mapTo(area.viewport(), QPoint(0, 0)), tags.size())
    return box.intersected(area.viewport().rect()).height()


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_a_nestools_item_shows_its_error_tags(qtbot, samples_store, settings, size):
    w = shown_main_window(qtbot, samples_store, settings, size=size)
    try:
        _open(qtbot, w, next(d for d in samples_store.datasets() if d.kind == "call_chain"))
        panel = w.review.annotation
        qtbot.waitUntil(lambda: panel.detail is not None and not panel.loading and panel.tags.isEnabled()
                        and w.review.session.signed_in, timeout=10000)
        rows = 4  # a taxonomy's title and three of its tags at least
        need = rows * panel.tags.sizeHintForRow(0)
        try:
            qtbot.waitUntil(lambda: _tags_in_view(panel) >= need, timeout=3000)
        finally:
            _shot(w, f"nestools-tags-{size[0]}x{size[1]}")
            w.review_dock.grab().save(os.path.join(SHOTS, f"nestools-tags-dock-{size[0]}x{size[1]}.png"))
        assert _tags_in_view(panel) >= need
    finally:
        qtbot.waitUntil(lambda: w.runner.active == 0, timeout=10000)
        w.runner.shutdown(5000)
