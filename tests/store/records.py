"""Project-made records for store tests (no format module involved)."""

from __future__ import annotations

import json

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
