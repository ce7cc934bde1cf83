"""Schema-constrained generation (paper 003, SchemaBench) in a simple JSON Lines format.

SchemaBench's test data is not public, so reviewer defines its own file: one
JSON object a line,

    {"id": "custom-001",                 # string or integer, unique in the file
     "subset": "complex" | "custom" | "escape",
     "schema": {...},                    # the model-facing JSON Schema (object, or its JSON text)
     "verify_schema": {...} | null,      # optional hidden schema checked after "schema"
     "special_token": "..." | null,      # optional, escape items: the string to embed
     "prompt": "..."}                    # optional, the user prompt to send

Both schemas must be valid JSON Schemas (checked with the draft their
``$schema`` names, else draft 2020-12). Items: schema = the schema text
(as written when given as text, else pretty-printed), payload =
{"verify_schema", "special_token", "subset"} (+ "prompt"), question = prompt,
category = subset, gold = None: the verify schema is the key, not a gold answer.
``write`` gives the lines back as read (there is no gold to edit).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import jsonschema
from jsonschema.exceptions import SchemaError

from reviewer.errors import InputError
from reviewer.formats._jsonio import expect, iter_jsonl, loads_at
from reviewer.formats._jsonlfiles import PROGRESS_EVERY, SingleJsonlFormat, UniqueIds, at, write_jsonl
from reviewer.formats.base import DatasetRecord, ExportItem, ItemRecord
from reviewer.formats.registry import dataset_format
from reviewer.jobs import JobContext
from reviewer.kinds import ItemKind

SUBSETS = ("complex", "custom", "escape")
KEYS = ("id", "subset", "schema")


def _schema(value: Any, path: Path, line: int, key: str) -> tuple[dict, str]:
    """``(schema object, schema text)`` from an object or its JSON text; InputError if not a JSON Schema."""
    if isinstance(value, str):
        obj = loads_at(value, path, at(line, [key]))
        text = value
    else:
        obj = value
        text = json.dumps(value, ensure_ascii=False, indent=2)
    expect(obj, (dict, bool), path, [key], f"line {line}")
    try:
        jsonschema.validators.validator_for(obj).check_schema(obj)
    except SchemaError as exc:
        raise InputError(path, at(line, [key, *exc.path]), f"not a valid JSON Schema: {exc.message}") from None
    return obj, text


def _items(path: Path, ctx: JobContext) -> Iterator[ItemRecord]:
    seen = UniqueIds(path, "id")
    count = 0
    for line, rec in iter_jsonl(path):
        ctx.check_cancelled()
        where = f"line {line}"
        expect(rec, dict, path, [], where)
        record_id = str(expect(rec.get("id"), (str, int), path, ["id"], where))
        seen.add(record_id, line, ["id"])
        subset = expect(rec.get("subset"), str, path, ["subset"], where)
        if subset not in SUBSETS:
            raise InputError(path, at(line, ["subset"]), f"expected one of {', '.join(SUBSETS)}, got {subset!r}")
        if "schema" not in rec:
            raise InputError(path, at(line, ["schema"]), "missing: expected the JSON Schema the output must satisfy")
        _, schema_text = _schema(rec["schema"], path, line, "schema")
        verify = rec.get("verify_schema")
        if verify is not None:
            verify, _ = _schema(verify, path, line, "verify_schema")
        token = rec.get("special_token")
        if token is not None:
            expect(token, str, path, ["special_token"], where)
        prompt = rec.get("prompt")
        if prompt is not None:
            expect(prompt, str, path, ["prompt"], where)
        payload = {"verify_schema": verify, "special_token": token, "subset": subset}
        if prompt is not None:
            payload["prompt"] = prompt
        yield ItemRecord(
            record_id=record_id,
            kind=ItemKind.SCHEMA_GEN.value,
            gold=None,
            raw=rec,
            question=prompt,
            payload=payload,
            schema=schema_text,
            category=subset,
            source_file=str(path),
            source_line=line,
        )
        count += 1
        if count % PROGRESS_EVERY == 0:
            ctx.progress(count, None, f"{count} schema items read")
    ctx.progress(count, count, f"{count} schema items read")


@dataset_format
class SchemaGenFormat(SingleJsonlFormat):
    name = "schemagen"
    label = "Schema-constrained generation (JSONL: id, subset, schema, verify_schema)"
    kind = ItemKind.SCHEMA_GEN.value

    keys = KEYS
    what = "schema-generation"

    def items(self, file: Path, ctx: JobContext) -> Iterator[ItemRecord]:
        return _items(file, ctx)

    def write(self, dataset: DatasetRecord, items: list[ExportItem], out: Path, ctx: JobContext) -> list[Path]:
        """The records as imported, one a line, in ``out/<file name as imported>``."""
        path = write_jsonl(Path(out) / dataset.meta.get("file", "schemagen.jsonl"), (item.raw for item in items))
        ctx.progress(len(items), len(items), "schema items written")
        return [path]
