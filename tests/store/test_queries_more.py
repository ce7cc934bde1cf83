"""Item queries beyond filtering: sorting by review state, and jumping to the next
item a run fails in whatever order the table shows (reviewer.store.navigation)."""

from __future__ import annotations

import pytest

from reviewer.store import ItemQuery
from reviewer.store.navigation import failing_row

RANK = {"unannotated": 0, "in_review": 1, "disagreement": 2, "settled": 3}


@pytest.fixture
def scored(store):
    """The tool-selection sample with both runs scored (faithful) and three items annotated."""
    from reviewer.review.annotate import save_annotation
    from reviewer.review.rubric import Draft
    from reviewer.samples import ensure_samples
    from reviewer.scoring.job import score_run

    ensure_samples(store)
    ds = store.dataset("sample-tool-selection")
    runs = store.runs(ds.id)
    for run in runs:
        score_run(store, run.id)
    rows = store.item_page(ItemQuery(dataset_id=ds.id), 0, 1000)
    ok = Draft(verdict="pass", ambiguity="low")
    save_annotation(store, rows[5].id, "alice", ok, None)  # in review
    save_annotation(store, rows[3].id, "alice", ok, None)  # settled (both agree)
    save_annotation(store, rows[3].id, "bob", ok, None)
    save_annotation(store, rows[1].id, "alice", ok, None)  # disagreement
    save_annotation(store, rows[1].id, "bob", Draft(verdict="reject", ambiguity="high"), None)
    return store, ds, runs, rows


def _states(store, ds_id):
    return {r.id: state for state in RANK for r in store.item_page(ItemQuery(dataset_id=ds_id, review=state), 0, 1000)}


def test_sort_by_review_state_orders_by_progress_with_position_breaking_ties(scored):
    store, ds, _runs, rows = scored
    states = _states(store, ds.id)
    up = store.item_page(ItemQuery(dataset_id=ds.id, sort="review"), 0, 1000)
    assert len(up) == len(rows)
    assert [(RANK[states[r.id]], r.position) for r in up] == sorted((RANK[states[r.id]], r.position) for r in up)
    assert [states[r.id] for r in up[-3:]] == ["in_review", "disagreement", "settled"]
    down = store.item_page(ItemQuery(dataset_id=ds.id, sort="review", descending=True), 0, 3)
    assert [r.id for r in down] == [rows[3].id, rows[1].id, rows[5].id]


def test_unknown_sort_names_the_choices(store):
    with pytest.raises(ValueError, match="review, score"):
        store.item_page(ItemQuery(dataset_id=1, sort="colour"), 0, 10)


def _failing_rows(store, query, run_id):
    scores = store.run_scores(run_id)
    shown = store.item_page(query, 0, 1000)
    return [i for i, r in enumerate(shown) if scores.get(r.id) is not None and scores[r.id] < 1]


def _walk(store, query, run_id, forward):
    found, row = [], -1 if forward else 10_000
    while (row := failing_row(store, query, run_id, "faithful", row, forward)) is not None:
        found.append(row)
    return found


@pytest.mark.parametrize("query_args", [
    {},  # position order
    {"sort": "record_id", "descending": True},
    {"sort": "score", "descending": True},  # the failing items come last
    {"text": "a"},  # filtered: rows count within the filtered table
])
def test_failing_row_walks_the_failing_items_in_table_order(scored, query_args):
    store, ds, (a, _b), _rows = scored
    query = ItemQuery(dataset_id=ds.id, **query_args)
    if query.sort == "score":
        query.score_run_id = a.id
    expected = _failing_rows(store, query, a.id)
    assert expected, "the sample run fails some items"
    assert len(expected) < store.count_items(query), "and passes others"
    assert _walk(store, query, a.id, forward=True) == expected
    assert _walk(store, query, a.id, forward=False) == expected[::-1]


def test_failing_row_past_the_last_failure_is_none_and_other_run_differs(scored):
    store, ds, (a, b), _rows = scored
    query = ItemQuery(dataset_id=ds.id)
    last = _failing_rows(store, query, a.id)[-1]
    assert failing_row(store, query, a.id, "faithful", last, True) is None
    assert failing_row(store, query, a.id, "fixed", -1, True) is None  # never scored in fixed mode
    assert _walk(store, query, b.id, True) == _failing_rows(store, query, b.id) != _failing_rows(store, query, a.id)
