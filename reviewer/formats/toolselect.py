"""Tool selection (paper 002, Natural Language Tools) in a simple JSON Lines format.

One JSON object a line:

    {"id": "alex-01",                                   # string or integer, unique
     "message": "Hey Alex, where on the website ...",   # the user message
     "tools": [{"name": "Past Purchases", "description": "..."}, ...],
     "expected": ["Past Purchases", "Website information"],   # maybe empty
     "category": "customer_service"}                    # optional

Tool names are unique within a record and every expected name must be one of
its tools. Items: question = message, payload = {"tools": tools}, gold = the
expected names sorted (selection is scored as a set), category.
``write`` gives the lines back; an edited gold replaces ``expected`` in place.
Sample data from the paper's Appendix A is in ``reviewer/samples/data/toolselect/``.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

from reviewer.errors import InputError
from reviewer.formats._jsonio import expect, iter_jsonl
from reviewer.formats._jsonlfiles import PROGRESS_EVERY, SingleJsonlFormat, UniqueIds, at, write_jsonl
from reviewer.formats.base import DatasetRecord, ExportItem, ItemRecord
from reviewer.formats.registry import dataset_format
from reviewer.jobs import JobContext
from reviewer.kinds import ItemKind

KEYS = ("id", "message", "tools", "expected")


def check_expected(expected: Any, tools: list, path: Path | str, where: str | None) -> list[str]:
    """Check ``expected`` is a list of distinct names of ``tools``; return them sorted."""
    expect(expected, list, path, ["expected"], where)
    names = {t["name"] for t in tools}
    for i, name in enumerate(expected):
        expect(name, str, path, ["expected", i], where)
        if name not in names:
            loc = ", ".join(x for x in (where, f"$.expected[{i}]") if x)
            raise InputError(path, loc, f"{name!r} is not one of the tools ({', '.join(sorted(names))})")
    if len(set(expected)) != len(expected):
        loc = ", ".join(x for x in (where, "$.expected") if x)
        raise InputError(path, loc, "names a tool twice")
    return sorted(expected)


def _tools(rec: dict, path: Path, line: int) -> list:
    where = f"line {line}"
    tools = expect(rec.get("tools"), list, path, ["tools"], where)
    first: dict[str, int] = {}
    for i, tool in enumerate(tools):
        expect(tool, dict, path, ["tools", i], where)
        name = expect(tool.get("name"), str, path, ["tools", i, "name"], where)
        expect(tool.get("description"), str, path, ["tools", i, "description"], where)
        if name in first:
            raise InputError(path, at(line, ["tools", i, "name"]), f"tool {name!r} listed twice (first at $.tools[{first[name]}])")
        first[name] = i
    return tools


def _items(path: Path, ctx: JobContext) -> Iterator[ItemRecord]:
    seen = UniqueIds(path, "id")
    count = 0
    for line, rec in iter_jsonl(path):
        ctx.check_cancelled()
        where = f"line {line}"
        expect(rec, dict, path, [], where)
        record_id = str(expect(rec.get("id"), (str, int), path, ["id"], where))
        seen.add(record_id, line, ["id"])
        message = expect(rec.get("message"), str, path, ["message"], where)
        tools = _tools(rec, path, line)
        gold = check_expected(rec.get("expected"), tools, path, where)
        category = rec.get("category")
        if category is not None:
            expect(category, str, path, ["category"], where)
        yield ItemRecord(
            record_id=record_id,
            kind=ItemKind.TOOL_SELECT.value,
            gold=gold,
            raw=rec,
            question=message,
            payload={"tools": tools},
            category=category,
            source_file=str(path),
            source_line=line,
        )
        count += 1
        if count % PROGRESS_EVERY == 0:
            ctx.progress(count, None, f"{count} tool-selection items read")
    ctx.progress(count, count, f"{count} tool-selection items read")


@dataset_format
class ToolSelectFormat(SingleJsonlFormat):
    name = "toolselect"
    label = "Tool selection (JSONL: id, message, tools, expected)"
    kind = ItemKind.TOOL_SELECT.value

    keys = KEYS
    what = "tool-selection"

    def items(self, file: Path, ctx: JobContext) -> Iterator[ItemRecord]:
        return _items(file, ctx)

    def write(self, dataset: DatasetRecord, items: list[ExportItem], out: Path, ctx: JobContext) -> list[Path]:
        """``out/<file name as imported>``; an edited gold must still name only the item's tools."""
        rows = []
        for item in items:
            rec = item.raw
            if item.gold_edited:
                gold = check_expected(item.gold, rec.get("tools", []), f"record {item.record_id!r}", None)
                rec = dict(rec)
                rec["expected"] = gold
            rows.append(rec)
        path = write_jsonl(Path(out) / dataset.meta.get("file", "toolselect.jsonl"), rows)
        ctx.progress(len(items), len(items), "tool-selection items written")
        return [path]
