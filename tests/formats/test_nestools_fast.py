"""The NesTools reader's fast path (``nestools._items_fast``) gives exactly what the checked
generic path (``nestools._items``) gives: the same records for every file it reads, the same
error (file, line or JSON path, message) for every file it refuses, and it hands a file over
to the generic path at the first line it cannot vouch for."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from reviewer.errors import InputError
from reviewer.formats import nestools
from reviewer.jobs import silent
from tests.conftest import refdata

API = [{"api_name": "search", "api_description": "find", "parameters": {"q": {"type": "str"}},
        "required": ["q"], "responses": {"hits": {"type": "list"}}},
       {"api_name": "book", "api_description": "book it", "parameters": {"hit": {"type": "str"}},
        "required": ["hit"], "responses": {"ok": {"type": "bool"}}}]


def _record(i: int) -> dict:
    return {
        "test_id": i, "api": API, "task": f"Find and book item {i} (café, 東京)",
        "call": [{"api_name": "search", "parameters": {"q": f"thing {i}"}, "responses": ["API_call_0"]},
                 {"api_name": "book", "parameters": {"hit": "API_call_0"}, "responses": ["API_call_1"]}],
        "field": "travel" if i % 2 else None,
    }


def _lines(n: int = 6) -> tuple[list[bytes], list[bytes]]:
    data = [json.dumps(_record(i + 1), ensure_ascii=False).encode() + b"\n" for i in range(n)]
    ids = [json.dumps({"test_id": i + 1, "api_ids": [10, 11]}).encode() + b"\n" for i in range(n)]
    return data, ids


def _write(folder: Path, data: list[bytes] | bytes, ids: list[bytes] | bytes) -> nestools._Pairs:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "test_data.jsonl").write_bytes(data if isinstance(data, bytes) else b"".join(data))
    (folder / "test_api_ids.jsonl").write_bytes(ids if isinstance(ids, bytes) else b"".join(ids))
    return nestools._Pairs(folder / "test_data.jsonl", folder / "test_api_ids.jsonl")


def _outcome(items) -> tuple[list, tuple | None]:
    """The records read, and the error that ended the reading (None when it read to the end)."""
    got = []
    try:
        for rec in items:
            got.append(rec)
    except InputError as exc:
        return got, (str(exc.path), exc.where, exc.message)
    return got, None


def _assert_same(pairs: nestools._Pairs) -> tuple[list, tuple | None]:
    fast_records, fast_error = _outcome(nestools._items_fast(pairs, silent()))
    slow_records, slow_error = _outcome(nestools._items(pairs, silent()))
    assert fast_error == slow_error
    if slow_error is None:  # a refused file is refused whole (the import writes nothing)
        assert fast_records == slow_records
    return slow_records, slow_error


def _replace(lines: list[bytes], index: int, new: bytes) -> list[bytes]:
    out = list(lines)
    out[index] = new
    return out


def _mutated_cases() -> dict[str, tuple]:
    data, ids = _lines()
    rec3 = _record(3)

    def with3(**changes) -> list[bytes]:
        return _replace(data, 2, json.dumps({**rec3, **changes}).encode() + b"\n")

    return {
        "plain": (data, ids),
        "bom": ([b"\xef\xbb\xbf" + data[0], *data[1:]], ids),
        "bom_in_ids": (data, [b"\xef\xbb\xbf" + ids[0], *ids[1:]]),
        "crlf": ([x[:-1] + b"\r\n" for x in data], [x[:-1] + b"\r\n" for x in ids]),
        "lone_cr_splits_a_line": (_replace(data, 2, data[2][:40] + b"\r" + data[2][40:]), ids),
        "blank_line": (data[:3] + [b"\n"] + data[3:], ids),
        "blank_lines_after_ids": (data, ids + [b"\n", b"  \n"]),
        "no_final_newline": (data[:-1] + [data[-1][:-1]], ids),
        "truncated": (_replace(data, 2, data[2][:-5] + b"\n"), ids),
        "not_utf8": (_replace(data, 3, data[3].replace(b"caf\xc3\xa9", b"caf\xe9")), ids),
        "nineteen_digits": (with3(test_id=12345678901234567890), ids),
        "nineteen_digit_value": (with3(task="x", extra=1234567890123456789), ids),
        "nul_escape": (_replace(data, 2, data[2].replace(b"Find", b"Fi\\u0000nd")), ids),
        "lone_surrogate": (_replace(data, 2, data[2].replace(b"Find", b"\\ud800Find")), ids),
        "nan": (_replace(data, 2, data[2].replace(b'"test_id": 3', b'"test_id": 3, "x": NaN')), ids),
        "deep": (with3(extra=json.loads("[" * 140 + "]" * 140)), ids),
        "brackets_in_text": (with3(task="[" * 200), ids),
        "bool_id": (with3(test_id=True), [*ids[:2], json.dumps({"test_id": True, "api_ids": [1, 2]}).encode() + b"\n", *ids[3:]]),
        "string_id": (with3(test_id="3"), _replace(ids, 2, b'{"test_id": "3", "api_ids": [1, 2]}\n')),
        "api_not_list": (with3(api={"a": 1}), ids),
        "api_name_missing": (with3(api=[{"api_description": "x"}, API[1]]), ids),
        "call_bad_response": (with3(call=[{"api_name": "a", "parameters": {}, "responses": [1]}]), ids),
        "call_responses_null": (with3(call=[{"api_name": "a", "parameters": {}, "responses": None}]), ids),
        "call_without_responses": (with3(call=[{"api_name": "a", "parameters": {}}]), ids),
        "field_int": (with3(field=7), ids),
        "task_missing": (_replace(data, 2, json.dumps({k: v for k, v in rec3.items() if k != "task"}).encode() + b"\n"), ids),
        "not_an_object": (_replace(data, 2, b"[1, 2]\n"), ids),
        "ids_test_id_differs": (data, _replace(ids, 2, b'{"test_id": 99, "api_ids": [1, 2]}\n')),
        "ids_test_id_float_equal": (data, _replace(ids, 2, b'{"test_id": 3.0, "api_ids": [1, 2]}\n')),
        "ids_length_differs": (data, _replace(ids, 2, b'{"test_id": 3, "api_ids": [1]}\n')),
        "ids_not_list": (data, _replace(ids, 2, b'{"test_id": 3, "api_ids": "1,2"}\n')),
        "ids_not_object": (data, _replace(ids, 2, b'[3]\n')),
        "ids_shorter": (data, ids[:-2]),
        "ids_longer": (data, ids + [b'{"test_id": 7, "api_ids": [1, 2]}\n']),
        "ids_blank_in_middle": (data, ids[:2] + [b"\n"] + ids[2:]),
        "duplicate_id": (data + [data[0]], ids + [ids[0]]),
        "duplicate_id_int_and_str": (data + [json.dumps({**_record(1), "test_id": "1"}).encode() + b"\n"],
                                     ids + [b'{"test_id": "1", "api_ids": [1, 2]}\n']),
        "empty_files": (b"", b""),
        "empty_data": (b"", ids),
    }


@pytest.mark.parametrize("case", sorted(_mutated_cases()))
def test_fast_path_reads_and_refuses_as_the_checked_path(tmp_path, case):
    data, ids = _mutated_cases()[case]
    records, error = _assert_same(_write(tmp_path / case, data, ids))
    if case == "plain":
        assert error is None and len(records) == 6
    if case in ("truncated", "duplicate_id", "ids_shorter", "ids_length_differs"):
        assert error is not None  # the cases are what they say


def test_random_byte_damage_gives_the_same_outcome(tmp_path):
    """200 files, each with a few bytes changed, cut or added at random places (seeded)."""
    data, ids = _lines(8)
    rng = random.Random(20261128)
    alphabet = b'{}[]",:0123456789 \\\r\nabcnultrefsx\xc3\xa9\xff'
    for case in range(200):
        d, i = bytearray(b"".join(data)), bytearray(b"".join(ids))
        for _ in range(rng.randint(1, 3)):
            target = d if rng.random() < 0.8 else i
            pos = rng.randrange(len(target))
            action = rng.choice(("replace", "delete", "insert"))
            if action == "replace":
                target[pos] = rng.choice(alphabet)
            elif action == "delete":
                del target[pos]
            else:
                target.insert(pos, rng.choice(alphabet))
        _assert_same(_write(tmp_path / f"r{case}", bytes(d), bytes(i)))


def test_a_plain_file_is_read_by_the_fast_path_alone(tmp_path, monkeypatch):
    pairs = _write(tmp_path, *_lines(50))
    monkeypatch.setattr(nestools, "_items", lambda *a: pytest.fail("handed over on a plain file"))
    assert len(list(nestools._items_fast(pairs, silent()))) == 50


def test_an_irregular_line_hands_over_after_the_records_already_given(tmp_path):
    data, ids = _lines(6)
    data[4] = json.dumps({**_record(5), "big": 2**70}).encode() + b"\n"  # valid, not plain (orjson: a float)
    pairs = _write(tmp_path, data, ids)
    given = [rec for rec in nestools._plain_items(pairs, silent())]
    assert [r.source_line for r in given[:-1]] == [1, 2, 3, 4] and given[-1] is None
    records, error = _assert_same(pairs)
    assert error is None and [r.source_line for r in records] == [1, 2, 3, 4, 5, 6]
    assert records[4].raw["big"] == 2**70


def test_the_reference_test_set_reads_the_same():
    root = refdata("NesTools")
    data = root / "data" / "test_data.jsonl"
    ids = root / "inference" / "build_test_prompt" / "test_api_ids.jsonl"
    records, error = _assert_same(nestools._Pairs(data, ids))
    assert error is None and len(records) > 900


def test_a_file_rewritten_while_it_is_read_is_refused(tmp_path, monkeypatch):
    """One pass of the fast path over a file an editor rewrites in place midway would give
    records of both versions; the reader says so instead, and the import writes nothing."""
    from tests.store import records as R

    data = R.nestools_like(tmp_path / "s", 6)
    real = nestools._item_record
    made = []

    def record_then_save(*args, **kwargs):
        made.append(1)
        if len(made) == 3:  # the editor saves: the same records, one task reworded
            data.write_text(data.read_text().replace('"task": "', '"task": "Reworded: ', 1))
        return real(*args, **kwargs)

    monkeypatch.setattr(nestools, "_item_record", record_then_save)
    with pytest.raises(InputError, match="changed while it was read") as err:
        list(nestools.NesToolsFormat().read(data, silent()).items)
    assert Path(err.value.path).samefile(data)
