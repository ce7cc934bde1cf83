"""Sorting the item table by a run's score (issue 14), on SQLite and PostgreSQL.

What a user sees: items in score order, ties in position order, items without a score
(no output, an output not scored, a skipped score without a value) last in both
directions; descending reverses the scored items. Every page read by ``page_items``
(which walks the score index, queries._score_page) agrees with the whole order
(``browse.ordered_ids``, the id list the table pages by later), at any page boundary,
whether a page ends inside a small or a large group of equal scores. A version 5
database gets the score sort index by the upgrade.
"""

from __future__ import annotations

import pytest
from sqlalchemy import event, inspect, select, text

from reviewer.jobs import silent
from reviewer.store import browse
from reviewer.store.importing import import_dataset
from reviewer.store.migrations import MIGRATIONS, schema_table, upgrade
from reviewer.store.models import Output, Run, Score
from reviewer.store.queries import ItemQuery
from tests.store import records as R

N = 40


def _value(i: int) -> float | str | None:
    """Item i's score: a large group of 0.0 (every other item), small groups of 0.25-1.0,
    and some items without one ("missing": no output; "unscored": an output, no score; None:
    a score without a value)."""
    if i % 10 == 3:
        return "missing"
    if i % 10 == 7:
        return "unscored"
    if i % 10 == 9:
        return None
    return 0.0 if i % 2 == 0 else (1.0, 0.25, 0.5)[i % 3]


def _scored_dataset(store, runs: int = 1) -> tuple[int, int]:
    """A dataset of N items (positions 0..N-1) and ``runs`` runs scored as ``_value`` says
    (other runs score the reverse); the first run's id. Item 5's output also holds a later
    score of a second scorer in the mode (1.0), which does not count: the first one does."""
    ds = import_dataset(store.engine, R.dataset([R.item(i) for i in range(N)]), silent()).dataset_id
    with store.engine.begin() as conn:
        items = dict(conn.execute(text("select position, id from item where dataset_id = :ds"), {"ds": ds}).all())
        run_ids = []
        for k in range(runs):
            run = conn.execute(Run.__table__.insert().values(dataset_id=ds, name=f"r{k}")).inserted_primary_key[0]
            run_ids.append(run)
            for i in range(N):
                if _value(i) == "missing":
                    continue
                out = conn.execute(Output.__table__.insert().values(run_id=run, item_id=items[i], replication=0,
                                                                    text="x")).inserted_primary_key[0]
                if _value(i) != "unscored":
                    v = _value(i)
                    v = v if k == 0 or v is None else 1.0 - v
                    conn.execute(Score.__table__.insert().values(output_id=out, scorer="s", mode="faithful", value=v))
                    if i == 5:
                        conn.execute(Score.__table__.insert().values(output_id=out, scorer="t", mode="faithful",
                                                                     value=1.0))
    return ds, run_ids[0]


def _expected(descending: bool) -> list[int]:
    """Positions in the order the user should see."""
    scored = [i for i in range(N) if isinstance(_value(i), float)]
    unscored = [i for i in range(N) if not isinstance(_value(i), float)]
    if descending:
        return sorted(scored, key=lambda i: (-_value(i), -i)) + unscored[::-1]
    return sorted(scored, key=lambda i: (_value(i), i)) + unscored


def _positions(store, ids) -> list[int]:
    with store.engine.connect() as conn:
        pos = dict(conn.execute(text("select id, position from item")).all())
    return [pos[i] for i in ids]


@pytest.mark.parametrize("descending", [False, True], ids=["ascending", "descending"])
@pytest.mark.parametrize("runs", [1, 3], ids=["one-run", "three-runs"])
def test_score_order_ties_by_position_unscored_last_and_every_page_agrees(store, descending, runs):
    # Three runs: the walk steps over the other runs' scores in the index no more (the run
    # leads it since schema step 8); the order must not change.
    ds, run = _scored_dataset(store, runs)
    query = ItemQuery(ds, sort="score", score_run_id=run, descending=descending)
    expected = _expected(descending)
    assert _positions(store, browse.ordered_ids(store, query)) == expected
    for limit in (1, 3, 7, 16, N + 5):
        for offset in range(0, N + 2, max(1, limit // 2)):
            page = [r.position for r in store.item_page(query, offset, limit)]
            assert page == expected[offset : offset + limit], (offset, limit)


def test_score_order_keeps_column_filters(store):
    ds, run = _scored_dataset(store)
    with store.engine.begin() as conn:  # items 0-9 in category A
        conn.execute(text("update item set category = 'A' where dataset_id = :ds and position < 10"), {"ds": ds})
    query = ItemQuery(ds, sort="score", score_run_id=run, categories=["A"])
    expected = [p for p in _expected(False) if p < 10]
    assert [r.position for r in store.item_page(query, 0, 4)] == expected[:4]
    assert [r.position for r in store.item_page(query, 4, 20)] == expected[4:]


@pytest.mark.parametrize("runs", [1, 3], ids=["one-run", "three-runs"])
def test_first_page_walks_the_score_index_on_sqlite(tmp_path, runs):
    from reviewer.store import Store

    store = Store(str(tmp_path / "s.sqlite3"))
    ds, run = _scored_dataset(store, runs)
    plans = []

    @event.listens_for(store.engine, "before_cursor_execute")
    def explain(conn, cursor, statement, parameters, context, executemany):
        if statement.lstrip().upper().startswith("SELECT") and "score" in statement:
            plans.append(" | ".join(r[-1] for r in cursor.execute("EXPLAIN QUERY PLAN " + statement, parameters)))

    store.item_page(ItemQuery(ds, sort="score", score_run_id=run), 0, 5)
    # The page's order comes from walking (run, mode, value), not from sorting every item.
    assert any(p.startswith("SEARCH score USING COVERING INDEX ix_score_sort (run_id=? AND mode=?") for p in plans), plans
    assert not any("CORRELATED SCALAR SUBQUERY" in p and "TEMP B-TREE FOR ORDER BY" in p
                   and "RIGHT PART" not in p for p in plans), plans
    store.close()


def test_version_5_database_gets_the_score_sort_index(store):
    ds, run = _scored_dataset(store)
    with store.engine.begin() as conn:  # as version 5 made it: no score sort index
        conn.execute(text("drop index ix_score_sort"))
        conn.execute(schema_table.update().values(version=5))
    assert upgrade(store.engine, MIGRATIONS) == MIGRATIONS[-1].version
    with store.engine.connect() as conn:
        assert "ix_score_sort" in {i["name"] for i in inspect(conn).get_indexes("score")}
        assert conn.execute(select(schema_table.c.version)).scalar() == MIGRATIONS[-1].version
    query = ItemQuery(ds, sort="score", score_run_id=run)
    assert [r.position for r in store.item_page(query, 0, N)] == _expected(False)
