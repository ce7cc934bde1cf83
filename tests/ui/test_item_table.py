"""The paged item table model: Qt's model contract, paging on demand, SQL sorting,
review state and scores."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt

from reviewer.jobs import silent
from reviewer.store import Store
from reviewer.store.importing import import_dataset, import_run
from reviewer.store.models import Output, Score
from reviewer.store.queries import ItemQuery
from tests.store import records
from tests.ui.modeltest import model_tester
from reviewer_ui.models.item_table import COL, ItemTableModel


@pytest.fixture
def big_store(tmp_path):
    store = Store(str(tmp_path / "big.sqlite3"))
    summary = import_dataset(store.engine, records.dataset([records.item(i) for i in range(1000)]), silent())
    store.dataset_id = summary.dataset_id
    yield store
    store.close()


def _model(store, qtbot, **kw):
    model = ItemTableModel(store, page_size=50, **kw)
    model.set_query(ItemQuery(dataset_id=store.dataset_id))
    return model


def test_model_passes_qt_model_tester(big_store, qtbot):
    model = _model(big_store, qtbot)
    with model_tester(model):  # kept alive: it checks every change below
        model.sort(COL["ID"], Qt.SortOrder.DescendingOrder)
        model.set_query(ItemQuery(dataset_id=big_store.dataset_id, text="question number 99"))


def test_only_the_pages_asked_for_are_fetched(big_store, qtbot):
    model = _model(big_store, qtbot, max_pages=4)
    assert model.rowCount() == 1000
    assert model.pages_fetched == 0
    assert model.data(model.index(0, COL["ID"])) == "q0"
    assert model.data(model.index(49, COL["ID"])) == "q49"
    assert model.pages_fetched == 1
    assert model.data(model.index(975, COL["ID"])) == "q975"
    assert model.pages_fetched == 2
    for start in range(100, 400, 50):
        model.data(model.index(start, 0))
    assert len(model._pages) == 4  # the cache stays bounded
    assert model.data(model.index(0, COL["ID"])) == "q0"  # evicted, fetched again
    assert model.pages_fetched == 9


def test_sorting_happens_in_sql(big_store, qtbot):
    model = _model(big_store, qtbot)
    model.sort(COL["Depth"], Qt.SortOrder.DescendingOrder)
    assert model.query().sort == "depth" and model.query().descending
    depths = [int(model.data(model.index(r, COL["Depth"]))) for r in range(0, 1000, 97)]
    assert depths == sorted(depths, reverse=True)
    before = model.query()
    model.sort(COL["Question"], Qt.SortOrder.AscendingOrder)  # not sortable in SQL: ignored
    assert model.query() == before


def test_filters_change_the_count(big_store, qtbot):
    model = _model(big_store, qtbot)
    counts = []
    model.query_changed.connect(counts.append)
    model.set_query(ItemQuery(dataset_id=big_store.dataset_id, categories=["FILTERING"], depths=[2]))
    assert counts == [model.rowCount()] and 0 < model.rowCount() < 1000
    row = model.row_at(0)
    assert row.category == "FILTERING" and row.depth == 2


def test_review_state_and_scores_columns(big_store, qtbot):
    ds = big_store.dataset_id
    run = import_run(big_store.engine, ds, records.run([records.output(0), records.output(1)]), silent())
    q0, q1 = big_store.find_item(ds, "q0").id, big_store.find_item(ds, "q1").id
    from reviewer.review import Draft, Review

    Review(big_store, "ann").annotate(q1, Draft(verdict="reject"), None)  # the core keeps the stage
    with big_store.engine.begin() as conn:
        outputs = dict(conn.execute(Output.__table__.select().with_only_columns(
            Output.__table__.c.item_id, Output.__table__.c.id)).all())
        conn.execute(Score.__table__.insert(), [
            {"output_id": outputs[q0], "scorer": "s", "mode": "faithful", "value": 1.0},
            {"output_id": outputs[q1], "scorer": "s", "mode": "faithful", "value": 0.0},
        ])
    model = _model(big_store, qtbot)
    assert model.data(model.index(0, COL["Review"])) == "not annotated"
    assert model.data(model.index(1, COL["Review"])) == "one review (reject)"
    assert model.data(model.index(0, COL["Score"])) == ""  # no run selected
    model.set_scores(big_store.run_scores(run.run_id))
    assert [model.data(model.index(r, COL["Score"])) for r in range(3)] == ["1", "0", "—"]


def test_edited_gold_is_shown(big_store, qtbot):
    item = big_store.find_item(big_store.dataset_id, "q2")
    big_store.set_gold(item.id, "B", actor="t", expected_version=item.version)
    model = _model(big_store, qtbot)
    assert model.data(model.index(2, COL["Gold"])) == "edited"
    assert model.data(model.index(3, COL["Gold"])) == ""
