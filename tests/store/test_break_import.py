"""Red-team of the dataset import path (NesTools: the in-process reader and the reading
child process of reviewer.store.import_feed, on SQLite and PostgreSQL).

Every test asserts on an effect: what the Store's public readers give back compared with the
file's values (exact JSON text: 1, 1.0 and true differ, key order counts), what an export
writes compared with the source lines, the database's row counts after a refused import, and
that no child process, writer thread, file descriptor or temporary file is left behind.

Tests that show a real defect are marked ``xfail(strict=True)``: they pass once it is fixed."""

from __future__ import annotations

import json
import os
import re
import tempfile
import threading
from pathlib import Path

import pytest
from sqlalchemy import func, select

from reviewer.callgraph import chain_depth
from reviewer.errors import InputError, ReviewerError
from reviewer.jobs import Cancelled, JobContext
from reviewer.store import Store, import_feed
from reviewer.store.models import Dataset, Item
from tests.store.records import exact

item_t, dataset_t = Item.__table__, Dataset.__table__


# ---- fixtures and helpers (the store fixture is tests/conftest.py's: SQLite and PostgreSQL) -----------


@pytest.fixture
def private_tmp(tmp_path, monkeypatch):
    """A temporary folder of this test's own for tempfile (here and in a reading process)."""
    folder = tmp_path / "tmpdir"
    folder.mkdir()
    monkeypatch.setenv("TMPDIR", str(folder))
    monkeypatch.setattr(tempfile, "tempdir", str(folder))
    return folder


@pytest.fixture(params=["here", "feed"])
def read_path(request, monkeypatch, private_tmp):
    """Which reader the import uses: in this process ("here") or the reading child ("feed",
    forced on small files). Gives ``.mode`` and ``.started``, the feeds started (none for "here")."""
    started: list = []
    real_start = import_feed.Feed.start

    def start(self):
        started.append(self)
        return real_start(self)

    monkeypatch.setattr(import_feed.Feed, "start", start)
    if request.param == "feed":
        monkeypatch.setattr(import_feed, "MIN_BYTES", 0)
    else:
        monkeypatch.setenv("REVIEWER_IMPORT_FEED", "0")
    return _ReadPath(request.param, started)


class _ReadPath:
    """Which reader an import used, and the feeds it started."""

    def __init__(self, mode: str, started: list):
        self.mode = mode
        self.started = started


def _children() -> list[int]:
    """Pids of this process's living children (from /proc; zombies count: nobody waited)."""
    me = str(os.getpid())
    out = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as fh:
                fields = fh.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if fields[1] == me:
            out.append(int(entry))
    return out


def _fds() -> int:
    return len(os.listdir("/proc/self/fd"))


def _writer_threads() -> list[threading.Thread]:
    return [t for t in threading.enumerate() if t.name == "reviewer-import-writer" and t.is_alive()]


class Leaks:
    """Snapshot before an import; ``check()`` after: no child, thread, fd or temp file left."""

    def __init__(self, tmpdir: Path):
        self.tmpdir = tmpdir
        self.fds = _fds()
        self.children = set(_children())

    def check(self) -> None:
        assert set(_children()) - self.children == set(), "a child process was left behind"
        assert _writer_threads() == [], "an import writer thread was left running"
        assert _fds() <= self.fds, "file descriptors were left open"
        assert list(self.tmpdir.iterdir()) == [], "a temporary file was left behind"


def _count(store, table) -> int:
    with store.engine.connect() as conn:
        return conn.execute(select(func.count()).select_from(table)).scalar_one()


API = [{"api_name": "search", "api_description": "find", "parameters": {"q": {"type": "str"}},
        "required": ["q"], "responses": {"hits": {"type": "list"}}}]
TASK = "Search for the filings of the company and list them by year"


def nt_record(i, **changes) -> dict:
    rec = {"test_id": i, "api": API, "task": f"{TASK} (case {i})",
           "call": [{"api_name": "search", "parameters": {"q": f"thing {i}", "n": 1}, "responses": ["API_call_0"]}],
           "field": "finance"}
    rec.update(changes)
    return rec


def write_files(folder: Path, data: list[bytes] | bytes, ids: list[bytes] | bytes) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "test_data.jsonl").write_bytes(data if isinstance(data, bytes) else b"".join(data))
    (folder / "test_api_ids.jsonl").write_bytes(ids if isinstance(ids, bytes) else b"".join(ids))
    return folder / "test_data.jsonl"


def line_of(rec) -> bytes:
    return json.dumps(rec, ensure_ascii=False).encode() + b"\n"


def ids_line(test_id, n=1) -> bytes:
    return json.dumps({"test_id": test_id, "api_ids": list(range(100, 100 + n))}).encode() + b"\n"


def write_records(folder: Path, records: list[dict]) -> Path:
    return write_files(folder, [line_of(r) for r in records], [ids_line(r["test_id"], len(r["api"])) for r in records])


def read_jsonl(path: Path) -> list:
    """The values of a JSON Lines file as written (lines split at \\n only: U+2028 is text)."""
    return [json.loads(x) for x in path.read_text(encoding="utf-8").split("\n") if x.strip()]


def _source(path: Path) -> list[tuple[int, dict]]:
    """(line number, record) of every non-blank line, as Python's json reads it (the reference)."""
    text = path.read_bytes().decode("utf-8-sig")
    lines = re.split(r"\r\n|\r|\n", text)  # universal newlines: not U+2028 and the like
    return [(n, json.loads(line)) for n, line in enumerate(lines, 1) if line.strip(" \t\r\n")]


def assert_stored_as_file(store, name: str, data: Path, ids: Path) -> None:
    """Every item reads back as its line says, through the Store's public readers."""
    source = _source(data)
    id_records = [rec for _, rec in _source(ids)]
    assert store.dataset(name).items == len(source)
    for (line, rec), ids_rec in zip(source, id_records):
        item = store.find_item(name, str(rec["test_id"]))
        assert exact(item.raw) == exact(rec), line
        assert item.question == rec["task"], line
        assert exact(item.gold) == exact(rec["call"]), line
        assert exact(item.original_gold) == exact(rec["call"]), line
        assert exact(item.payload) == exact({"apis": rec["api"], "api_ids": ids_rec["api_ids"]}), line
        assert item.domain == rec.get("field"), line
        assert item.depth == chain_depth(rec["call"]), line
        assert item.source_line == line


# ---- 1. awkward but valid values: stored, read back, re-imported and exported exactly -------------

DEEP = "[" * 110 + "]" * 110
AWKWARD_LINES = [
    # big integers beyond 64 bits and at its edges, in raw and in the gold
    '{"test_id": 1, "api": %(api)s, "task": "%(task)s one", "call": [{"api_name": "search", "parameters": '
    '{"n": 9223372036854775808, "m": -9223372036854775809}, "responses": ["API_call_0"]}], "field": "f",'
    ' "ints": [9223372036854775807, 9223372036854775808, -9223372036854775808, -9223372036854775809,'
    ' 18446744073709551616, 100000000000000000000000000000, -0, 0]}',
    # floats: signed zero, 1.0 beside 1, underflow to 0.0, the extremes, exponents
    '{"test_id": 2, "api": %(api)s, "task": "%(task)s two", "call": [{"api_name": "search", "parameters": '
    '{"x": -0.0, "y": 1.0, "z": 1}}], "floats": [-0.0, 0.0, 1.0, 1, 1e-400, 5e-324, 1.7976931348623157e308,'
    ' 0.1, 1E2, 1e16, 123456789012345678.5, 2.5e-5, true, false, null]}',
    # duplicate keys: Python's json keeps the first key's place and the last value
    '{"test_id": 3, "task": "an earlier task that is long enough to be referenced", "api": %(api)s,'
    ' "call": [{"api_name": "first", "parameters": {}}], "task": "%(task)s three",'
    ' "call": [{"api_name": "search", "parameters": {"q": "a", "q": "b"}}], "test_id": 3}',
    # text: escapes, an escaped surrogate pair, U+2028, a BOM and U+FFFF inside a string, CJK
    '{"test_id": "x y\\u00e9", "api": %(api)s, "task": "caf\\u00e9 \\ud83d\\ude00 \u2028 \ufeff \uffff'
    ' \\"quoted\\" \\\\ back\\/slash 東京 %(task)s", "call": [{"api_name": "search", "parameters":'
    ' {"q": "\\ud83d\\ude00\\t\\n\\r"}, "responses": ["API_call_0"]}], "field": null}',
    # keys spelling the storage rule's names, a copy of the task and of the call under other keys
    '{"test_id": -5, "api": %(api)s, "task": "%(task)s five", "call": [{"api_name": "search", "parameters": {}}],'
    ' "question": "question", "original_gold": "original_gold", "raw_refs": {"task": "question"},'
    ' "_from_raw": ["api"], "apis": "api", "alias": "%(task)s five", "copy": [{"api_name": "search",'
    ' "parameters": {}}], "gold": "original_gold"}',
    # nesting near the limit (more brackets than the fast path takes: it hands over)
    '{"test_id": 6, "api": %(api)s, "task": "%(task)s six", "call": [{"api_name": "search", "parameters":'
    ' {"deep": %(deep)s}, "responses": ["API_call_0"]}, {"api_name": "search", "parameters": {"q": '
    '{"k": ["API_call_0"]}}, "responses": []}], "deep": %(deep)s}',
    # an id of 19 digits (read by json, not orjson), an empty api list, a call without responses
    '{"test_id": 1234567890123456789, "api": [], "task": "", "call": [], "field": ""}',
    # id 0, and a float at the top of the range in the gold
    '{"test_id": 0, "api": %(api)s, "task": "%(task)s zero", "call": [{"api_name": "s", "parameters": {"v": 1e308}}]}',
    # nesting at the limit exactly: the record is level 1, then 127 lists (128 levels)
    '{"test_id": 9, "api": [], "task": "%(task)s nine", "call": [], "deepest": ' + "[" * 127 + "]" * 127 + '}',
]


def _awkward_files(folder: Path, layout: str) -> Path:
    api = json.dumps(API)
    lines = [(t % {"api": api, "task": TASK, "deep": DEEP}).encode() for t in AWKWARD_LINES]
    recs = [json.loads(x) for x in lines]
    ids = [json.dumps({"test_id": r["test_id"], "api_ids": [7, 7.0, -0.0][: len(r["api"])] or []}).encode()
           for r in recs]
    if layout == "lf":
        data_b, ids_b = b"\n".join(lines) + b"\n", b"\n".join(ids) + b"\n"
    elif layout == "crlf_bom_blank":
        # a BOM, CRLF endings, a blank and a blank-looking line in the middle, no final newline
        body = lines[:3] + [b"", b" \t"] + lines[3:]
        data_b = b"\xef\xbb\xbf" + b"\r\n".join(body)
        ids_b = b"\xef\xbb\xbf" + b"\r\n".join(ids) + b"\r\n"
    elif layout == "lone_cr":  # classic Mac line endings, which iter_jsonl reads as lines
        data_b, ids_b = b"\r".join(lines) + b"\r", b"\r".join(ids) + b"\r"
    else:
        raise AssertionError(layout)
    return write_files(folder, data_b, ids_b)


@pytest.mark.parametrize("layout", ["lf", "crlf_bom_blank", "lone_cr"])
def test_awkward_values_are_stored_reimported_and_exported_exactly(store, read_path, tmp_path, layout):
    data = _awkward_files(tmp_path / "src", layout)
    ids = data.parent / "test_api_ids.jsonl"
    leaks = Leaks(tmp_path / "tmpdir")
    first = store.import_dataset(data, format="nestools", name="nt")
    leaks.check()
    assert len(read_path.started) == (1 if read_path.mode == "feed" else 0)
    assert (first.added, first.unchanged, first.changed_in_source) == (len(AWKWARD_LINES), 0, [])
    assert_stored_as_file(store, "nt", data, ids)

    again = store.import_dataset(data, format="nestools", name="nt")
    assert (again.added, again.unchanged, again.changed_in_source) == (0, len(AWKWARD_LINES), [])
    leaks.check()

    out = tmp_path / "out"
    store.export_dataset("nt", out)
    got = read_jsonl(out / "test_data.jsonl")
    assert [exact(r) for r in got] == [exact(r) for _, r in _source(data)]
    got_ids = read_jsonl(out / "test_api_ids.jsonl")
    assert [exact(r) for r in got_ids] == [exact(r) for _, r in _source(ids)]


def test_both_read_paths_store_the_same_rows(db_url, tmp_path, monkeypatch, private_tmp):
    """The two readers, on the awkward file, give the same columns as exact JSON text."""
    data = _awkward_files(tmp_path / "src", "lf")
    store = Store(db_url)
    try:
        monkeypatch.setenv("REVIEWER_IMPORT_FEED", "0")
        store.import_dataset(data, format="nestools", name="here")
        monkeypatch.delenv("REVIEWER_IMPORT_FEED")
        monkeypatch.setattr(import_feed, "MIN_BYTES", 0)
        store.import_dataset(data, format="nestools", name="fed")
        cols = [c for c in item_t.c if c.name not in ("id", "dataset_id")]

        def rows(name):
            with store.engine.connect() as conn:
                return [[exact(v) for v in r] for r in conn.execute(
                    select(*cols).join(dataset_t, dataset_t.c.id == item_t.c.dataset_id)
                    .where(dataset_t.c.name == name).order_by(item_t.c.position))]

        assert rows("here") == rows("fed")
    finally:
        store.close()


# ---- 2. bad input: an InputError naming file and line, nothing written, nothing left running -------


def _bad_cases() -> dict[str, tuple]:
    """name -> (data line 4 or None, ids line 4 or None, file the error names, message fragment)."""
    ok = line_of(nt_record(4))
    deep = "[" * 200 + "]" * 200
    return {
        "infinity": (ok.replace(b'"n": 1', b'"n": 1e400'), None, "data", "Infinity"),
        "minus_infinity_in_raw": (ok.replace(b'"field"', b'"big": -1.8e308, "field"'), None, "data", "Infinity"),
        "nan": (ok.replace(b'"n": 1', b'"n": NaN'), None, "data", "NaN"),
        "nul_escape": (ok.replace(b"Search", b"Sea\\u0000rch"), None, "data", "NUL"),
        "nul_in_key": (ok.replace(b'"field"', b'"fi\\u0000eld"'), None, "data", "NUL"),
        "lone_surrogate": (ok.replace(b"Search", b"\\udc00Search"), None, "data", "surrogate"),
        "surrogate_key": (ok.replace(b'"field"', b'"\\ud800"'), None, "data", "surrogate"),
        "too_deep": (ok.replace(b'"n": 1', b'"n": ' + deep.encode()), None, "data", "nested"),
        "depth_129": (line_of(nt_record(4, api=[], deepest=json.loads("[" * 128 + "]" * 128))), ids_line(4, 0),
                      "data", "nested"),
        "lone_cr": (ok[:60] + b"\r" + ok[60:], None, "data", "truncated"),
        "huge_int": (ok.replace(b'"n": 1', b'"n": ' + b"9" * 5000), None, "data", "digits"),
        "truncated": (ok[:-3] + b"\n", None, "data", "truncated"),
        "not_utf8": (ok.replace(b"Search", b"S\xffearch"), None, "data", "UTF-8"),
        "raw_nul_byte": (ok.replace(b"Search", b"Sea\x00rch"), None, "data", "invalid"),
        "bom_mid_file": (b"\xef\xbb\xbf" + ok, None, "data", "BOM"),
        "bool_id": (line_of(nt_record(True)), ids_line(True), "data", "expected"),
        "float_id": (line_of(nt_record(4.5)), ids_line(4.5), "data", "expected"),
        "int_and_str_id": (line_of(nt_record("1")), ids_line("1"), "data", "duplicate"),
        "call_not_list": (line_of(nt_record(4, call={"api_name": "x"})), None, "data", "expected"),
        "ids_out_of_step": (None, ids_line(99), "ids", "test_id 99"),
        "ids_wrong_length": (None, ids_line(4, 3), "ids", "api ids"),
    }


@pytest.mark.parametrize("case", sorted(_bad_cases()))
def test_a_bad_line_after_a_plain_prefix_names_its_line_and_writes_nothing(store, read_path, tmp_path, case):
    bad_data, bad_ids, which, fragment = _bad_cases()[case]
    data_lines = [line_of(nt_record(i)) for i in range(1, 7)]
    id_lines = [ids_line(i) for i in range(1, 7)]
    if bad_data is not None:
        data_lines[3] = bad_data
    if bad_ids is not None:
        id_lines[3] = bad_ids
    data = write_files(tmp_path / "src", data_lines, id_lines)
    named = data if which == "data" else data.parent / "test_api_ids.jsonl"
    leaks = Leaks(tmp_path / "tmpdir")
    try:
        store.import_dataset(data, format="nestools", name="bad")
    except InputError as exc:  # kept as its fields only: a traceback holds the reader's frames
        path, where, message = exc.path, exc.where, exc.message
    else:
        pytest.fail("imported")
    assert path == str(named)
    assert where and where.startswith("line 4"), where
    assert fragment in message
    assert (_count(store, item_t), _count(store, dataset_t)) == (0, 0)
    leaks.check()
    assert len(read_path.started) == (1 if read_path.mode == "feed" else 0)


# ---- 3. record ids the item table cannot hold as given ----------------------------------------------


@pytest.mark.parametrize("record_id", ["r" * 201, "r" * 200 + "   "], ids=["201_chars", "200_chars_and_spaces"])
def test_a_record_id_longer_than_the_column_is_refused_alike_naming_its_line(store, tmp_path, record_id):
    data = write_records(tmp_path / "src", [nt_record(1), nt_record(record_id), nt_record(3)])
    try:
        store.import_dataset(data, format="nestools", name="long")
    except InputError as exc:
        assert exc.path == str(data) and exc.where.startswith("line 2")
        assert (_count(store, item_t), _count(store, dataset_t)) == (0, 0)
        return
    except ReviewerError as exc:
        pytest.fail(f"not an InputError naming the line: {exc}")
    # stored: then it must read back as the file says, and a re-import must find it
    assert store.find_item("long", record_id).record_id == record_id
    again = store.import_dataset(data, format="nestools", name="long")
    assert (again.added, again.unchanged) == (0, 3)
    pytest.fail("stored on this backend, but the other one cannot store it the same way")


def test_trailing_spaces_postgresql_would_cut_are_refused_before_it_sees_them(pg_url, tmp_path):
    """PostgreSQL cuts trailing spaces that overflow varchar(200) without a word: stored under
    another id, the item could not be found by its own, and importing the file again failed
    blaming a concurrent user. The id is refused first, naming its line, every time."""
    store = Store(pg_url)
    try:
        record_id = "r" * 200 + "  "
        data = write_records(tmp_path / "src", [nt_record(1), nt_record(record_id)])
        for _ in range(2):
            with pytest.raises(InputError, match="202 characters long") as err:
                store.import_dataset(data, format="nestools", name="long")
            assert err.value.where == "line 2"
            assert (_count(store, item_t), _count(store, dataset_t)) == (0, 0)
    finally:
        store.close()


# ---- 4. re-import counting ----------------------------------------------------------------------


@pytest.mark.parametrize("new_value", [True, 1.0], ids=["true", "1.0"])
def test_a_value_changed_to_one_python_calls_equal_is_changed_in_source(store, read_path, tmp_path, new_value):
    base = [nt_record(i) for i in range(1, 4)] + [nt_record(4, extra=0)]
    store.import_dataset(write_records(tmp_path / "a", base), format="nestools", name="nt")
    changed = list(base)
    changed[1] = nt_record(2, call=[{"api_name": "search", "parameters": {"q": "thing 2", "n": new_value},
                                     "responses": ["API_call_0"]}])  # the gold: n 1 -> true / 1.0
    changed[3] = nt_record(4, extra=False)  # raw only: 0 -> false
    again = store.import_dataset(write_records(tmp_path / "c", changed), format="nestools", name="nt")
    assert again.changed_in_source == ["2", "4"]
    assert (again.added, again.unchanged) == (0, 2)


def test_a_changed_ids_file_is_reported_on_reimport(store, read_path, tmp_path):
    recs = [nt_record(i) for i in range(1, 4)]
    data = write_records(tmp_path / "a", recs)
    store.import_dataset(data, format="nestools", name="nt")
    fixed = [ids_line(1), b'{"test_id": 2, "api_ids": [4242]}\n', ids_line(3)]
    (data.parent / "test_api_ids.jsonl").write_bytes(b"".join(fixed))
    again = store.import_dataset(data, format="nestools", name="nt")
    assert store.find_item("nt", "2").payload["api_ids"] == [100]  # kept as stored, as documented
    assert again.changed_in_source == ["2"]


def test_reimport_after_a_gold_edit_and_a_new_item_then_export(store, read_path, tmp_path):
    recs = [nt_record(i) for i in range(1, 5)]
    data = write_records(tmp_path / "a", recs)
    store.import_dataset(data, format="nestools", name="nt")
    item = store.find_item("nt", "2")
    edit = [{"api_name": "edited", "parameters": {"n": 1.0}}]
    store.set_gold(item.id, edit, "carol", item.version)
    grown = recs + [nt_record(5)]
    again = store.import_dataset(write_records(tmp_path / "b", grown), format="nestools", name="nt")
    assert (again.added, again.unchanged, again.changed_in_source) == (1, 4, [])
    assert store.find_item("nt", "5").position == 4
    out = tmp_path / "out"
    store.export_dataset("nt", out)
    got = [json.loads(x) for x in (out / "test_data.jsonl").read_text().splitlines()]
    want = [dict(r, call=edit) if r["test_id"] == 2 else r for r in grown]
    assert [exact(g) for g in got] == [exact(w) for w in want]


# ---- 5. the reading process: killed, cancelled, its working folder --------------------------------


def _many(folder: Path, n: int) -> Path:
    return write_records(folder, [nt_record(i) for i in range(1, n + 1)])


def test_a_reading_process_killed_midway_is_replaced_and_the_items_stored_once(store, tmp_path, monkeypatch,
                                                                            private_tmp):
    started = []
    real_start = import_feed.Feed.start
    monkeypatch.setattr(import_feed.Feed, "start", lambda self: (started.append(self), real_start(self))[1])
    monkeypatch.setattr(import_feed, "MIN_BYTES", 0)
    data = _many(tmp_path / "src", 2500)  # three chunks from the child: killed after the first
    killed = []

    def on_progress(p):
        if started and p.done >= 1000 and not killed and started[0].proc is not None:
            started[0].proc.kill()
            killed.append(p.done)

    leaks = Leaks(tmp_path / "tmpdir")
    summary = store.import_dataset(data, format="nestools", name="nt", ctx=JobContext(on_progress=on_progress))
    assert killed and len(started) == 1
    assert (summary.added, summary.unchanged) == (2500, 0)
    assert _count(store, item_t) == 2500
    with store.engine.connect() as conn:
        positions = list(conn.execute(select(item_t.c.position).order_by(item_t.c.position)).scalars())
    assert positions == list(range(2500))
    leaks.check()


def test_cancel_on_either_path_leaves_nothing(store, read_path, tmp_path):
    data = _many(tmp_path / "src", 2500)
    ctx = JobContext(on_progress=lambda p: ctx.cancel() if p.done >= 1000 else None)
    leaks = Leaks(tmp_path / "tmpdir")
    with pytest.raises(Cancelled):
        store.import_dataset(data, format="nestools", name="cancelled", ctx=ctx)
    assert (_count(store, item_t), _count(store, dataset_t)) == (0, 0)
    leaks.check()


SHADOW = '''
import os, sys
with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "RAN"), "a") as fh:
    fh.write("%d %r\\n" % (os.getpid(), sys.argv))
here = os.path.dirname(os.path.abspath(__file__))
sys.path[:] = [p for p in sys.path if os.path.abspath(p or ".") != here]
del sys.modules[__name__]
import tempfile as _real
sys.modules[__name__] = _real
'''


def test_the_reading_process_does_not_run_code_from_the_working_folder(tmp_path, monkeypatch, private_tmp):
    monkeypatch.setattr(import_feed, "MIN_BYTES", 0)
    cwd = tmp_path / "untrusted-dataset-repo"
    cwd.mkdir()
    (cwd / "tempfile.py").write_text(SHADOW)
    data = _many(cwd / "data", 5)
    store = Store(str(tmp_path / "db.sqlite3"))
    try:
        monkeypatch.chdir(cwd)
        assert store.import_dataset(data, format="nestools", name="nt").added == 5
    finally:
        store.close()
    assert not (cwd / "RAN").exists(), (cwd / "RAN").read_text()


# ---- 6. the file read twice by the fast path's hand-over ----------------------------------------


def test_a_file_replaced_while_it_is_read_is_not_stored_as_a_mix(store, tmp_path, monkeypatch):
    from reviewer.formats import nestools

    monkeypatch.setenv("REVIEWER_IMPORT_FEED", "0")
    old = [nt_record(i) for i in range(1, 7)]
    old_lines = [line_of(r) for r in old]
    old_lines[4] = old_lines[4].replace(b'"n": 1', b'"n": 1234567890123456789')  # not plain: hand-over at line 5
    data = write_files(tmp_path / "src", old_lines, [ids_line(i) for i in range(1, 7)])
    new = [nt_record(i, task=f"{TASK} (version 2, case {i})") for i in range(1, 7)]
    real_items = nestools._items

    def items_after_a_save(pairs, ctx):
        # an editor saves the file (write a new one, rename it over the old) at the hand-over
        tmp = data.with_suffix(".new")
        tmp.write_bytes(b"".join(line_of(r) for r in new))
        os.replace(tmp, data)
        return real_items(pairs, ctx)

    monkeypatch.setattr(nestools, "_items", items_after_a_save)
    try:
        store.import_dataset(data, format="nestools", name="nt")
    except InputError:
        assert _count(store, item_t) == 0
        return
    tasks = [store.find_item("nt", str(i)).question for i in range(1, 7)]
    assert tasks in ([r["task"] for r in old], [r["task"] for r in new]), tasks


# ---- 7. export ------------------------------------------------------------------------------------


def test_an_ids_file_with_the_data_files_name_exports_both_files(store, tmp_path):
    recs = [nt_record(i) for i in range(1, 4)]
    (tmp_path / "data").mkdir()
    (tmp_path / "ids").mkdir()
    data = tmp_path / "data" / "test.jsonl"
    ids = tmp_path / "ids" / "test.jsonl"
    data.write_bytes(b"".join(line_of(r) for r in recs))
    ids.write_bytes(b"".join(ids_line(r["test_id"]) for r in recs))
    store.import_dataset(data, format="nestools", name="nt", options={"api_ids": ids})
    out = tmp_path / "out"
    written = store.export_dataset("nt", out)
    assert len(set(written)) == 2, written
    exported = sorted(p for p in out.rglob("*") if p.is_file())
    texts = [p.read_bytes() for p in exported]
    assert any([json.loads(x) for x in t.splitlines()] == recs for t in texts), "the data file was lost"


@pytest.mark.xfail(strict=True, reason="the ids file's records are not stored: export writes {test_id (the data "
                   "file's), api_ids} only, dropping other keys and a test_id written 3.0")
@pytest.mark.parametrize("ids_text", [b'{"test_id": 2, "api_ids": [100], "source": "v2"}\n',
                                      b'{"test_id": 2.0, "api_ids": [100]}\n'], ids=["extra_key", "float_id"])
def test_the_exported_ids_file_equals_the_source(store, tmp_path, ids_text):
    recs = [nt_record(i) for i in range(1, 4)]
    data = write_files(tmp_path / "src", [line_of(r) for r in recs], [ids_line(1), ids_text, ids_line(3)])
    store.import_dataset(data, format="nestools", name="nt")
    out = tmp_path / "out"
    store.export_dataset("nt", out)
    src = [exact(json.loads(x)) for x in (data.parent / "test_api_ids.jsonl").read_text().splitlines()]
    got = [exact(json.loads(x)) for x in (out / "test_api_ids.jsonl").read_text().splitlines()]
    assert got == src


def test_an_export_that_cannot_write_its_second_file_says_so_and_leaves_nothing(store, tmp_path):
    data = write_records(tmp_path / "src", [nt_record(i) for i in range(1, 4)])
    store.import_dataset(data, format="nestools", name="nt")
    out = tmp_path / "out"
    (out / "test_api_ids.jsonl").mkdir(parents=True)  # the ids file cannot be written
    try:
        store.export_dataset("nt", out)
    except ReviewerError:  # what the CLI and the GUI show as a message
        pass
    except OSError as exc:  # the CLI's main() lets it through: a traceback
        pytest.fail(f"a traceback reaches the user: {exc!r}; left behind: {sorted(p.name for p in out.iterdir())}")
    else:
        pytest.fail("exported")
    assert not (out / "test_data.jsonl").exists()  # nothing half-exported


# ---- 8. names, other formats, runs ----------------------------------------------------------------


def test_a_dataset_name_longer_than_the_column_is_refused_alike(store, tmp_path):
    data = write_records(tmp_path / "src", [nt_record(1)])
    with pytest.raises(ReviewerError, match="name") as err:
        store.import_dataset(data, format="nestools", name="n" * 201)
    assert "value too long" not in str(err.value)
    assert (_count(store, item_t), _count(store, dataset_t)) == (0, 0)


def test_a_dataset_of_another_format_under_the_name_ends_the_reading_process(store, read_path, tmp_path):
    from reviewer.jobs import silent
    from reviewer.store.importing import import_dataset
    from tests.store import records as R

    import_dataset(store.engine, R.dataset([R.item(1)], name="nt"), silent())
    data = write_records(tmp_path / "src", [nt_record(i) for i in range(1, 4)])
    leaks = Leaks(tmp_path / "tmpdir")
    with pytest.raises(InputError, match="already exists with format"):
        store.import_dataset(data, format="nestools", name="nt")
    assert (_count(store, item_t), _count(store, dataset_t)) == (1, 1)
    leaks.check()


def test_a_prediction_changed_to_a_value_python_calls_equal_is_changed_in_source(store, tmp_path):
    data = write_records(tmp_path / "src", [nt_record(i) for i in range(1, 3)])
    store.import_dataset(data, format="nestools", name="nt")
    run = tmp_path / "model-a"
    run.mkdir()
    preds = run / "raw_response.jsonl"
    preds.write_text('{"test_id": 1, "response": "[]", "score": 1}\n{"test_id": 2, "response": "[]", "score": 1}\n')
    store.import_runs("nt", preds)
    preds.write_text('{"test_id": 1, "response": "[]", "score": true}\n{"test_id": 2, "response": "[]", "score": 1}\n')
    [(_, summary)] = store.import_runs("nt", preds).files
    assert summary.changed_in_source == ["1"] and summary.unchanged == 1


def test_a_json_text_whose_number_overflows_with_a_short_exponent_is_refused(store):
    from reviewer.jobs import silent
    from reviewer.store.importing import import_dataset
    from tests.store import records as R

    overflowing = '{"filings": [{"form": "10-K", "n": 1' + "0" * 250 + 'e60}]}'
    assert json.loads(overflowing)["filings"][0]["n"] == float("inf")
    with pytest.raises(InputError, match="Infinity"):
        import_dataset(store.engine, R.dataset([R.item(1), R.item(2, context=overflowing)]), silent())
    assert (_count(store, item_t), _count(store, dataset_t)) == (0, 0)


def test_a_folder_whose_name_is_not_utf8_imports_or_says_why(store, read_path, tmp_path):
    folder = Path(os.fsdecode(os.fsencode(tmp_path) + b"/donn\xe9es"))
    data = write_records(folder, [nt_record(1), nt_record(2)])
    try:
        store.import_dataset(data, format="nestools", name="ok")
    except InputError as exc:
        assert "path" in exc.message or "folder" in exc.message or "file name" in exc.message, exc.message
        assert "donn\\xe9es" in exc.path  # the name as it is, with an escape for the byte
        assert (_count(store, item_t), _count(store, dataset_t)) == (0, 0)
        return
    assert store.find_item("ok", "2").question == nt_record(2)["task"]
