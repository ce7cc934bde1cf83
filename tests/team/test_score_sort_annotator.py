"""The item table sorted by score as a team's annotator (issue 14): only their assigned
items, in the score order everyone sees (ties by position, items without a score last),
on every page. Under row-level security ``page_items`` keeps the per-item lookup (a walk
of the score index would check the policies on every run's scores): the order must be
the same as for the owner, restricted to the assigned items."""

from __future__ import annotations

import pytest
from sqlalchemy import text

from reviewer.store import Store, browse
from reviewer.store.queries import ItemQuery
from tests.store.test_score_sort import N, _expected, _scored_dataset


@pytest.mark.parametrize("descending", [False, True], ids=["ascending", "descending"])
def test_annotator_sees_assigned_items_in_score_order(team, descending):
    owner = Store(team.admin_url)
    ds, run = _scored_dataset(owner)
    with owner.engine.begin() as conn:  # alice: every third position
        pos = dict(conn.execute(text("select position, id from item where dataset_id = :ds"), {"ds": ds}).all())
        conn.execute(text("insert into assignment (dataset_id, item_id, annotator, created_at) "
                          "select :ds, unnest(cast(:ids as int[])), :who, now()"),
                     {"ds": ds, "ids": [pos[p] for p in range(0, N, 3)], "who": team.logins["alice"]})
    owner.close()
    alice = team.store("alice")
    query = ItemQuery(ds, sort="score", score_run_id=run, descending=descending)
    expected = [p for p in _expected(descending) if p % 3 == 0]
    assert [r.position for r in alice.item_page(query, 0, N)] == expected
    assert [r.position for r in alice.item_page(query, 2, 3)] == expected[2:5]
    by_id = {r.id: r.position for r in alice.item_page(query, 0, N)}
    assert [by_id[i] for i in browse.ordered_ids(alice, query)] == expected
    alice.close()
