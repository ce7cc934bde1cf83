"""Project-made records for store tests (no format module involved)."""

from __future__ import annotations

import json
from pathlib import Path

from reviewer.formats.base import DatasetRecord, ItemRecord, OutputRecord, ParsedDataset, ParsedRun, RunRecord

RESPONSE = json.dumps({"filings": [{"form": "10-K", "n": i} for i in range(50)]})


def item(i: int, gold="A", **kw) -> ItemRecord:
    fields = dict(
        record_id=f"q{i}", kind="tool_qa", gold=gold, raw={"uid": f"q{i}", "gold_answer": gold},
        question=f"Question number {i}?", payload={"task": "T"}, context=RESPONSE, schema='{"type": "object"}',
        category=["EXTRACTIVE", "FILTERING", "AGGREGATION"][i % 3], depth=i % 4 + 1, source_file="qa.json",
        source_line=i + 1,
    )
    fields.update(kw)
    return ItemRecord(**fields)


def dataset(items, name="demo") -> ParsedDataset:
    return ParsedDataset(
        DatasetRecord(name=name, format="test-format", kind="tool_qa", source="qa.json",
                      meta={"files": ["qa.json"], "big": "h"}, blobs={"x": "a shared large text"}),
        iter(items),
    )


def run(outputs, name="model-a") -> ParsedRun:
    return ParsedRun(RunRecord(name=name, format="test-preds", source="preds.json", model="m"), iter(outputs))


def output(i: int, text="A", **kw) -> OutputRecord:
    return OutputRecord(record_id=f"q{i}", text=text, raw={"uid": f"q{i}"}, prediction=text, source_line=i + 1, **kw)


def nestools_like(folder: Path, n: int, bad_line: int | None = None, duplicate: bool = False) -> Path:
    """A NesTools data file and its ids file in ``folder``: n items, the reference items
    repeated under new ids (skips the test without the reference data); ``bad_line`` is
    cut short (invalid JSON), ``duplicate`` repeats the first item at the end."""
    from tests.conftest import refdata

    root = refdata("NesTools")
    data = [json.loads(x) for x in (root / "data" / "test_data.jsonl").read_text().splitlines()]
    ids = {r["test_id"]: r["api_ids"] for r in map(json.loads, (
        root / "inference" / "build_test_prompt" / "test_api_ids.jsonl").read_text().splitlines())}
    lines, id_lines = [], []
    for i in range(n):
        rec = dict(data[i % len(data)])
        old, rec["test_id"] = rec["test_id"], i + 1
        lines.append(json.dumps(rec))
        id_lines.append(json.dumps({"test_id": i + 1, "api_ids": ids[old]}))
    if bad_line:
        lines[bad_line - 1] = lines[bad_line - 1][:-1]  # the line ends in the middle of its JSON
    if duplicate:
        lines.append(lines[0])
        id_lines.append(id_lines[0])
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "test_data.jsonl").write_text("\n".join(lines) + "\n")
    (folder / "test_api_ids.jsonl").write_text("\n".join(id_lines) + "\n")
    return folder / "test_data.jsonl"


def exact(value) -> str:
    """A JSON value as exact text: 1, 1.0 and true differ, and so does key order."""
    return json.dumps(value, ensure_ascii=False)
