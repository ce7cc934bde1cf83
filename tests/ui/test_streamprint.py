"""A huge response is pretty-printed a piece at a time (reviewer_ui.streamprint): the user
sees exactly the text one whole parse and print would show, line numbers included, while
the helper process holds a fraction of the memory; where pieces could differ from the
whole (duplicate keys, numbers orjson does not read, text that is not JSON) the whole
parse is used, and its error names the place."""

from __future__ import annotations

import io
import json
import os
import random
import subprocess
import sys
import textwrap
from pathlib import Path

import orjson
import pytest

from reviewer_ui import jsonspans, textdoc, treeindex
from reviewer_ui.jsonspans import NotSplittable
from reviewer_ui.streamprint import BlockIndexWriter, pretty_stream

ROOT = Path(__file__).resolve().parents[2]

# Strings that trip a scanner that looks at bytes: escaped quotes, runs of backslashes
# (odd and even, so a quote after them ends the string or not), brackets and commas
# inside strings, multi-byte characters and line separators.
AWKWARD = ['"', "\\", '\\"', "\\\\", '\\\\"', "[", "]", "{", "}", ",", ":", "é", "😀", "\u2028", "\n", "x" * 9]


def random_value(rng: random.Random, depth: int = 0):
    roll = rng.random()
    if depth > 4 or roll < 0.3:
        text = "".join(rng.choice(AWKWARD) for _ in range(rng.randint(0, 10)))
        return rng.choice([None, True, False, rng.randint(-10**15, 10**15), rng.random() * 1e6, -0.0, 1.5e300, text])
    if roll < 0.65:
        return [random_value(rng, depth + 1) for _ in range(rng.randint(0, 5))]
    return {"".join(rng.choice(AWKWARD) for _ in range(rng.randint(0, 4))) + str(i): random_value(rng, depth + 1)
            for i in range(rng.randint(0, 5))}


def streamed(data: bytes, piece: int) -> bytes:
    parts: list[bytes] = []
    pretty_stream(data, parts.append, piece=piece)
    return b"".join(parts)


def whole(data: bytes) -> bytes:
    return orjson.dumps(orjson.loads(data), option=orjson.OPT_INDENT_2)


@pytest.mark.parametrize("seed", range(4))
def test_the_pieces_print_byte_for_byte_what_one_whole_print_makes(seed, monkeypatch):
    rng = random.Random(seed)
    for _ in range(60):
        value = random_value(rng)
        value = value if isinstance(value, (dict, list)) else [value]
        data = orjson.dumps(value, option=rng.choice([0, orjson.OPT_INDENT_2]))
        data = rng.choice([b"", b" \n\t"]) + data + rng.choice([b"", b"\r\n "])
        # Tiny chunks and pieces, so that escapes, strings and members straddle every cut.
        monkeypatch.setattr(jsonspans, "CHUNK", rng.choice([3, 7, 64, 4096]))
        assert streamed(data, piece=rng.choice([1, 5, 40, 1000])) == whole(data), data[:300]


def test_a_run_of_backslashes_across_a_chunk_boundary_is_read_right(monkeypatch):
    """Whether a quote ends a string depends on the backslashes before it, even when they
    began in the previous chunk."""
    for run in range(1, 8):
        value = [{"a": "x" + "\\" * run + '"' * (run % 2 == 0) + ',]}"', "b": [1, 2]}, ["after"]]
        data = json.dumps(value).encode()
        for chunk in range(1, 12):
            monkeypatch.setattr(jsonspans, "CHUNK", chunk)
            assert streamed(data, piece=1) == whole(data), (run, chunk)


def test_the_line_index_made_while_writing_is_the_one_made_from_the_whole_text():
    rng = random.Random(7)
    text = whole(orjson.dumps([random_value(rng) for _ in range(300)]))
    for block in (1, 10, 100, 4096):
        for flush in (1, 7, 100, 1 << 20):
            out = io.BytesIO()
            writer = BlockIndexWriter(out, block)
            for i in range(0, len(text), flush):
                writer.put(text[i : i + flush])
            starts, firsts, n = writer.finish()
            assert out.getvalue() == text
            want = textdoc.block_index(text, block)
            assert (list(starts), list(firsts), n) == (list(want[0]), list(want[1]), want[2]), (block, flush)


@pytest.mark.parametrize("data", [
    b'{"a": 1, "b": 2, "a": 3}',  # one parse keeps one "a"
    b'[{"k": 1, "k": 2}, 3]',
    b'[1, 2,]', b'[1 2]', b'{"a" 1}', b'[1, "open]', b'[1]]', b'[[1]', b'{"a": 1} {"b": 2}', b'"text"', b"",
])
def test_what_pieces_could_get_wrong_is_refused_for_the_whole_parse(data):
    with pytest.raises((NotSplittable, ValueError)):
        streamed(data, piece=1)


def _pretty_via_helper_code(tmp_path, text: str) -> tuple:
    src = tmp_path / "src.json"
    src.write_text(text, encoding="utf-8")
    key = treeindex.new_key()
    outcome = textdoc.pretty_file(str(src), key)
    assert not src.exists(), "the handed-over text is deleted"
    treeindex.close_value(key)
    return outcome


def test_a_huge_text_is_printed_in_pieces_and_shown_whole(tmp_path, monkeypatch):
    monkeypatch.setattr(textdoc, "PARSED_WHOLE_UP_TO", 1000)
    called = []
    import reviewer_ui.streamprint as streamprint

    real = streamprint.pretty_stream
    monkeypatch.setattr(streamprint, "pretty_stream", lambda *a, **k: called.append(1) or real(*a, **k))
    value = {"meta": {"n": 3000}, "records": [{"id": i, "name": f"r{i}", "tags": ["a", "b"]} for i in range(3000)]}
    outcome = _pretty_via_helper_code(tmp_path, json.dumps(value))
    assert called and outcome[0] == "ok"
    doc = textdoc._mapped_document(*outcome[1:])
    want = whole(json.dumps(value).encode()).decode().split("\n")
    assert len(doc) == len(want)
    assert [doc.lines[i] for i in (0, 1, 5, len(want) // 2, len(want) - 1)] == \
        [want[i] for i in (0, 1, 5, len(want) // 2, len(want) - 1)]


def test_a_huge_text_with_a_duplicate_key_shows_what_one_parse_shows(tmp_path, monkeypatch):
    monkeypatch.setattr(textdoc, "PARSED_WHOLE_UP_TO", 100)
    text = '{"a": [' + ", ".join(str(i) for i in range(200)) + '], "a": "last"}'
    outcome = _pretty_via_helper_code(tmp_path, text)
    assert outcome[0] == "ok"
    doc = textdoc._mapped_document(*outcome[1:])
    assert doc.lines[:] == ["{", '  "a": "last"', "}"]


def test_a_huge_text_that_is_not_json_names_the_line_and_column(tmp_path, monkeypatch):
    monkeypatch.setattr(textdoc, "PARSED_WHOLE_UP_TO", 100)
    text = '{"records": [\n' + ",\n".join(f'{{"id": {i}}}' for i in range(100)) + ',\n{"id": oops}]}'
    outcome = _pretty_via_helper_code(tmp_path, text)
    assert outcome[0] == "error"
    assert "line 102" in outcome[1] and "column 8" in outcome[1], outcome[1]


def test_a_huge_text_is_printed_in_under_three_times_its_size(tmp_path):
    """Peak memory of the process that prints a 12 MB text (reading it included) stays under
    three times the text: parsed whole, it took about eight times."""
    script = textwrap.dedent(f"""
        import json, sys
        sys.path.insert(0, {str(ROOT)!r})
        from reviewer_ui import textdoc

        def status(field):
            with open("/proc/self/status") as f:
                return next(int(line.split()[1]) for line in f if line.startswith(field + ":")) * 1024

        path = sys.argv[1]
        text = json.dumps({{"records": [{{"id": i, "name": "record %d" % i, "tags": ["a", "b"],
                                         "m": {{"x": i * 1.5, "s": list(range(10))}}}} for i in range(110_000)]}})
        open(path, "w").write(text)
        size = len(text)
        del text
        textdoc.PARSED_WHOLE_UP_TO = 1 << 20
        import numpy, orjson, reviewer_ui.streamprint  # their code is not the text's memory
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")
        before = status("VmRSS")
        outcome = textdoc.pretty_file(path, None)
        assert outcome[0] == "ok", outcome
        print(size, status("VmHWM") - before)
    """)
    out = subprocess.run([sys.executable, "-c", script, str(tmp_path / "big.json")], capture_output=True,
                         text=True, check=True, env={**os.environ, "PYTHONPATH": str(ROOT)})
    size, growth = map(int, out.stdout.split())
    assert size > 10e6
    assert growth < 3 * size, f"printing {size / 1e6:.1f} MB took {growth / 1e6:.1f} MB more"


def _all_rows(rows_at, path=(), depth=0) -> list:
    """Every row of a tree, depth first, asking for them in batches of 3 as the view does."""
    out, start = [], 0
    while True:
        batch = rows_at(path, start, 3)
        if not batch:
            return out
        for key, preview, kind, size in batch:
            out.append((depth, key, preview, kind, size))
            if size:
                out.extend(_all_rows(rows_at, path + (key,), depth + 1))
        start += len(batch)


@pytest.mark.parametrize("seed", range(3))
def test_the_tree_of_a_huge_text_read_from_its_text_is_the_tree_of_its_parsed_value(seed, monkeypatch):
    from reviewer_ui import spantree

    rng = random.Random(100 + seed)
    for _ in range(25):
        value = {f"k{i}": random_value(rng) for i in range(rng.randint(1, 6))} if rng.random() < 0.5 else \
            [random_value(rng) for _ in range(rng.randint(1, 6))]
        data = orjson.dumps(value, option=rng.choice([0, orjson.OPT_INDENT_2]))
        monkeypatch.setattr(spantree, "PIECE", rng.choice([1, 16, 200]))
        monkeypatch.setattr(jsonspans, "CHUNK", rng.choice([5, 64, 4096]))
        tree = spantree.SpanTree(data)
        parsed = orjson.loads(data)

        def parsed_rows(path, start, count):
            node = parsed
            for part in path:
                node = node[part]
            return treeindex.rows_of(node, start, count)

        assert tree.top_row() == treeindex.row_of("$", parsed)
        assert _all_rows(tree.rows) == _all_rows(parsed_rows), data[:300]


def test_the_tree_of_a_huge_text_that_is_not_json_says_so(tmp_path, monkeypatch):
    """The print finds the broken member and the tree then names the problem too, instead
    of showing the members before it as if the text were whole."""
    monkeypatch.setattr(textdoc, "PARSED_WHOLE_UP_TO", 100)
    text = '{"records": [' + ", ".join(f'{{"id": {i}}}' for i in range(100)) + ', {"id": oops}]}'
    src = tmp_path / "src.json"
    src.write_text(text)
    key = treeindex.new_key()
    outcome = textdoc.pretty_file(str(src), key)
    assert outcome[0] == "error"
    src.write_text(text)
    assert treeindex.open_value(key, str(src)) == ("error", outcome[1])


@pytest.mark.parametrize("data, shown", [
    # Deeper than orjson prints (255 levels; it reads 1024): the whole parse's printer copes.
    (b"[" * 300 + b"]" * 300 + b"", "ok"),
    (b"[" + b"[" * 300 + b"]" * 300 + b"," + b"0," * 3000 + b"0]", "ok"),
    # Deeper than json's recursive parser reads: an error, not a traceback.
    (b"[" * 1100 + b"]" * 1100, "error"),
    # A huge key, with escaped quotes and backslashes in it.
    (b'{"' + b'\\"a\\\\' * 200_000 + b'": [1, 2], "b": ' + b"[0, 1]," * 0 + b"[" + b"3," * 5000 + b"3]}", "ok"),
    # Thirty thousand keys, one repeated far apart (pieces apart): one parse keeps one.
    (b"{" + b",".join(b'"%x": 0' % i for i in range(30_000)) + b', "7": 1}', "ok"),
])
def test_odd_huge_texts_are_shown_as_one_parse_shows_them(tmp_path, monkeypatch, data, shown):
    monkeypatch.setattr(textdoc, "PARSED_WHOLE_UP_TO", 100)
    src = tmp_path / "src.json"
    src.write_bytes(data)
    key = treeindex.new_key()
    outcome = textdoc.pretty_file(str(src), key)
    treeindex.close_value(key)
    assert outcome[0] == shown, outcome[:2]
    if shown == "ok":
        doc = textdoc._mapped_document(*outcome[1:])
        want = textdoc.pretty_text(json.loads(data), 2).split("\n")
        assert len(doc) == len(want) and doc.lines[len(want) - 1] == want[-1] and doc.lines[1] == want[1]
    else:
        assert "nested too deeply" in outcome[1]
