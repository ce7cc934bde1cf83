"""Red-team of the item storage rules of issue 14 (reviewer.store.item_json, raw_refs, the
keep_original_gold trigger, binary COPY): every test asserts on what the app reads back or
writes, on both backends where the rule is shared.

Tests that show a real defect are marked ``xfail(strict=True)``: they pass once it is fixed."""

from __future__ import annotations

import json
import math

import pytest
from sqlalchemy import func, select, text

from reviewer.formats.base import ItemRecord
from reviewer.jobs import silent
from reviewer.store import Store
from reviewer.store.importing import import_dataset
from reviewer.store.item_json import JSON_COLUMNS
from reviewer.store.migrations import MIGRATIONS, upgrade
from reviewer.store.models import Dataset, Item, utcnow
from reviewer.store.queries import ItemQuery
from tests.store import records as R
from tests.store.records import exact
from tests.team.conftest import team  # noqa: F401  (the team-mode fixture: logins on the real server)

item_t, dataset_t = Item.__table__, Dataset.__table__
LATEST = MIGRATIONS[-1].version
LONG_Q = "Find the filings of the company and list them by year, oldest first"




def rec(i: int, raw, question, gold, payload=None, **kw) -> ItemRecord:
    return R.item(i, gold=gold, raw=raw, question=question, payload={} if payload is None else payload,
                  context=None, schema=None, **kw)


_DEFAULT = object()


def nest(i: int, question=None, gold=_DEFAULT, extra=None) -> ItemRecord:
    """A NesTools-like record: the reader takes the question and gold out of the record itself."""
    source = {"test_id": i, "task": question if question is not None else f"{LONG_Q} (case {i})",
              "call": gold if gold is not _DEFAULT else [{"api_name": "filings", "parameters": {"company": i}}],
              **(extra or {})}
    return rec(i, source, source["task"], source["call"], payload={"apis": source["call"]})


def every_reading(store, dataset: str, record_id: str) -> dict[str, dict]:
    """What each reader of the app sees of one item: raw, original gold, gold, payload."""
    from reviewer.guards.storage import load_items as guard_items
    from reviewer.rerun.job import load_items as rerun_items
    from reviewer.scoring.job import _scoring_item
    from reviewer.store.exporting import export_items, provenance_rows

    item = store.find_item(dataset, record_id)
    seen = {"store.item": dict(raw=item.raw, original_gold=item.original_gold, gold=item.gold, payload=item.payload,
                               question=item.question)}
    with store.engine.connect() as conn:
        [e] = [e for e in export_items(conn, item.dataset_id) if e.record_id == record_id]
        seen["export_items"] = dict(raw=e.raw, original_gold=e.original_gold, gold=e.gold, payload=e.payload)
        [p] = [p for p in provenance_rows(conn, item.dataset_id) if p["record_id"] == record_id]
        seen["provenance_rows"] = dict(original_gold=p["original_gold"], gold=p["gold"], payload=p["payload"])
        row = conn.execute(select(item_t.c.record_id, item_t.c.kind, item_t.c.gold, *JSON_COLUMNS,
                                  item_t.c.context_hash, item_t.c.schema_hash, item_t.c.category, item_t.c.depth)
                           .where(item_t.c.id == item.id)).one()
        s = _scoring_item(row, {})
        seen["scoring"] = dict(raw=s.raw, gold=s.gold, payload=s.payload)
        [g] = guard_items(conn, item.dataset_id, [item.id])
        seen["guards"] = dict(gold=g.gold, payload=g.payload)
    [r] = rerun_items(store, item.dataset_id, [item.id])
    seen["rerun"] = dict(gold=r.gold, payload=r.payload)
    return seen


def assert_reads(store, dataset: str, record: ItemRecord, gold, flag_counted: bool = True) -> None:
    """Every reader sees the source record, the imported gold as original and ``gold`` now;
    the edited flag (the app's and the stored column's) says whether the gold changed."""
    edited = exact(gold) != exact(record.gold)
    for reader, seen in every_reading(store, dataset, record.record_id).items():
        if "raw" in seen:
            assert exact(seen["raw"]) == exact(record.raw), reader
        if "original_gold" in seen:
            assert exact(seen["original_gold"]) == exact(record.gold), reader
        assert exact(seen["gold"]) == exact(gold), reader
        assert exact(seen["payload"]) == exact(record.payload), reader
    item = store.find_item(dataset, record.record_id)
    assert item.gold_edited == edited
    if flag_counted:
        with store.engine.connect() as conn:
            flag = conn.execute(select(item_t.c.gold_edited).where(item_t.c.id == item.id)).scalar_one()
        assert bool(flag) == edited


def edit_by_sql(store, item_id: int, gold, also_flag: bool = True) -> None:
    """psql's way: no reviewer code, the JSON text bound as such."""
    sets = "gold = CAST(:g AS json)" if store.backend == "postgresql" else "gold = :g"
    if also_flag:
        sets += ", gold_edited = :e"
    with store.engine.begin() as conn:
        original = conn.execute(text("SELECT coalesce(original_gold, gold) FROM item WHERE id = :i"),
                                {"i": item_id}).scalar()
        if isinstance(original, str) and store.backend == "sqlite":
            original = json.loads(original)
        conn.execute(text(f"UPDATE item SET {sets} WHERE id = :i"),
                     {"g": json.dumps(gold), "i": item_id, "e": exact(gold) != exact(original)})


# ---- 1. records designed to confuse the reference scheme ------------------------------------


AWKWARD_GOLDS = [None, False, True, 0, 1, -1, "", [], {}, "x" * 200_000, [None], {"": None},
                 "naïve — 漢字 🤖 " * 3, [[[[[[[[[[{"deep": [1.0, 2, True, None]}]]]]]]]]]]]


@pytest.mark.parametrize("gold", AWKWARD_GOLDS, ids=lambda g: exact(g)[:20])
def test_an_awkward_gold_held_by_raw_reads_back_and_survives_edits(store, gold):
    records = [nest(0, gold=gold), nest(1, gold=gold), nest(2, gold=gold)]
    import_dataset(store.engine, R.dataset(records), silent())
    for r in records:
        assert_reads(store, "demo", r, gold)
    a = store.find_item("demo", "q0")
    store.set_gold(a.id, ["set", "by", "app"], "carol", a.version)
    edit_by_sql(store, store.find_item("demo", "q1").id, {"by": "sql"})
    assert_reads(store, "demo", records[0], ["set", "by", "app"])
    assert_reads(store, "demo", records[1], {"by": "sql"})
    assert_reads(store, "demo", records[2], gold)


def test_raw_values_that_spell_a_column_name_are_not_mistaken_for_references(store):
    q = f"{LONG_Q} 1"
    g = [{"api_name": "a", "parameters": {"x": 1}}]
    spelled = {"task": q, "call": g, "question": "question", "original_gold": "original_gold", "note": "gold",
               "raw_refs": {"task": "original_gold"}, "_from_raw": ["question"]}
    records = [
        rec(0, spelled, q, g),  # references and natural look-alikes side by side
        rec(1, {"a": "question", "b": "original_gold", "c": None}, "question", "original_gold"),  # nothing shared
        rec(2, {"q": "question" * 3, "g": "original_gold" * 3}, "question" * 3, "original_gold" * 3),  # equal, not same
    ]
    records.append(rec(3, {"q": records[2].question, "g": records[2].gold}, records[2].question, records[2].gold))
    import_dataset(store.engine, R.dataset(records), silent())
    for r in records:
        assert_reads(store, "demo", r, r.gold)
    for r in records:
        item = store.find_item("demo", r.record_id)
        store.set_gold(item.id, "changed", "carol", item.version)
        assert_reads(store, "demo", r, "changed")


def test_a_question_equal_in_text_but_another_object_is_stored_whole(store):
    source = {"task": f"{LONG_Q} 7", "call": [{"api_name": "b", "parameters": {}}]}
    records = [rec(0, source, "".join(list(source["task"])), json.loads(json.dumps(source["call"])))]
    import_dataset(store.engine, R.dataset(records), silent())
    with store.engine.connect() as conn:
        assert conn.execute(select(item_t.c.raw_refs)).scalar() is None
    assert_reads(store, "demo", records[0], records[0].gold)


def test_one_object_under_several_raw_keys_and_as_question_and_gold(store):
    shared = f"{LONG_Q}, same text for question and gold"
    gold = [{"api_name": "c", "parameters": {"n": "é"}}]
    records = [
        rec(0, {"a": gold, "b": gold, "c": [gold], "d": gold}, "short?", gold, payload={"p": gold, "q": [1]}),
        rec(1, {"x": shared, "y": shared, "z": "other"}, shared, shared),  # question is gold
        rec(2, {"x": shared}, None, shared),  # a None question
    ]
    whole = {"id": 3, "list": [1, 2], "text": shared}
    records.append(rec(3, whole, "short?", whole))  # the gold is the record itself
    import_dataset(store.engine, R.dataset(records), silent())
    for r in records:
        assert_reads(store, "demo", r, r.gold)
    for r in records:
        item = store.find_item("demo", r.record_id)
        store.set_gold(item.id, {"edited": r.record_id}, "carol", item.version)
        assert_reads(store, "demo", r, {"edited": r.record_id})


def test_a_non_text_question_taken_from_raw_keeps_raw_whole(pg_url):
    """ItemRecord.question is typed str, but nothing checks it: a reader (a plugin format, chat
    benchmarks' turn lists) may give the record's own list. Before this change the question
    column held whatever the driver made of it and raw stayed the source record. (SQLite's
    driver refuses a list for a text column: nothing is stored there, as before.)"""
    messages = ["What is the capital of France?", "And of Spain?"]  # the user turns
    source = {"id": 0, "messages": messages, "answer": [{"x": 1}]}
    store = Store(pg_url)
    try:
        import_dataset(store.engine, R.dataset([rec(0, source, messages, source["answer"])]), silent())
        assert exact(store.find_item("demo", "q0").raw) == exact(source)
    finally:
        store.close()


@pytest.mark.parametrize("raw", [["a", "list", {"k": 1}], "a bare string record that is long enough", 42, None],
                         ids=["list", "str", "int", "none"])
def test_a_raw_that_is_not_an_object(store, raw):
    gold = raw if raw is not None else "G"
    r = rec(0, raw, raw if isinstance(raw, str) else "q?", gold)
    import_dataset(store.engine, R.dataset([r]), silent())
    item = store.find_item("demo", "q0")
    assert exact(item.raw) == exact(raw or {})  # ItemDetail.raw is {} for no raw, as before
    assert exact(item.original_gold) == exact(gold)
    store.set_gold(item.id, "new", "carol", item.version)
    item = store.find_item("demo", "q0")
    assert exact(item.raw) == exact(raw or {}) and exact(item.original_gold) == exact(gold) and item.gold == "new"


def test_very_deep_and_very_wide_values(store):
    deep = current = {}
    for _ in range(150):
        current["d"] = {}
        current = current["d"]
    current["leaf"] = "🌿"
    gold = [deep, {f"k{i}": i for i in range(2000)}]
    records = [nest(0, gold=gold), nest(1, question="Q " + "ü" * 5000)]
    import_dataset(store.engine, R.dataset(records), silent())
    for r in records:
        assert_reads(store, "demo", r, r.gold)
    item = store.find_item("demo", "q0")
    store.set_gold(item.id, [], "carol", item.version)
    assert_reads(store, "demo", records[0], [])


# ---- 2. every gold writer ---------------------------------------------------------------------


@pytest.fixture
def nest_items(store):
    records = [nest(i) for i in range(6)]
    summary = import_dataset(store.engine, R.dataset(records), silent())
    return summary.dataset_id, records


def test_store_set_gold_twice_then_back_to_the_original(store, nest_items):
    _, records = nest_items
    r = records[0]
    for gold in (["one"], {"two": 2}, r.gold, None, r.gold):
        item = store.find_item("demo", r.record_id)
        store.set_gold(item.id, gold, "carol", item.version)
        assert_reads(store, "demo", r, gold)


def test_raw_sql_updates_on_every_shape(store, nest_items):
    ds, records = nest_items
    ids = {r.record_id: store.find_item("demo", r.record_id).id for r in records}
    with store.engine.begin() as conn:
        conn.execute(text("UPDATE item SET gold = gold WHERE id = :i"), {"i": ids["q0"]})  # no change
        conn.execute(text("UPDATE item SET version = version + 1, category = 'x' WHERE id = :i"), {"i": ids["q1"]})
    assert_reads(store, "demo", records[0], records[0].gold)
    assert_reads(store, "demo", records[1], records[1].gold)
    edit_by_sql(store, ids["q2"], ["first"])
    edit_by_sql(store, ids["q2"], ["second"])
    assert_reads(store, "demo", records[2], ["second"])
    edit_by_sql(store, ids["q3"], ["x"])
    edit_by_sql(store, ids["q3"], records[3].gold)  # back to the imported gold
    assert_reads(store, "demo", records[3], records[3].gold)
    # one statement for many rows (q4, q5): every row keeps its own original
    bulk = "CAST('[\"bulk\"]' AS json)" if store.backend == "postgresql" else "'[\"bulk\"]'"
    with store.engine.begin() as conn:
        conn.execute(text(f"UPDATE item SET gold = {bulk}, gold_edited = true WHERE record_id IN ('q4', 'q5')"))
    for r in records[4:]:
        assert_reads(store, "demo", r, ["bulk"])


def test_raw_sql_setting_gold_to_sql_null_reads_as_the_trigger_documents(store, nest_items):
    """SQL NULL in gold (the app writes JSON null, never that): on an edited item it is stored
    and reads as None, the original kept; on an unchanged item it is what ``gold =
    original_gold`` writes there, and the item keeps its gold (migrations.keep_original_gold)."""
    _, records = nest_items
    edited, unchanged = store.find_item("demo", "q0"), store.find_item("demo", "q1")
    store.set_gold(edited.id, ["edited"], "carol", edited.version)
    with store.engine.begin() as conn:
        conn.execute(text("UPDATE item SET gold = NULL WHERE id IN (:a, :b)"), {"a": edited.id, "b": unchanged.id})
    assert_reads(store, "demo", records[0], None)
    assert_reads(store, "demo", records[1], records[1].gold)


def test_the_review_flow_unanimous_fix_and_adjudicated_fix(store, nest_items):
    from reviewer.review import annotate, resolution
    from reviewer.review.annotate import save_annotation, snapshot
    from tests.review.test_review import fixed

    _, records = nest_items
    ids = [store.find_item("demo", r.record_id).id for r in records]
    new = [{"api_name": "fixed", "parameters": {"company": 0}}]
    save_annotation(store, ids[0], "alice", fixed(new), None)
    save_annotation(store, ids[0], "bob", fixed(new), None)
    assert_reads(store, "demo", records[0], new)
    annotate.set_role(store, "carol", "adjudicator")
    save_annotation(store, ids[1], "alice", fixed([{"api_name": "a", "parameters": {}}]), None)
    save_annotation(store, ids[1], "bob", fixed([{"api_name": "b", "parameters": {}}]), None)
    snap = snapshot(store, ids[1], "carol")
    settled = [{"api_name": "c", "parameters": {}}]
    resolution.adjudicate(store, ids[1], "carol", "fix", settled, "neither", rubric={"ambiguity": "low"},
                          item_version=snap.item_version,
                          annotation_versions={a.annotator: a.version for a in snap.others})
    assert_reads(store, "demo", records[1], settled)
    # settled again as Fix, back to the imported gold
    snap = snapshot(store, ids[1], "carol")
    resolution.adjudicate(store, ids[1], "carol", "fix", records[1].gold, "the source was right",
                          rubric={"ambiguity": "low"}, expected_version=snap.adjudication.version,
                          item_version=snap.item_version,
                          annotation_versions={a.annotator: a.version for a in snap.others})
    assert_reads(store, "demo", records[1], records[1].gold)


def test_release_export_patch_is_against_the_imported_gold(store, nest_items, tmp_path):
    from reviewer.review.release import gold_provenance
    from reviewer.review.annotate import save_annotation
    from tests.review.test_review import fixed

    _, records = nest_items
    item = store.find_item("demo", "q2")
    new = [{"api_name": "fixed2", "parameters": {"company": 2}}]
    save_annotation(store, item.id, "alice", fixed(new), None)
    save_annotation(store, item.id, "bob", fixed(new), None)
    [row] = [r for r in gold_provenance(store, item.dataset_id) if r["record_id"] == "q2"]
    assert row["gold"] == new and row["payload"] == records[2].payload
    from reviewer.review.patch import apply_patch
    assert apply_patch(records[2].gold, row["provenance"]["patch"]) == new


@pytest.mark.xfail(strict=True, reason="only an UPDATE keeps the original: a row rewritten whole (DELETE+INSERT, "
                                       "SQLite's INSERT OR REPLACE) with its columns as stored carries the NULL, and "
                                       "the raw's gold placeholder then reads the edit")
def test_a_row_rewritten_whole_with_a_new_gold_keeps_its_original_and_source_record(store, nest_items):
    """A tool that reads the row with SELECT * and writes it back with another gold (sqlite-utils'
    insert --replace, a delete-and-insert fix script) kept original_gold before this change."""
    _, records = nest_items
    item = store.find_item("demo", "q0")
    with store.engine.begin() as conn:
        row = dict(conn.execute(select(item_t).where(item_t.c.id == item.id)).one()._mapping)
        row["gold"] = ["rewritten"]
        if store.backend == "sqlite":
            conn.execute(item_t.insert().prefix_with("OR REPLACE"), row)
        else:
            conn.execute(item_t.delete().where(item_t.c.id == item.id))
            conn.execute(item_t.insert(), row)
    item = store.find_item("demo", "q0")
    assert exact(item.raw) == exact(records[0].raw)  # the source record: its call is the imported gold
    assert exact(item.original_gold) == exact(records[0].gold) and item.gold_edited


def test_reverting_every_edit_by_sql_keeps_the_gold_of_unedited_items(store, nest_items):
    ds, records = nest_items
    item = store.find_item("demo", "q0")
    store.set_gold(item.id, ["edited"], "carol", item.version)
    with store.engine.begin() as conn:  # a privileged user undoes all gold edits of the dataset
        conn.execute(text("UPDATE item SET gold = original_gold, gold_edited = false WHERE dataset_id = :d"),
                     {"d": ds})
    for r in records:  # q0 reverted; q1..q5 were never edited and must keep their gold
        assert_reads(store, "demo", r, r.gold)


# ---- 3. export in the dataset's own format ------------------------------------------------------


def test_nestools_export_after_edits_gives_the_source_lines_back(store, tmp_path):
    from tests.store.records import nestools_like

    data = nestools_like(tmp_path / "src", 40)
    store.import_dataset(data, format="nestools", name="nt")
    source = [json.loads(x) for x in data.read_text().splitlines()]
    edited = {"3": [{"api_name": "edited", "parameters": {}}], "7": []}
    for rid, gold in edited.items():
        item = store.find_item("nt", rid)
        store.set_gold(item.id, gold, "carol", item.version)
    edit_by_sql(store, store.find_item("nt", "9").id, [{"api_name": "psql", "parameters": {"a": 1}}])
    edited["9"] = [{"api_name": "psql", "parameters": {"a": 1}}]
    out = tmp_path / "out"
    store.export_dataset("nt", out)
    lines = [json.loads(x) for x in (out / data.name).read_text().splitlines()]
    assert len(lines) == len(source)
    for src, got in zip(source, lines):
        want = dict(src, call=edited[str(src["test_id"])]) if str(src["test_id"]) in edited else src
        assert exact(got) == exact(want), src["test_id"]
    ids_src = (tmp_path / "src" / "test_api_ids.jsonl").read_text().splitlines()
    ids_out = (out / "test_api_ids.jsonl").read_text().splitlines()
    assert [json.loads(x) for x in ids_src] == [json.loads(x) for x in ids_out]


# ---- 4. re-import counts ----------------------------------------------------------------------------


def _write_nestools(folder, records: list[dict]):
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "test_data.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records))
    (folder / "test_api_ids.jsonl").write_text("".join(
        json.dumps({"test_id": r["test_id"], "api_ids": list(range(len(r["api"])))}) + "\n" for r in records))
    return folder / "test_data.jsonl"


def _nt_record(i: int) -> dict:
    return {"test_id": i, "task": f"{LONG_Q} for company {i}",
            "api": [{"api_name": "filings", "description": "d", "required_parameters": [], "optional_parameters": []}],
            "call": [{"api_name": "filings", "parameters": {"company": i}}]}


@pytest.mark.parametrize("through_feed", [False, True], ids=["in-process", "reading-process"])
def test_reimport_counts_unchanged_and_changed_records(store, tmp_path, monkeypatch, through_feed):
    from reviewer.store import import_feed

    started = []
    real_start = import_feed.Feed.start
    monkeypatch.setattr(import_feed.Feed, "start", lambda self: (started.append(self), real_start(self))[1])
    if through_feed:
        monkeypatch.setattr(import_feed, "MIN_BYTES", 0)
    else:
        monkeypatch.setenv("REVIEWER_IMPORT_FEED", "0")
    base = [_nt_record(i) for i in range(1, 7)]
    path = _write_nestools(tmp_path / "a", base)
    first = store.import_dataset(path, format="nestools", name="nt")
    assert first.added == 6
    # edit two golds in the app (one by psql) before re-importing the very same file
    item = store.find_item("nt", "1")
    store.set_gold(item.id, [{"api_name": "edited", "parameters": {}}], "carol", item.version)
    edit_by_sql(store, store.find_item("nt", "2").id, [])
    again = store.import_dataset(path, format="nestools", name="nt")
    assert (again.added, again.unchanged, again.changed_in_source) == (0, 6, [])
    changed = [dict(r) for r in base]
    changed[2]["task"] += " (reworded)"  # question only
    changed[3]["call"] = [{"api_name": "filings", "parameters": {"company": 99}}]  # gold only
    changed[0]["call"] = [{"api_name": "edited", "parameters": {}}]  # the source now holds the app's edit
    path2 = _write_nestools(tmp_path / "b", changed)
    third = store.import_dataset(path2, format="nestools", name="nt")
    assert third.added == 0
    assert sorted(third.changed_in_source) == ["1", "3", "4"]
    assert third.unchanged == 3
    assert len(started) == (3 if through_feed else 0)  # the path named is the one that ran


# ---- 5. binary COPY ---------------------------------------------------------------------------------


def _row(ds: int, n: int, **kw) -> dict:
    row = {"dataset_id": ds, "record_id": f"r{n}", "position": n, "kind": "k", "question": "q", "gold": ["g"],
           "original_gold": None, "raw": {"n": n}, "raw_refs": None, "payload": {}, "context_hash": None,
           "schema_hash": None, "category": "c", "difficulty": None, "depth": 1, "domain": None, "source_file": "f",
           "source_line": n, "gold_edited": False, "version": 1}
    row.update(kw)
    return row


class MyInt(int):
    pass


class MyStr(str):
    pass


BINARY_CASES = {
    "int4_max": dict(depth=2**31 - 1, source_line=2**31 - 1),
    "int4_min": dict(depth=-2**31, source_line=-2**31),
    "int4_over": dict(depth=2**31),
    "int4_under": dict(depth=-2**31 - 1),
    "int8_over": dict(depth=2**63),
    "bool_in_int": dict(depth=True),
    "int_subclass": dict(depth=MyInt(5)),
    "str_subclass": dict(question=MyStr("sub" * 10), category=MyStr("c")),
    "int_in_bool": dict(gold_edited=1),
    "nan_in_int": dict(depth=math.nan),
    "inf_in_text": dict(category=math.inf),
    "nul_in_text": dict(question="a\x00b"),
    "long_record_id": dict(record_id="r" * 201),
    "long_record_id_trailing_spaces": dict(record_id="r" * 200 + "   "),
    "surrogate": dict(question="\ud800"),
    "emoji_text": dict(question="🤖" * 100, record_id="🤖" * 200),
    "none_in_not_null": dict(kind=None),
}


def _outcome(store, ds: int, rows: list[dict], how: str):
    """('ok', what was stored) or ('error', exception class) for rows written one way."""
    from sqlalchemy.exc import DBAPIError

    from reviewer.store.bulk import insert_many

    try:
        with store.engine.begin() as conn:
            if how == "bulk":
                insert_many(conn, item_t, rows)
            else:
                conn.execute(item_t.insert(), rows)
    except DBAPIError as exc:
        return "db-error", type(exc.orig).__mro__[1].__name__ if exc.orig is not None else None
    except Exception as exc:  # anything else is a traceback the importer does not turn into a message
        return "crash", type(exc).__name__
    with store.engine.connect() as conn:
        got = [tuple(r) for r in conn.execute(
            select(item_t.c.record_id, item_t.c.question, item_t.c.depth, item_t.c.source_line, item_t.c.category,
                   item_t.c.gold_edited).where(item_t.c.dataset_id == ds).order_by(item_t.c.position))]
        conn.execute(item_t.delete().where(item_t.c.dataset_id == ds))
        conn.commit()
    return "ok", got


# Differences of every COPY (text as before, binary now) from Core's insert that binary did not
# introduce: PostgreSQL's text input reads "t" and "inf" where a bound parameter is a boolean or a
# float8 cast to the column; a surrogate cannot be encoded by any path (imports refuse it first).
COPY_DIFFERS_FROM_CORE = {"bool_in_int", "inf_in_text"}


@pytest.mark.parametrize("case", list(BINARY_CASES))
def test_binary_copy_stores_or_refuses_exactly_what_text_copy_did(pg_url, case, monkeypatch):
    from reviewer.store import bulk

    store = Store(pg_url)
    try:
        with store.engine.begin() as conn:
            ds = conn.execute(dataset_t.insert().values(name="b", format="f", kind="k", source="s", meta={},
                                                        created_at=utcnow())).inserted_primary_key[0]
        rows = [_row(ds, 0), _row(ds, 1, **BINARY_CASES[case]), _row(ds, 2)]
        core = _outcome(store, ds, rows, "core")
        binary = _outcome(store, ds, rows, "bulk")
        monkeypatch.setattr(bulk, "_binary_types", lambda *a: None)  # the text COPY of before
        as_text = _outcome(store, ds, rows, "bulk")
        if binary[0] == "db-error":  # the server's refusal, whichever class psycopg gives it
            assert as_text[0] == "db-error" and (core[0] == "db-error" or case in COPY_DIFFERS_FROM_CORE)
        else:
            assert binary == as_text
            assert binary == core or case in COPY_DIFFERS_FROM_CORE or (case == "surrogate" and core == binary)
        with store.engine.connect() as conn:
            assert conn.execute(select(func.count()).select_from(item_t)).scalar() == 0  # nothing half-written
    finally:
        store.close()


@pytest.mark.parametrize("column, values", [
    ("s", [2**15 - 1, -2**15]), ("s", [2**15]), ("s", [-2**15 - 1]),
    ("i", [2**31 - 1, -2**31]), ("i", [2**31]), ("i", [-2**31 - 1]),
    ("b", [2**63 - 1, -2**63]), ("b", [2**63]), ("b", [-2**63 - 1]),
    ("f", [True, False, None]), ("v", ["12345", "12345   "]), ("v", ["123456"]), ("t", ["é\n\t\\.\r"]),
])
def test_binary_copy_at_the_integer_boundaries_of_every_width(pg_url, column, values, monkeypatch):
    """smallint / integer / bigint at and one past their limits, and the other listed types, against
    text COPY and Core's insert on a table of each type."""
    from sqlalchemy import JSON, BigInteger, Boolean, Column, Integer, MetaData, SmallInteger, String, Table, Text
    from sqlalchemy.exc import DBAPIError

    from reviewer.store import bulk

    store = Store(pg_url)
    md = MetaData()
    t = Table("bounds", md, Column("id", Integer, primary_key=True), Column("s", SmallInteger), Column("i", Integer),
              Column("b", BigInteger), Column("f", Boolean), Column("v", String(5)), Column("t", Text),
              Column("j", JSON))
    md.create_all(store.engine)
    rows = [{"id": n, "s": 1, "i": 1, "b": 1, "f": False, "v": "v", "t": "t", "j": {"n": n}, column: v}
            for n, v in enumerate(values)]

    def write(how):
        try:
            with store.engine.begin() as conn:
                bulk.insert_many(conn, t, rows) if how != "core" else conn.execute(t.insert(), rows)
        except DBAPIError:
            return "refused"
        with store.engine.begin() as conn:
            got = [tuple(r) for r in conn.execute(select(t).order_by(t.c.id))]
            conn.execute(t.delete())
        return got

    try:
        with store.engine.connect() as conn:
            chose_binary = bulk._binary_types(conn, t, list(rows[0]), bulk._converted(conn, t, list(rows[0]), rows))
        core, binary = write("core"), write("bulk")
        monkeypatch.setattr(bulk, "_binary_types", lambda *a: None)
        assert binary == write("bulk") == core
        if column in "sib":  # an integer that does not fit goes as text, where the server refuses it
            assert (chose_binary is not None) == (binary != "refused")
    finally:
        store.close()


def test_insert_encoded_takes_a_feed_row_on_its_row_security_path(pg_url, monkeypatch):
    """The importer turns the feed off under row-level security, so no import reaches this today;
    insert_encoded itself (public, documented for the feed's rows) breaks on them."""
    from reviewer.store import bulk
    from reviewer.store.importing import FEED_KEYS
    from reviewer.store.jsontext import encode_json
    from reviewer.store.raw_refs import compact_raw

    store = Store(pg_url)
    try:
        with store.engine.begin() as conn:
            ds = conn.execute(dataset_t.insert().values(name="b", format="f", kind="k", source="s", meta={},
                                                        created_at=utcnow())).inserted_primary_key[0]
        r = nest(0)
        raw, refs = compact_raw(r.raw, r.question, r.gold)
        row = dict(_row(ds, 0), question=r.question, gold=encode_json(r.gold), original_gold=None,
                   raw=encode_json(raw), raw_refs=encode_json(refs), payload=encode_json({}))
        monkeypatch.setattr(bulk, "row_security_active", lambda conn, table: True)
        with store.engine.begin() as conn:
            bulk.insert_encoded(conn, item_t, FEED_KEYS, [[row[k] for k in FEED_KEYS]])
        assert exact(store.find_item("b", "r0").raw) == exact(r.raw)
    finally:
        store.close()


# ---- 6. team mode ---------------------------------------------------------------------------------


def _team_items(team):
    from sqlalchemy import text as sql

    owner = Store(team.admin_url)
    records = [nest(i) for i in range(4)]
    summary = import_dataset(owner.engine, R.dataset(records), silent())
    ids = [owner.find_item("demo", r.record_id).id for r in records]
    with owner.engine.begin() as conn:
        conn.execute(sql("insert into assignment (dataset_id, item_id, annotator, created_at) "
                         "select :ds, unnest(cast(:ids as int[])), :who, now()"),
                     [{"ds": summary.dataset_id, "ids": ids, "who": team.logins[p]} for p in ("alice", "bob")])
    return owner, records, ids


def _as(team, person: str):
    import psycopg

    return psycopg.connect(team.url(person).replace("postgresql+psycopg://", "postgresql://"), autocommit=True)


def _item_rows(owner) -> list[tuple]:
    with owner.engine.connect() as conn:
        return [tuple(r) for r in conn.execute(text(
            "select id, question, gold::text, original_gold::text, raw::text, raw_refs::text, gold_edited, version "
            "from item order by id"))]


@pytest.mark.postgres
def test_team_unanimous_fix_by_the_definer_trigger_keeps_the_imported_gold(team):
    from reviewer.review import Draft, Review

    owner, records, ids = _team_items(team)
    new = [{"api_name": "team_fix", "parameters": {"company": 0}}]
    fix = Draft(verdict="fix", checks={"schema_conformance": True, "content_faithfulness": False,
                                       "cross_field_consistency": True},
                ambiguity="low", difficulty="medium", fixed_gold=new)
    Review(team.store("alice")).annotate(ids[0], fix, None, item_version=1)
    Review(team.store("bob")).annotate(ids[0], fix, None, item_version=1)
    assert_reads(owner, "demo", records[0], new)
    # what an annotator reads of her item (RLS, her own login) is the source record too
    seen = team.store("alice").item(ids[0])
    assert exact(seen.raw) == exact(records[0].raw) and exact(seen.original_gold) == exact(records[0].gold)
    # the adjudicator's direct edit, under row-level security, twice
    carol = Review(team.store("carol"))
    for gold in (["carol 1"], {"carol": 2}):
        carol.set_gold(ids[2], gold, owner.find_item("demo", "q2").version, "why")
        assert_reads(owner, "demo", records[2], gold)
    owner.close()


@pytest.mark.postgres
def test_team_an_annotator_cannot_use_the_new_column_or_trigger_function(team):
    import psycopg

    owner, records, ids = _team_items(team)
    before = _item_rows(owner)
    with _as(team, "alice") as conn:
        schema = conn.execute("select current_schema()").fetchone()[0]
        for attempt in (f"update item set original_gold = null where id = {ids[0]}",
                        f"update item set raw_refs = '{{\"task\": \"original_gold\"}}' where id = {ids[0]}",
                        f"update item set question = 'forged' where id = {ids[0]}",
                        f"select {schema}.reviewer_keep_original_gold()",
                        f"create or replace function {schema}.reviewer_keep_original_gold() returns trigger "
                        "language plpgsql as $$ begin return new; end $$",
                        f"drop trigger reviewer_keep_original_gold on {schema}.item"):
            with pytest.raises(psycopg.Error):
                conn.execute(attempt)
        # her own temp table with the trigger function: it only ever touches that table
        conn.execute("create temp table item (id int, gold json, original_gold json)")
        conn.execute("create trigger t before update of gold on pg_temp.item for each row "
                     f"execute function {schema}.reviewer_keep_original_gold()")
        conn.execute("insert into pg_temp.item values (1, '1', null)")
        conn.execute("update pg_temp.item set gold = '2'")
    assert _item_rows(owner) == before
    assert_reads(owner, "demo", records[0], records[0].gold)
    owner.close()


@pytest.mark.postgres
def test_team_an_adjudicator_rewrites_the_source_record_through_question_or_original_gold(team):
    """Not a new privilege (deciders have UPDATE on item, raw included: shown last), but the raw
    that every reader and the format export read now follows question and original_gold."""
    owner, records, ids = _team_items(team)
    item = owner.find_item("demo", "q1")
    owner.set_gold(item.id, ["edited"], "carol", item.version)
    with _as(team, "carol") as conn:
        conn.execute("update item set question = 'forged task' where id = %s", (ids[0],))
        conn.execute("update item set original_gold = null where id = %s", (ids[1],))
        conn.execute("update item set raw = raw where id = %s", (ids[2],))  # the same power as before
    q0 = owner.find_item("demo", "q0")
    assert q0.raw["task"] == "forged task"  # the exported source record follows the question column
    q1 = owner.find_item("demo", "q1")
    assert q1.original_gold == ["edited"] and q1.raw["call"] == ["edited"] and not q1.gold_edited
    owner.close()


# ---- 7. migration from schema 9 ---------------------------------------------------------------------


def _to_version_9(store) -> None:
    with store.engine.begin() as conn:
        conn.execute(text("DROP TRIGGER IF EXISTS reviewer_keep_original_gold"
                          + (" ON item" if store.backend == "postgresql" else "")))
        conn.execute(text("ALTER TABLE item DROP COLUMN raw_refs"))
        conn.execute(text("DROP INDEX ix_item_gold_edited"))
        conn.execute(text("CREATE INDEX ix_item_gold_edited ON item (gold_edited)"))
        conn.execute(text("UPDATE reviewer_schema SET version = 9"))


V9_ROWS = {
    # record id: (question, gold, original_gold as stored (SQL NULL: None), raw, gold_edited)
    "plain": (f"{LONG_Q} p", [{"c": 1}], [{"c": 1}], {"task": f"{LONG_Q} p", "call": [{"c": 1}]}, False),
    "edited": (f"{LONG_Q} e", ["new"], [{"c": 2}], {"task": f"{LONG_Q} e", "call": [{"c": 2}]}, True),
    "reverted": ("q", [{"c": 3}], [{"c": 3}], {"task": "q", "call": [{"c": 3}]}, False),
    "json_null": ("q", None, None, {"task": "q", "call": None}, False),
    "looks_like_refs": ("question", "original_gold", "original_gold",
                        {"task": "question", "call": "original_gold", "raw_refs": {"task": "question"}}, False),
}


def _v9_insert(store, rows: dict, sql_null_original: set = frozenset()) -> int:
    with store.engine.begin() as conn:
        ds = conn.execute(text("INSERT INTO dataset (name, format, kind, source, meta, created_at) "
                               "VALUES ('old', 'test-format', 'tool_qa', 's', '{}', '2026-01-01') RETURNING id")).scalar()
        for n, (rid, (q, gold, original, raw, edited)) in enumerate(rows.items()):
            orig = "NULL" if rid in sql_null_original else ":o"
            conn.execute(text(
                "INSERT INTO item (dataset_id, record_id, position, kind, question, gold, original_gold, raw, payload, "
                f"gold_edited, version) VALUES (:d, :r, :p, 'tool_qa', :q, :g, {orig}, :raw, :pl, :e, 1)"),
                {"d": ds, "r": rid, "p": n, "q": q, "g": json.dumps(gold), "o": json.dumps(original),
                 "raw": json.dumps(raw), "pl": json.dumps({"call": "call", "_from_raw": ["call"]}), "e": edited})
    return ds


def test_a_version_9_database_reads_back_the_same_after_the_upgrade_and_after_edits(store):
    _to_version_9(store)
    ds = _v9_insert(store, V9_ROWS)
    assert upgrade(store.engine) == LATEST
    for rid, (q, gold, original, raw, edited) in V9_ROWS.items():
        item = store.find_item("old", rid)
        assert exact(item.raw) == exact(raw) and exact(item.original_gold) == exact(original), rid
        assert exact(item.gold) == exact(gold) and item.question == q and item.payload == {"call": raw["call"]}, rid
    assert store.count_items(ItemQuery(ds, edited=True)) == 1 and store.count_items(ItemQuery(ds, edited=False)) == 4
    for rid, (q, gold, original, raw, edited) in V9_ROWS.items():
        item = store.find_item("old", rid)
        store.set_gold(item.id, {"after": rid}, "carol", item.version)
        item = store.find_item("old", rid)
        assert exact(item.raw) == exact(raw) and exact(item.original_gold) == exact(original), rid
        assert item.gold == {"after": rid} and item.gold_edited
    assert store.count_items(ItemQuery(ds, edited=True)) == 5
    # the same records imported again: every stored (whole) raw is counted unchanged
    again = [rec(n, raw, q, original, payload={"call": raw["call"]}, record_id=rid)  # the payload as stored
             for n, (rid, (q, gold, original, raw, _)) in enumerate(V9_ROWS.items())]
    summary = import_dataset(store.engine, R.dataset(again, name="old"), silent())
    assert (summary.added, summary.unchanged, summary.changed_in_source) == (0, 5, [])


def test_a_version_9_row_with_a_sql_null_original_gold_reads_the_same_after_the_upgrade(store):
    """Schema 9 read a SQL NULL original_gold as None (a row another tool wrote with its gold only:
    the app showed it edited). After the upgrade coalesce() reads it as the current gold: the item is
    no longer edited, and the first edit makes the pre-edit gold its 'original'."""
    _to_version_9(store)
    rows = {"external": ("q", ["by another tool"], None, {"task": "q"}, True)}
    _v9_insert(store, rows, sql_null_original={"external"})
    with store.engine.connect() as conn:  # what a version 9 reviewer read: the column as it is
        v9_original = conn.execute(select(item_t.c.original_gold).where(item_t.c.record_id == "external")).scalar()
    assert v9_original is None
    upgrade(store.engine)
    item = store.find_item("old", "external")
    assert item.original_gold is None and item.gold_edited  # as schema 9 read it
    store.set_gold(item.id, ["edit"], "carol", item.version)
    assert store.find_item("old", "external").original_gold is None


# ---- pre-existing defects met on the way (not from this change) -------------------------------------


def test_an_edit_python_calls_equal_is_kept_in_the_export(store, tmp_path):
    from tests.store.records import nestools_like

    data = nestools_like(tmp_path / "src", 3)
    store.import_dataset(data, format="nestools", name="nt")
    item = store.find_item("nt", "2")  # its call has "year": 2023
    gold = json.loads(json.dumps(item.gold))
    [params] = [c["parameters"] for c in gold if c["parameters"].get("year") == 2023][:1]
    params["year"] = 2023.0  # another JSON value, equal in Python
    store.set_gold(item.id, gold, "carol", item.version)
    store.export_dataset("nt", tmp_path / "out")
    line = json.loads((tmp_path / "out" / data.name).read_text().splitlines()[1])
    assert exact(line["call"]) == exact(gold)


@pytest.mark.xfail(strict=True, reason="pre-existing: a gold changed by SQL leaves the gold_edited column stale "
                                       "(the trigger keeps original_gold only): the edited filter misses it")
def test_a_gold_changed_by_sql_is_found_by_the_edited_filter(store, nest_items):
    ds, records = nest_items
    item = store.find_item("demo", "q0")
    edit_by_sql(store, item.id, ["psql"], also_flag=False)
    assert store.find_item("demo", "q0").gold_edited  # the app's view computes it
    assert store.count_items(ItemQuery(ds, edited=True)) == 1
