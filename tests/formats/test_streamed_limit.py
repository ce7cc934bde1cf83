"""A file read a line at a time has no size limit of its own; each of its lines has one.

The default limit of one input file (256 MiB) kept a 100,000-item NesTools set (270 MB)
out, although its reader holds one line and the import a chunk of items. Here the default
is lowered to a few kilobytes so that small files show the rules:
- a NesTools file over the default imports; a file read whole over it is refused;
- a line over the limit is refused naming its file and line, and nothing is written;
- ``$REVIEWER_MAX_INPUT_BYTES``, when set, still limits every file;
- a byte that is not UTF-8 is reported as before, and a line over the limit as too long,
  whichever the text reader meets first.
"""

from __future__ import annotations

import json

import pytest

from reviewer.errors import InputError
from reviewer.formats import _jsonio
from reviewer.formats._jsonio import iter_jsonl, read_bytes
from reviewer.formats._jsonlfiles import first_record
from tests.store import records as R

LIMIT = 16_000  # the lowered default: above a NesTools line (~3 kB), below the files made here


@pytest.fixture
def small_default(monkeypatch):
    monkeypatch.delenv("REVIEWER_MAX_INPUT_BYTES", raising=False)
    monkeypatch.setattr(_jsonio, "DEFAULT_MAX_INPUT_BYTES", LIMIT)
    monkeypatch.setenv("REVIEWER_IMPORT_FEED", "0")  # read here: the reading process has the real default


def _datasets(store) -> list[tuple[str, int]]:
    return [(d.name, d.items) for d in store.datasets()]


def test_a_nestools_set_over_the_default_file_limit_imports(store, tmp_path, small_default):
    path = R.nestools_like(tmp_path / "big", 40)
    assert path.stat().st_size > 4 * LIMIT
    summary = store.import_dataset(path, format="nestools", name="big")
    assert summary.added == 40
    source = [json.loads(line) for line in path.read_text().splitlines()]
    assert store.find_item("big", "40").raw == source[-1]  # the last line, read whole
    with pytest.raises(InputError, match="more than the limit of 16,000 bytes"):  # a file read whole is still limited
        read_bytes(path)


def test_a_line_over_the_limit_is_refused_with_its_line_and_nothing_is_written(store, tmp_path, small_default):
    path = R.nestools_like(tmp_path / "long", 12)
    lines = path.read_text().splitlines()
    rec = json.loads(lines[6])
    rec["note"] = "x" * (LIMIT + 10)
    lines[6] = json.dumps(rec)
    path.write_text("\n".join(lines) + "\n")
    before = _datasets(store)
    with pytest.raises(InputError) as err:
        store.import_dataset(path, format="nestools", name="long")
    assert str(err.value.path) == str(path) and err.value.where == "line 7"
    assert "longer than the limit of 16,000 characters" in err.value.message
    assert _datasets(store) == before


def test_the_environment_variable_still_limits_a_streamed_file(store, tmp_path, monkeypatch):
    path = R.nestools_like(tmp_path / "set", 20)
    monkeypatch.setenv("REVIEWER_MAX_INPUT_BYTES", str(path.stat().st_size - 1))
    before = _datasets(store)
    with pytest.raises(InputError, match="more than the limit") as err:
        store.import_dataset(path, format="nestools", name="set")
    assert str(err.value.path) == str(path)
    assert _datasets(store) == before


def _lines(tmp_path, *lines: bytes):
    path = tmp_path / "f.jsonl"
    path.write_bytes(b"".join(line + b"\n" for line in lines))
    return path


def _error(path) -> InputError:
    with pytest.raises(InputError) as err:
        list(iter_jsonl(path, streamed=True))
    return err.value


def test_a_bad_byte_and_a_long_line_each_get_their_own_error(tmp_path, monkeypatch):
    monkeypatch.setattr(_jsonio, "DEFAULT_MAX_INPUT_BYTES", 100)
    ok = b'{"a": 1}'
    # a bad byte early in a long line: the decoder meets it first
    err = _error(_lines(tmp_path, ok, b'{"a": "' + b"x" * 40 + b"\xff" + b"x" * 300 + b'"}'))
    assert (err.where, err.message) == ("line 2", "not UTF-8 text (byte 48 of the line)")
    # a bad byte far past the limit: the line is too long, whatever follows
    err = _error(_lines(tmp_path, ok, ok, b'{"a": "' + b"x" * 2000 + b"\xff" + b'"}'))
    assert err.where == "line 3" and "longer than the limit of 100 characters" in err.message
    # a long line of two-byte characters, cut inside one by the byte reader: too long, not "not UTF-8"
    err = _error(_lines(tmp_path, '{"a": "'.encode() + "é".encode() * 300 + b'"}', b"\xff"))
    assert err.where == "line 1" and "longer than the limit" in err.message
    # exactly at the limit is allowed (the line ending is not counted)
    at_limit = b'{"a": "' + b"x" * (100 - 9) + b'"}'
    assert len(at_limit) == 100
    assert [n for n, _ in iter_jsonl(_lines(tmp_path, at_limit, ok), streamed=True)] == [1, 2]


def test_detection_reads_one_bounded_line(tmp_path, monkeypatch):
    monkeypatch.setattr(_jsonio, "DEFAULT_MAX_INPUT_BYTES", 100)
    long_first = _lines(tmp_path, b'{"test_id": 1, "pad": "' + b"x" * 500 + b'"}')
    assert first_record(long_first) is None  # undetectable, not read whole
    blank_then_record = tmp_path / "g.jsonl"
    blank_then_record.write_text('\n\n{"test_id": 1}\n')
    assert first_record(blank_then_record) == {"test_id": 1}
