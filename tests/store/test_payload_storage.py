"""A payload value taken from the source record is stored once (in ``raw``) and read back whole
everywhere an item is read: the item view, exports, scoring, reruns, guards, the gold release."""

from __future__ import annotations

import json

from sqlalchemy import select

from reviewer.guards.storage import load_items as guard_items
from reviewer.jobs import silent
from reviewer.rerun.job import load_items as rerun_items
from reviewer.scoring.job import _scoring_item
from reviewer.store.importing import import_dataset
from reviewer.store.models import Item
from reviewer.store.payloads import compact, expand
from tests.store import records as R

item_t = Item.__table__
APIS = [{"api_name": "search", "parameters": {"q": {"type": "str"}}}, {"api_name": "book"}]


def _chain_item(i: int):
    raw = {"test_id": i, "api": [dict(a) for a in APIS], "task": f"task {i}", "call": []}
    # as the NesTools reader makes it: the payload's API list is the record's own list
    return R.item(i, kind="call_chain", raw=raw, payload={"apis": raw["api"], "api_ids": [7, 8]})


def _stored_payloads(store) -> list:
    with store.engine.connect() as conn:
        return conn.execute(select(item_t.c.payload).order_by(item_t.c.position)).scalars().all()


def test_shared_values_are_stored_once_and_read_back_whole(store):
    summary = import_dataset(store.engine, R.dataset([_chain_item(i) for i in range(3)] + [R.item(9)]), silent())
    assert summary.added == 4
    stored = _stored_payloads(store)
    assert stored[0] == {"apis": "api", "api_ids": [7, 8], "_from_raw": ["apis"]}
    assert "search" not in json.dumps(stored[0])  # the API list is not in the payload column
    assert stored[3] == {"task": "T"}  # nothing shared with its record: stored as it is
    detail = store.find_item("demo", "q1")
    assert detail.payload == {"apis": APIS, "api_ids": [7, 8]}
    assert list(detail.payload) == ["apis", "api_ids"]  # the reader's key order
    assert store.find_item("demo", "q9").payload == {"task": "T"}
    ds = detail.dataset_id
    with store.engine.connect() as conn:
        assert [g.payload for g in guard_items(conn, ds)][:3] == [{"apis": APIS, "api_ids": [7, 8]}] * 3
        row = conn.execute(select(item_t).where(item_t.c.record_id == "q2")).one()
    assert _scoring_item(row, {}).payload == {"apis": APIS, "api_ids": [7, 8]}
    assert [r.payload for r in rerun_items(store, ds)][:3] == [{"apis": APIS, "api_ids": [7, 8]}] * 3


def test_jsonl_export_writes_the_whole_payload(store, tmp_path):
    import_dataset(store.engine, R.dataset([_chain_item(i) for i in range(2)]), silent())
    out = tmp_path / "items.jsonl"
    store.export_jsonl("demo", out)
    lines = [json.loads(x) for x in out.read_text().splitlines()]
    assert [x["payload"] for x in lines] == [{"apis": APIS, "api_ids": [7, 8]}] * 2


def test_a_payload_stored_whole_before_reads_back_unchanged(store):
    """Items imported before payloads were compacted keep their full payload column."""
    import_dataset(store.engine, R.dataset([_chain_item(0)]), silent())
    whole = {"apis": APIS, "api_ids": [7, 8]}
    with store.engine.begin() as conn:
        conn.execute(item_t.update().values(payload=whole))
    assert store.find_item("demo", "q0").payload == whole


def test_compact_takes_only_the_records_own_objects():
    raw = {"api": [1, 2], "empty": [], "n": 3}
    assert compact({"apis": [1, 2]}, raw) == {"apis": [1, 2]}  # equal but not the same object: kept
    assert compact({"e": raw["empty"], "n": raw["n"]}, raw) == {"e": [], "n": 3}  # nothing gained
    assert compact({}, raw) == {}
    stored = compact({"a": raw["api"], "b": 1}, raw)
    assert stored == {"a": "api", "b": 1, "_from_raw": ["a"]}
    assert expand(stored, raw) == {"a": [1, 2], "b": 1}
    assert expand(stored, {}) == {"a": None, "b": 1}  # a record without the key: no error
    assert expand(None, raw) == {}
