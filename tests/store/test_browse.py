"""The item browser's extra queries: filter choices (facets) and review state."""

from __future__ import annotations

from reviewer.jobs import silent
from reviewer.store import browse
from reviewer.store.importing import import_dataset
from tests.store import records


def _demo(store, n=9):
    summary = import_dataset(store.engine, records.dataset([records.item(i) for i in range(n)]), silent())
    return summary.dataset_id


def test_facets_count_each_distinct_value(store):
    ds = _demo(store)
    f = browse.facets(store, ds)
    assert f.kinds == [("tool_qa", 9)]
    assert f.categories == [("AGGREGATION", 3), ("EXTRACTIVE", 3), ("FILTERING", 3)]
    assert f.depths == [(1, 3), (2, 2), (3, 2), (4, 2)]
    assert f.difficulties == []  # None values are left out
    assert f.edited == 0


def test_facets_count_edited_gold(store):
    ds = _demo(store, 3)
    item = store.find_item(ds, "q1")
    store.set_gold(item.id, "B", actor="t", expected_version=item.version)
    assert browse.facets(store, ds).edited == 1


def test_facets_of_another_dataset_are_separate(store):
    ds = _demo(store, 3)
    other = import_dataset(
        store.engine, records.dataset([records.item(0, category="ONLY")], name="other"), silent()
    ).dataset_id
    assert browse.facets(store, other).categories == [("ONLY", 1)]
    assert len(browse.facets(store, ds).categories) == 3


def test_review_states_come_from_the_review_core(store):
    from reviewer.review import Draft, Review

    ds = _demo(store, 4)
    ids = [store.find_item(ds, f"q{i}").id for i in range(4)]
    ann, bob = Review(store, "ann"), Review(store, "bob")
    ann.annotate(ids[1], Draft(verdict="pass"), None)
    ann.annotate(ids[2], Draft(verdict="pass"), None)
    bob.annotate(ids[2], Draft(verdict="reject"), None)
    ann.annotate(ids[3], Draft(verdict="pass"), None)
    bob.annotate(ids[3], Draft(verdict="pass"), None)
    states = browse.review_states(store, ids)  # as reports see it: everything
    assert [states[i].label() for i in ids] == [
        "not annotated", "one review (pass)", "disputed (pass vs reject)", "unanimous: pass",
    ]
    assert states[ids[2]].verdicts == ("pass", "reject")
    assert browse.review_states(store, []) == {}

def test_ordered_ids_follow_the_query_order_and_filters(store):
    from reviewer.store.queries import ItemQuery

    ds = _demo(store, 12)
    q = ItemQuery(dataset_id=ds, sort="depth", descending=True)
    ids = list(browse.ordered_ids(store, q))
    assert ids == [r.id for r in store.item_page(q, 0, 100)]
    filtered = ItemQuery(dataset_id=ds, categories=["FILTERING"])
    assert list(browse.ordered_ids(store, filtered)) == [r.id for r in store.item_page(filtered, 0, 100)]


def test_rows_by_ids_keep_the_order_given(store):
    from reviewer.store.queries import ItemQuery

    ds = _demo(store, 6)
    rows = store.item_page(ItemQuery(dataset_id=ds), 0, 10)
    wanted = [rows[4].id, rows[0].id, 10**9, rows[2].id]  # an unknown id is skipped
    assert browse.rows_by_ids(store, wanted) == [rows[4], rows[0], rows[2]]
    assert browse.rows_by_ids(store, []) == []
