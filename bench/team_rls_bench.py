"""What row-level security on score and blob costs an annotator (issue 16, team mode).

Builds a team database of N items (each with its own tool response, one run with one
output and one score per item), assigns a third of the items to one annotator login, then
times, as that annotator, what the app reads for a page of the item table:

- ``page``: the first screen (ordered ids + the rows of the first 50 items), the tool
  responses of those 50 items (blob by hash) and their scores (score join output); the two
  reads the new policies guard are also timed alone (``blobs_of_page``, ``scores_of_page``);
- ``run_scores``: the Score column's load, every stored score of the run (stored_results);
  ``run_scores_client_cpu``: this process's CPU time in it (the rest is the server's and waiting
  for a core: a busy neighbour moves the wall time, much less this). Since schema step 8
  stored_results reads by the score's own run, without a join through output: in ``before``
  (no score policy) it returns every score of the run, not only the annotator's.

Three states of the same database, measured in alternating rounds so a busy neighbour hits
each alike: ``before`` (score and blob readable by every annotator, as team init left them
before), ``after`` (the policies of reviewer.team.sql) and ``naive`` (the same policies
without the item(context_hash)/(schema_hash) indexes: a scan of the items per blob).
Prints ``name: value unit`` with the ratio to the 100 ms target and to ``before``.

    .venv/bin/python bench/team_rls_bench.py [--items 10000] [--rounds 3] [--repeat 5] [--pg postgresql://...]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import time
import uuid

import psycopg
from sqlalchemy import select

from reviewer.formats.base import DatasetRecord, ItemRecord, OutputRecord, ParsedDataset, ParsedRun, RunRecord
from reviewer.jobs import silent
from reviewer.scoring.job import stored_results
from reviewer.store import Store
from reviewer.store.browse import ordered_ids, rows_by_ids
from reviewer.store.importing import import_dataset, import_run
from reviewer.store.models import Blob, Item, Output, Score
from reviewer.store.queries import ItemQuery
from reviewer.team import admin
from reviewer.team.masking import masked_schema

SCREEN = 50
TARGET = 0.100
NEW_TABLES = ("score", "blob", "check_result", "guard_override")


def build(url: str, n: int, login: str, prefix: str) -> tuple[int, int]:
    owner = Store(url)
    try:
        items = (ItemRecord(record_id=f"q{i}", kind="tool_qa", gold=f"A{i}", raw={"uid": i}, question=f"Q {i}?",
                            payload={"task": "T"}, context=json.dumps({"rows": [{"i": i, "n": k} for k in range(40)]}),
                            schema='{"type": "object"}', category="EXTRACTIVE", depth=i % 4 + 1)
                 for i in range(n))
        ds = import_dataset(owner.engine, ParsedDataset(DatasetRecord(
            name="bench", format="test-format", kind="tool_qa", source="b.json", meta={}, blobs={}), items),
            silent()).dataset_id
        outputs = (OutputRecord(record_id=f"q{i}", text=f"A{i}", raw={"uid": i}, prediction=f"A{i}") for i in range(n))
        run_id = import_run(owner.engine, ds, ParsedRun(RunRecord(name="m", format="test-preds", source="p.json",
                                                                  model="m"), outputs), silent()).run_id
        with owner.engine.begin() as conn:
            conn.exec_driver_sql(
                "insert into score (output_id, scorer, mode, \"primary\", value, passed, skipped, metrics, notes, "
                "created_at) select id, 'em', 'faithful', 'em', 1.0, true, false, '{}'::json, '[]'::json, now() "
                f"from output where run_id = {run_id}")
            # 6 annotators, 2 per item: this login gets a third of the items
            conn.exec_driver_sql(
                "insert into assignment (dataset_id, item_id, annotator, created_at) "
                f"select {ds}, id, case when position %% 3 = 0 then '{login}' else 'someone_' || (position %% 5) end, "
                f"now() from item where dataset_id = {ds}")
            conn.exec_driver_sql("analyze")
        admin.init(owner, prefix)
        admin.add(owner, login, "annotator")
    finally:
        owner.close()
    return ds, run_id


def page(store: Store, ds: int) -> float:
    start = time.perf_counter()
    ids = ordered_ids(store, ItemQuery(dataset_id=ds))[:SCREEN]
    rows = rows_by_ids(store, ids)
    item_t, blob_t, out_t, score_t = Item.__table__, Blob.__table__, Output.__table__, Score.__table__
    with store.engine.connect() as conn:
        hashes = [h for (h,) in conn.execute(select(item_t.c.context_hash).where(item_t.c.id.in_(list(ids))))]
        t0 = time.perf_counter()
        texts = conn.execute(select(blob_t.c.hash, blob_t.c.text).where(blob_t.c.hash.in_(hashes))).all()
        t1 = time.perf_counter()
        scores = conn.execute(select(score_t.c.id, score_t.c.value).join(out_t, out_t.c.id == score_t.c.output_id)
                              .where(out_t.c.item_id.in_(list(ids)))).all()
        t2 = time.perf_counter()
    assert len(rows) == SCREEN and len(texts) == SCREEN and len(scores) == SCREEN, (len(rows), len(texts), len(scores))
    PARTS.setdefault("blobs_of_page", []).append(t1 - t0)
    PARTS.setdefault("scores_of_page", []).append(t2 - t1)
    return time.perf_counter() - start


PARTS: dict[str, list[float]] = {}  # the two reads the new policies guard, timed alone (page() fills it)


def run_scores(store: Store, run_id: int, expected: int) -> float:
    start, cpu = time.perf_counter(), time.process_time()
    got = stored_results(store, run_id)
    assert len(got) == expected, (len(got), expected)
    PARTS.setdefault("run_scores_client_cpu", []).append(time.process_time() - cpu)
    return time.perf_counter() - start


def set_state(owner_url: str, state: str, prefix: str) -> None:
    with psycopg.connect(owner_url, autocommit=True) as conn:
        if state == "before":
            for t in NEW_TABLES:
                conn.execute(f"alter table {t} disable row level security")
            return
        for t in NEW_TABLES:
            conn.execute(f"alter table {t} enable row level security")
        if state == "naive":
            conn.execute("drop index if exists ix_item_context_hash")
            conn.execute("drop index if exists ix_item_schema_hash")
        else:
            conn.execute("create index if not exists ix_item_context_hash on item (context_hash)")
            conn.execute("create index if not exists ix_item_schema_hash on item (schema_hash)")
        conn.execute("analyze item")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--items", type=int, default=10000)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--pg", default=os.environ.get("REVIEWER_TEST_PG", "postgresql://postgres@127.0.0.1:5432/test"))
    args = ap.parse_args()
    tag = uuid.uuid4().hex[:8]
    schema, prefix, login = f"rlsb_{tag}", f"rlsb_{tag}_", f"rlsb_{tag}_ann"
    base = args.pg.replace("postgresql+psycopg://", "postgresql://")
    with psycopg.connect(base, autocommit=True) as conn:
        conn.execute(f"create schema {schema}")
    sep = "&" if "?" in base else "?"
    owner_url = f"{base}{sep}options=-csearch_path%3D{schema}"
    try:
        t0 = time.perf_counter()
        ds, run_id = build(owner_url, args.items, login, prefix)
        print(f"# built {args.items} items in {time.perf_counter() - t0:.1f} s")
        from sqlalchemy.engine import make_url

        ann_url = make_url(owner_url).set(username=login).render_as_string(hide_password=False)
        mine = (args.items + 2) // 3
        found: dict[str, dict[str, list[float]]] = {s: {"page": [], "run_scores": []}
                                                     for s in ("before", "after", "naive")}
        for _ in range(args.rounds):
            for state in ("before", "after", "naive"):
                set_state(owner_url, state, prefix)
                store = Store(ann_url)
                try:
                    page(store, ds)  # warm the connection and the plan cache
                    PARTS.clear()
                    found[state]["page"] += [page(store, ds) for _ in range(args.repeat)]
                    for part, times in PARTS.items():
                        found[state].setdefault(part, []).extend(times)
                    # stored_results reads by the score's own run (no join with output since schema
                    # step 8): without the score policy ("before") every score of the run is readable
                    readable = args.items if state == "before" else mine
                    PARTS.clear()
                    found[state]["run_scores"] += [run_scores(store, run_id, readable) for _ in range(args.repeat)]
                    found[state].setdefault("run_scores_client_cpu", []).extend(PARTS["run_scores_client_cpu"])
                finally:
                    store.close()
        set_state(owner_url, "after", prefix)
        for what in ("page", "blobs_of_page", "scores_of_page", "run_scores", "run_scores_client_cpu"):
            before = statistics.median(found["before"][what])
            for state in ("before", "after", "naive"):
                value = statistics.median(found[state][what])
                print(f"team_rls_{what}_{args.items // 1000}k_{state}: {value * 1000:.1f} ms "
                      f"({value / TARGET:.2f} of the {TARGET * 1000:.0f} ms target, {value / before:.2f}x before)")
    finally:
        with psycopg.connect(base, autocommit=True) as conn:
            conn.execute(f"drop schema {schema} cascade")
            conn.execute(f"drop schema if exists {masked_schema(schema)} cascade")  # team init's blind views
            for name in (login, *(f"{prefix}{r}" for r in ("annotator", "adjudicator", "admin", "definer"))):
                if conn.execute("select 1 from pg_roles where rolname = %s", (name,)).fetchone():
                    conn.execute(f"DROP OWNED BY {name} CASCADE")
                    conn.execute(f"DROP ROLE {name}")


if __name__ == "__main__":
    main()
