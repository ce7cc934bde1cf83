"""A big NesTools file is read in a second process (reviewer.store.import_feed) while the
importer writes: the same rows, the same errors, nothing half-written, cancel ends it."""

from __future__ import annotations

import pytest
from sqlalchemy import func, select

from reviewer.errors import InputError
from reviewer.jobs import Cancelled, JobContext
from reviewer.store import import_feed
from reviewer.store.models import Dataset, Item
from tests.store import records as R

item_t, dataset_t = Item.__table__, Dataset.__table__
COLUMNS = [c for c in item_t.c if c.name not in ("id", "dataset_id")]


@pytest.fixture
def nestools_files(tmp_path):
    """``make(n, bad_line=None, duplicate=False)``: records.nestools_like in a new folder."""
    made = []

    def make(n: int, bad_line: int | None = None, duplicate: bool = False):
        made.append(tmp_path / f"nt{len(made)}")
        return R.nestools_like(made[-1], n, bad_line=bad_line, duplicate=duplicate)

    return make


@pytest.fixture
def feed_always(monkeypatch):
    """Every NesTools import goes through the reading process, whatever the file's size;
    the list records each feed started."""
    started = []
    real_start = import_feed.Feed.start

    def start(self):
        started.append(self)
        return real_start(self)

    monkeypatch.setattr(import_feed, "MIN_BYTES", 0)
    monkeypatch.setattr(import_feed.Feed, "start", start)
    return started


def _items(store, name: str) -> list[tuple]:
    with store.engine.connect() as conn:
        return [tuple(r) for r in conn.execute(
            select(*COLUMNS).join(dataset_t, dataset_t.c.id == item_t.c.dataset_id)
            .where(dataset_t.c.name == name).order_by(item_t.c.position))]


def _count(store, table) -> int:
    with store.engine.connect() as conn:
        return conn.execute(select(func.count()).select_from(table)).scalar_one()


def test_the_reading_process_stores_what_reading_here_stores(store, nestools_files, feed_always, monkeypatch):
    path = nestools_files(1000)
    fed = store.import_dataset(path, format="nestools", name="fed")
    assert len(feed_always) == 1 and feed_always[0].received == 1 and feed_always[0].proc is None  # ended
    monkeypatch.setenv("REVIEWER_IMPORT_FEED", "0")
    here = store.import_dataset(path, format="nestools", name="here")
    assert len(feed_always) == 1  # the second import read in this process
    assert (fed.added, here.added) == (1000, 1000)
    assert _items(store, "fed") == _items(store, "here")
    item = store.find_item("fed", "1")
    assert item.payload["api_ids"] == [9031, 10894, 1163] and item.payload["apis"] == item.raw["api"]
    monkeypatch.delenv("REVIEWER_IMPORT_FEED")
    again = store.import_dataset(path, format="nestools", name="fed")  # re-import: counted, nothing added
    assert (again.added, again.unchanged, again.changed_in_source) == (0, 1000, [])


def test_bad_input_in_the_reading_process_names_file_and_line_and_writes_nothing(store, nestools_files, feed_always):
    path = nestools_files(2500, bad_line=2200)  # two chunks were written before the bad line
    with pytest.raises(InputError) as err:
        store.import_dataset(path, format="nestools", name="bad")
    assert err.value.path == str(path) and err.value.where.startswith("line 2200, column")
    assert "truncated" in err.value.message
    assert _count(store, item_t) == 0 and _count(store, dataset_t) == 0
    assert feed_always[0].proc is None


def test_a_duplicate_id_from_the_reading_process_names_both_places(store, nestools_files, feed_always):
    path = nestools_files(30, duplicate=True)
    with pytest.raises(InputError, match=r"duplicate test_id '1' \(first on line 1\)") as err:
        store.import_dataset(path, format="nestools", name="dup")
    assert (err.value.path, err.value.where) == (str(path), "line 31, $.test_id")
    assert _count(store, item_t) == 0


def test_cancel_ends_the_reading_process_and_writes_nothing(store, nestools_files, feed_always):
    big = nestools_files(3000)  # three chunks: cancelled after the first
    ctx = JobContext(on_progress=lambda p: ctx.cancel() if p.done >= 1000 else None)
    with pytest.raises(Cancelled):
        store.import_dataset(big, format="nestools", name="cancelled", ctx=ctx)
    assert _count(store, item_t) == 0 and _count(store, dataset_t) == 0
    assert feed_always[0].proc is None  # the reading process was ended, not left running


def test_a_reading_process_that_dies_is_replaced_by_reading_here(store, nestools_files, feed_always, monkeypatch):
    monkeypatch.setitem(import_feed.FORMATS, "nestools", "reviewer.formats.no_such_module")  # the child fails
    summary = store.import_dataset(nestools_files(40), format="nestools", name="fallback")
    assert summary.added == 40 and len(feed_always) == 1
    assert _count(store, item_t) == 40


def test_an_ids_file_given_apart_reaches_the_reading_process(store, nestools_files, feed_always):
    """``options={"api_ids": ...}`` (``import dataset --api-ids``): the reading process reads the
    ids from the file given, not from beside the data (where there is none)."""
    data = nestools_files(300)
    elsewhere = data.parent.parent / "ids-kept-elsewhere.jsonl"
    (data.parent / "test_api_ids.jsonl").rename(elsewhere)
    with pytest.raises(InputError, match="--api-ids"):
        store.import_dataset(data)
    store.import_dataset(data, name="apart", options={"api_ids": elsewhere})
    assert feed_always and feed_always[-1].options == {"api_ids": str(elsewhere)}
    assert _count(store, item_t) == 300


def test_big_items_come_in_chunks_of_bounded_size(store, tmp_path, feed_always):
    """1,000 items a chunk is ~3 MB of NesTools JSON, but a gigabyte of items of a megabyte:
    a chunk also ends at about CHUNK_BYTES of text, so the importer's memory stays bounded."""
    import json

    path = R.nestools_like(tmp_path / "big", 24)
    lines = [json.loads(x) for x in path.read_text().splitlines()]
    for rec in lines:
        rec["notes"] = "n" * 1_000_000  # a megabyte an item, in raw
    path.write_text("".join(json.dumps(rec) + "\n" for rec in lines))
    summary = store.import_dataset(path, format="nestools", name="big")
    assert summary.added == 24 and feed_always[0].received == 3  # 8 items of ~1 MB a chunk, not one chunk
    assert store.find_item("big", "24").raw == lines[-1]


def test_a_reimport_compares_the_stored_texts_and_decodes_only_what_differs(store, nestools_files, feed_always,
                                                                            monkeypatch):
    """Re-importing 100,000 unchanged items took 4x the first import: every stored record was
    decoded and compared value by value. The reading process's texts are compared with the
    stored ones first; only a record whose text differs is decoded (and may still be the same)."""
    import json

    from reviewer.store import importing

    path = nestools_files(1500)
    store.import_dataset(path, format="nestools", name="nt")
    decoded = []
    real = importing._stored_values
    # the records decoded (the stored texts and the file's, each by its test_id)
    monkeypatch.setattr(importing, "_stored_values",
                        lambda texts: (decoded.append(json.loads(texts[0])["test_id"]), real(texts))[1])
    again = store.import_dataset(path, format="nestools", name="nt")
    assert (again.added, again.unchanged, again.changed_in_source, len(decoded)) == (0, 1500, [], 0)
    lines = path.read_text().splitlines()
    respaced = json.loads(lines[9])  # the same record in other text: decoded, still unchanged
    changed = json.loads(lines[19])
    changed["task"] += " (reworded)"
    lines[9], lines[19] = json.dumps(respaced, indent=None, separators=(",", ":"), sort_keys=True), json.dumps(changed)
    path.write_text("\n".join(lines) + "\n")
    again = store.import_dataset(path, format="nestools", name="nt")
    assert (again.unchanged, again.changed_in_source) == (1499, ["20"]) and sorted(set(decoded)) == [10, 20]
