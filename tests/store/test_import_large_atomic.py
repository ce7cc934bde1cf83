"""A large import is all or nothing: a bad line at item 90,000 leaves the database as it was.

Issue 14's bulk path (orjson decoding, a store check skipped for values the reader
already checked, COPY on PostgreSQL) must keep the import's contract: one
transaction, and an error naming the file and line. The file holds 90,000 small
NesTools items; line 90,000 is made bad in two ways -- a NUL character escaped in
a string (decoded fine, refused as unstorable: the reader's "clean line" shortcut
must not let it through) and a truncated line (refused by the decoder). Before and
after, every row of every table hashes the same; on SQLite the database file's
bytes are the same as well (PostgreSQL's sequences advance in a rolled-back
transaction by design, so its rows are compared, not its files). Re-importing the
good file twice then adds 90,000 items once.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from reviewer.errors import InputError
from reviewer.store import Store
from tests.fuzz.forkrun import digest
from tests.store import records as R
from reviewer.store.importing import import_dataset
from reviewer.jobs import silent

N = 90_000


def _write(folder: Path, bad: str | None) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    with (folder / "test_data.jsonl").open("w") as data, (folder / "test_api_ids.jsonl").open("w") as ids:
        for i in range(1, N + 1):
            rec = {"test_id": i, "api": [{"api_name": "lookup", "parameters": {"q": {"type": "str"}}}],
                   "task": f"find item {i}",
                   "call": [{"api_name": "lookup", "parameters": {"q": f"q{i}"}, "responses": ["API_call_0"]},
                            {"api_name": "lookup", "parameters": {"q": "API_call_0"}, "responses": ["API_call_1"]}],
                   "field": "bench"}
            line = json.dumps(rec)
            if i == N and bad == "nul":
                line = line.replace(f"find item {i}", "find\\u0000item")
            elif i == N and bad == "truncated":
                line = line[: len(line) // 2]
            data.write(line + "\n")
            ids.write(json.dumps({"test_id": i, "api_ids": [7]}) + "\n")
    return folder / "test_data.jsonl"


def _file_hash(url: str) -> str | None:
    if url.startswith("postgresql"):
        return None
    return hashlib.sha256(Path(url).read_bytes()).hexdigest()


@pytest.fixture(params=["sqlite", "postgresql"])
def url(request, tmp_path):
    if request.param == "sqlite":
        return str(tmp_path / "big.sqlite3")
    return request.getfixturevalue("pg_url")


@pytest.mark.parametrize("bad", ["nul", "truncated"])
def test_bad_line_at_item_90000_leaves_the_database_as_it_was(url, tmp_path, bad):
    store = Store(url)
    import_dataset(store.engine, R.dataset([R.item(0), R.item(1)]), silent())  # something to keep
    store.close()  # SQLite: the last connection to close moves the WAL into the file; snapshot after that
    path = _write(tmp_path / "nestools_big", bad)
    before_rows, before_file = digest(url), _file_hash(url)
    store = Store(url)
    with pytest.raises(InputError) as err:
        store.import_dataset(path, format="nestools")
    message = str(err.value)
    assert f"line {N}" in message and "test_data.jsonl" in message
    assert ("NUL" in message) if bad == "nul" else ("truncated" in message)
    store.close()
    assert digest(url) == before_rows
    assert _file_hash(url) == before_file
    store = Store(url)
    assert [d.name for d in store.datasets()] == ["demo"]
    store.close()


def test_90000_items_import_once_and_reimport_adds_nothing(url, tmp_path):
    store = Store(url)
    path = _write(tmp_path / "nestools_big", None)
    first = store.import_dataset(path, format="nestools")
    assert first.added == N
    again = store.import_dataset(path, format="nestools")
    assert again.added == 0 and again.unchanged == N and not again.changed_in_source
    ds = store.dataset(first.dataset)
    assert ds.items == N
    store.close()


def _refuse_position_2500(url: str) -> None:
    """A trigger that makes the database refuse the item at position 2500."""
    if url.startswith("postgresql"):
        import psycopg

        plain, schema = url.split("?")[0], url.split("search_path%3D")[1]
        with psycopg.connect(plain, autocommit=True) as conn:
            conn.execute(f"""create function {schema}.refuse_item() returns trigger language plpgsql as $$
                begin if new.position = 2500 then raise exception 'refused by the test'; end if; return new; end $$""")
            conn.execute(f"create trigger refuse before insert on {schema}.item for each row "
                         f"execute function {schema}.refuse_item()")
        return
    import sqlite3

    conn = sqlite3.connect(url)
    conn.execute("create trigger refuse before insert on item when new.position = 2500 "
                 "begin select raise(abort, 'refused by the test'); end")
    conn.commit()
    conn.close()


def test_a_chunk_the_database_refuses_reaches_the_user_and_writes_nothing(url, tmp_path):
    """A chunk the database refuses mid-import (a trigger stands in for any failure on the
    server's side) ends the import with the usual short message naming the cause, every row
    as it was, and no writer thread left behind (PostgreSQL writes on one, importing._Writer).
    The bulk paths talk to the driver directly; its errors must come out as SQLAlchemy's,
    or they pass the import's error handling and reach the user as a traceback."""
    import threading

    from reviewer.errors import ReviewerError

    store = Store(url)
    import_dataset(store.engine, R.dataset([R.item(0), R.item(1)]), silent())
    store.close()
    _refuse_position_2500(url)
    folder = tmp_path / "small"
    folder.mkdir()
    with (folder / "test_data.jsonl").open("w") as data, (folder / "test_api_ids.jsonl").open("w") as ids:
        for i in range(1, 5001):
            data.write(json.dumps({"test_id": i, "api": [], "task": f"t{i}", "call": []}) + "\n")
            ids.write(json.dumps({"test_id": i, "api_ids": []}) + "\n")
    before = digest(url)
    store = Store(url)
    with pytest.raises(ReviewerError) as err:
        store.import_dataset(folder / "test_data.jsonl", format="nestools")
    assert "nothing was written" in str(err.value) and "refused by the test" in str(err.value)
    assert not [t for t in threading.enumerate() if t.name == "reviewer-import-writer"]
    store.close()
    assert digest(url) == before
