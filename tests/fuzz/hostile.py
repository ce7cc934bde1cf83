"""Hostile inputs for every import format, generated from the bundled samples (reviewer/samples/data).

``generate(n, seed, workdir)`` returns ``n`` Trials. Each copies one sample
dataset or prediction file, makes it hostile in one way that must make the
import fail (never a change a correct file could have), and says how the CLI is
to be called. The ways:

- content of a JSON / JSON Lines record: nesting 129-100,000 levels deep (arrays
  or objects), a lone surrogate (as a value or a key), an integer of more than
  4,300 digits, NaN / Infinity / -Infinity / a float overflowing to infinity, a
  NUL character (value or key), bytes that are not UTF-8, a record cut short,
  a record replaced by random bytes;
- the file itself: a FIFO, a symlink to /dev/zero, a folder, a file over the
  size limit (``REVIEWER_MAX_INPUT_BYTES`` lowered for that call);
- workbooks: bits flipped inside the compressed sheet or shared strings, a cut
  file, a zip bomb, hostile JSON in the gold column.
"""

from __future__ import annotations

import json
import os
import random
import shutil
import struct
import zipfile
from dataclasses import dataclass, field
from pathlib import Path

from reviewer.samples import DATA_DIR

DATA = DATA_DIR  # the bundled samples (reviewer/samples/data)


@dataclass
class Trial:
    name: str  # kind and number, for messages
    kind: str
    target: str  # what the CLI imports (file or folder)
    mutated: str  # the file made hostile (its name must be in the error)
    args: list[str]  # CLI arguments after --db
    env: dict[str, str] = field(default_factory=dict)
    needs_location: bool = True  # content kinds name a line, row, record or JSON path


# (format, sample path under the samples folder, mutable files relative to the copy, import kind, dataset for runs)
SEEDS = [
    ("tooljson", "tooljson", ["qa_pairs/citybikes.example.org_v1_stations_qa_pairs.json",
                              "api_responses/citybikes.example.org_v1_stations.json"], "dataset", None),
    ("nestools", "nestools", ["test_data.jsonl"], "dataset", None),
    ("bfcl", "bfcl", ["BFCL_v3_simple.json", "BFCL_v3_parallel.json", "possible_answer/BFCL_v3_simple.json"],
     "dataset", None),
    ("schemagen", "schemagen/schemagen.jsonl", [""], "dataset", None),
    ("toolselect", "toolselect/appendix_a.jsonl", [""], "dataset", None),
    ("deepjson", "deepjson/DeepJSONEval-sample.xlsx", [""], "dataset", None),
    ("outputs-jsonl", "bfcl/outputs/gorilla-lite-7b.jsonl", [""], "run", "sample-function-calls"),
    ("tooljson-predictions",
     "tooljson/predictions/citybikes.example.org_v1_stations_alpha-7b_direct_prompting_predictions.json", [""],
     "run", "sample-tool-qa"),
    ("nestools-predictions", "nestools/predictions/chainsmith-8b/raw_response.jsonl", [""], "run",
     "sample-call-chains"),
    ("deepjson-predictions", "deepjson/predictions/demo-alpha-7b.xlsx", [""], "run", "sample-extraction"),
]

JSON_VALUE_KINDS = ["deep", "surrogate", "surrogate-key", "bigint", "nan", "nul", "nul-key"]
JSON_TEXT_KINDS = ["not-utf8", "truncated", "garbage"]
FILE_KINDS = ["fifo", "devzero", "folder", "oversized"]
XLSX_KINDS = ["bitflip", "truncated-xlsx", "zipbomb", "cell-json"]


def hostile_value(rng: random.Random, kind: str) -> str:
    """JSON text of one hostile value (placed where a record's value goes)."""
    if kind == "deep":
        depth = rng.choice([129, 200, 1000, 5000, 20000, 100000])
        if rng.random() < 0.5:
            return "[" * depth + "]" * depth
        return '{"a":' * depth + "1" + "}" * depth
    if kind == "surrogate":
        return '"' + rng.choice(["", "x", "ok "]) + "\\u" + rng.choice(["d800", "dbff", "dc00", "DFFF", "d83d"]) + '"'
    if kind == "bigint":
        return rng.choice(["", "-"]) + "9" * rng.randint(4301, 20000)
    if kind == "nan":
        return rng.choice(["NaN", "Infinity", "-Infinity", "1e400", "-1e999", "[1, NaN]", '{"x": Infinity}'])
    if kind == "nul":
        return rng.choice(['"\\u0000"', '"a\\u0000b"', '["ok", "\\u0000"]'])
    raise ValueError(kind)


def _records(text: str, jsonl: bool) -> tuple[list, str]:
    if jsonl:
        return [json.loads(line) for line in text.splitlines() if line.strip()], "jsonl"
    return json.loads(text), "json"


def _dump(records, layout: str) -> str:
    if layout == "jsonl":
        return "".join(json.dumps(r) + "\n" for r in records)
    return json.dumps(records, indent=2)


def mutate_json(path: Path, rng: random.Random, kind: str) -> None:
    """Make one record of a JSON / JSON Lines file hostile in place."""
    text = path.read_text(encoding="utf-8")
    records, layout = _records(text, path.suffix == ".jsonl" or _is_jsonl(text))
    if kind in JSON_VALUE_KINDS:
        token = "__HOSTILE__"
        if isinstance(records, list):
            i = rng.randrange(len(records))
            target = records[i]
        else:
            target = records
        value = hostile_value(rng, kind.replace("-key", ""))
        if not isinstance(target, dict):
            target = {"value": target}
            if isinstance(records, list):
                records[i] = target
            else:
                records = target
        if kind.endswith("-key"):
            bad_key = "\\ud800" if kind.startswith("surrogate") else "k\\u0000"
            target["__HOSTILE_KEY__"] = 1
            out = _dump(records, layout).replace('"__HOSTILE_KEY__"', f'"{bad_key}"', 1)
        else:
            target[rng.choice(["zz_hostile", "note"])] = token
            out = _dump(records, layout).replace(f'"{token}"', value, 1)
        path.write_text(out, encoding="utf-8")
        return
    data = path.read_bytes()
    starts = _record_spans(data, layout)
    a, b = starts[rng.randrange(len(starts))]
    if kind == "not-utf8":
        q = data.find(b'"', a, b)
        pos = q + 1 if q != -1 else a + 1
        path.write_bytes(data[:pos] + rng.choice([b"\xff", b"\xc3\x28", b"\xed\xa0\x80", b"\x80\x80"]) + data[pos:])
    elif kind == "truncated":
        cut = rng.randrange(a + 1, b)  # strictly inside a record: never a complete file
        path.write_bytes(data[:cut])
    elif kind == "garbage":
        junk = bytes(rng.randrange(256) for _ in range(rng.randint(5, 300))).replace(b"\n", b"\x01")
        path.write_bytes(data[:a] + b"\x00" + junk + data[b:])
    else:
        raise ValueError(kind)


def _is_jsonl(text: str) -> bool:
    try:
        json.loads(text)
        return False
    except ValueError:
        return True


def _record_spans(data: bytes, layout: str) -> list[tuple[int, int]]:
    """Byte spans of the records: lines for JSON Lines, top-level elements for arrays."""
    if layout == "jsonl":
        spans, pos = [], 0
        for line in data.split(b"\n"):
            if line.strip():
                spans.append((pos, pos + len(line)))
            pos += len(line) + 1
        return spans
    text = data.decode("utf-8")
    if not text.lstrip().startswith("["):  # a single document (a tool response): the whole of it
        return [(0, len(data))]
    decoder, spans = json.JSONDecoder(), []
    pos = text.index("[") + 1
    while True:
        while text[pos] in " \t\r\n,":
            pos += 1
        if text[pos] == "]":
            break
        _, end = decoder.raw_decode(text, pos)
        spans.append((len(text[:pos].encode()), len(text[:end].encode())))
        pos = end
    return spans or [(0, len(data))]


def _zip_part_span(path: Path, name: str) -> tuple[int, int]:
    with zipfile.ZipFile(path) as zf:
        info = zf.getinfo(name)
    with path.open("rb") as fh:
        fh.seek(info.header_offset)
        header = fh.read(30)
    name_len, extra_len = struct.unpack("<HH", header[26:30])
    start = info.header_offset + 30 + name_len + extra_len
    return start, start + info.compress_size


def mutate_xlsx(path: Path, rng: random.Random, kind: str, gold_column: bool) -> None:
    data = bytearray(path.read_bytes())
    if kind == "bitflip":
        with zipfile.ZipFile(path) as zf:
            parts = [n for n in zf.namelist() if n.startswith("xl/worksheets/sheet") or n == "xl/sharedStrings.xml"]
        a, b = _zip_part_span(path, rng.choice(parts))
        for _ in range(rng.randint(1, 4)):
            i = rng.randrange(a, b)
            data[i] ^= 1 << rng.randrange(8)
        path.write_bytes(bytes(data))
    elif kind == "truncated-xlsx":
        path.write_bytes(bytes(data[: rng.randrange(10, len(data) - 1)]))
    elif kind == "zipbomb":
        with zipfile.ZipFile(path) as src:
            parts = {n: src.read(n) for n in src.namelist()}
        sheet = next(n for n in parts if n.startswith("xl/worksheets/sheet"))
        size = rng.choice([8, 16, 32]) * 1024 * 1024
        parts[sheet] = parts[sheet].replace(b"</sheetData>", b" " * size + b"</sheetData>")
        with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as dst:
            for n, body in parts.items():
                dst.writestr(n, body)
    elif kind == "cell-json":
        import openpyxl

        wb = openpyxl.load_workbook(path)
        ws = wb.worksheets[0]
        header = [c.value for c in ws[1]]
        col = header.index("json") + 1 if gold_column and "json" in header else None
        if col is None:  # predictions: the model output column holds JSON text too
            col = next(i + 1 for i, h in enumerate(header) if h in ("model_output", "prediction", "output", "json"))
        row = rng.randrange(2, ws.max_row + 1)
        ws.cell(row=row, column=col).value = '{"a": ' + hostile_value(rng, rng.choice(["deep", "nan", "bigint",
                                                                                          "nul", "surrogate"])) + "}"
        wb.save(path)
    else:
        raise ValueError(kind)


def generate(n: int, seed: int, workdir: Path) -> list[Trial]:
    rng = random.Random(seed)
    trials = []
    for number in range(n):
        fmt, sample, files, what, dataset = SEEDS[number % len(SEEDS)]
        src = DATA / sample
        dest = workdir / f"t{number:04d}"
        dest.mkdir(parents=True)
        copy = dest / src.name
        if src.is_dir():
            shutil.copytree(src, copy, ignore=shutil.ignore_patterns("predictions", "outputs"))
        else:
            shutil.copy(src, copy)
        rel = rng.choice(files)
        mutated = copy / rel if rel else copy
        is_xlsx = mutated.suffix == ".xlsx"
        if is_xlsx:
            # A model's output cell may hold any text, invalid JSON included (that is what
            # scoring measures), so only the gold column's JSON must be refused.
            kinds = [k for k in XLSX_KINDS if what == "dataset" or k != "cell-json"] + FILE_KINDS
        else:
            kinds = JSON_VALUE_KINDS + JSON_TEXT_KINDS + FILE_KINDS
        if fmt == "bfcl" and not rel.startswith("possible_answer"):
            # BFCL's category files are each optional: a folder, FIFO or device where one
            # was is simply not a category file (the reader takes regular files only), and
            # importing the others is right.
            kinds = [k for k in kinds if k not in ("folder", "fifo", "devzero")]
        kind = rng.choice(kinds)
        trial_env: dict[str, str] = {}
        needs_location = kind not in FILE_KINDS and kind not in ("bitflip", "truncated-xlsx", "zipbomb")
        if kind == "fifo":
            mutated.unlink()
            os.mkfifo(mutated)
        elif kind == "devzero":
            mutated.unlink()
            mutated.symlink_to("/dev/zero")
        elif kind == "folder":
            mutated.unlink()
            mutated.mkdir()
            (mutated / "inside.json").write_text("[]")
        elif kind == "oversized":
            trial_env["REVIEWER_MAX_INPUT_BYTES"] = str(max(1, mutated.stat().st_size // rng.choice([2, 10, 100])))
            mutated = copy  # the limit is for every file: the error may name another file of a folder
        elif is_xlsx:
            mutate_xlsx(mutated, rng, kind, gold_column=(what == "dataset"))
        else:
            mutate_json(mutated, rng, kind)
        name = f"fuzz-{number}"
        if what == "dataset":
            args = ["import", "dataset", str(copy), "--format", fmt, "--name", name]
        else:
            args = ["import", "run", dataset, str(copy), "--format", fmt, "--name", name]
        trials.append(Trial(f"{kind}#{number} ({fmt}: {rel or src.name})", kind, str(copy), str(mutated), args,
                            trial_env, needs_location))
    return trials
