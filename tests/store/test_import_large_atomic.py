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
