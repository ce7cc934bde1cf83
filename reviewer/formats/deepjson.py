"""DeepJSONEval (paper 001): text -> deeply nested JSON extraction, and its output workbooks.

Dataset files (shared/FORMATS.md §2):
- ``.xlsx``: sheet ``sheet1``, a header row, then one item per row with columns
  ``schema`` (JSON Schema text), ``text`` (source text), ``json`` (gold object as
  JSON text), ``category``, ``true_depth``; other columns are kept as they are.
- ``.jsonl``: one object per line with the same keys; ``json`` may be JSON text
  or the object itself.

``record_id`` is the value of an ``id`` column/key when the file has one, else
the item's 1-based data row number (the sheet row minus the header; for JSONL
the record's position). ``gold`` is the parsed ``json``; ``depth`` is
``true_depth`` and ``difficulty`` Medium (3-4) / Hard (5-7).

Writing puts the cells back as read; only an edited gold's ``json`` cell is
re-serialised, with ``json.dumps(gold, ensure_ascii=False, indent=N)`` where N is
the original cell's indent. A run's output workbook is the same sheet plus
``model_output``, ``prompt_tokens`` and ``completion_tokens``, matched to the
items by row number (or id).
"""

from __future__ import annotations

import dataclasses
import itertools
import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from reviewer.errors import InputError, ReviewerError, json_path
from reviewer.formats._jsonio import detect_style, expect, iter_jsonl, loads_at, type_name
from reviewer.formats._xlsx import cell_value, column_letter, header_keys, iter_rows, open_sheet, sheet_header, write_sheet
from reviewer.formats.base import (
    DatasetRecord,
    ExportItem,
    ItemRecord,
    OutputRecord,
    ParsedDataset,
    ParsedRun,
    RunRecord,
)
from reviewer.formats.registry import dataset_format, run_format
from reviewer.jobs import JobContext
from reviewer.kinds import ItemKind, difficulty_from_depth

SHEET = "sheet1"
REQUIRED_COLUMNS = ("schema", "text", "json", "category", "true_depth")
OUTPUT_COLUMNS = ("model_output", "prompt_tokens", "completion_tokens")
ID_COLUMN = "id"
DEFAULT_INDENT = 2  # the dataset's own gold cells are indented by 2

_PROGRESS_EVERY = 50


# --------------------------------------------------------------------------- rows


@dataclass
class _Row:
    """One data record from either file kind, with a way to say where a field is."""

    number: int  # 1-based data row number / record position
    line: int  # sheet row or file line
    cells: dict[str, Any]
    path: Path
    columns: dict[str, str] | None = None  # key -> column letter (xlsx only)

    def where(self, key: str) -> str:
        if self.columns is not None:
            return f"sheet {SHEET!r}, row {self.line}, column {self.columns.get(key, '?')} ({key})"
        return f"line {self.line}, {json_path([key])}"

    def record_id(self) -> str:
        if ID_COLUMN not in self.cells:
            return str(self.number)
        value = self.cells[ID_COLUMN]
        if isinstance(value, float) and value.is_integer():
            value = int(value)
        if value is None or value == "" or isinstance(value, (bool, dict, list)):
            raise InputError(self.path, self.where(ID_COLUMN), f"expected an id (text or a number), got {type_name(value) if value != '' else 'an empty cell'}")
        return str(value)


def _int_cell(row: _Row, key: str, optional: bool) -> int | None:
    value = row.cells.get(key)
    if value is None or value == "":
        if optional:
            return None
        raise InputError(row.path, row.where(key), "empty; expected a whole number")
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, str) and value.strip().lstrip("-").isdigit():
        return int(value.strip())
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    raise InputError(row.path, row.where(key), f"expected a whole number, got {value!r}")


def _xlsx_rows(path: Path, required: tuple[str, ...], header_out: list) -> Iterator[_Row]:
    """Rows of ``sheet1`` keyed by header; checks the required columns first.

    ``header_out`` receives the header row as read (before the first row is yielded).
    """
    with open_sheet(path, SHEET) as ws:
        rows = iter_rows(ws)
        first = next(rows, None)
        if first is None:
            raise InputError(path, f"sheet {SHEET!r}", "the sheet is empty (no header row)")
        header_line, header = first
        keys = header_keys(header)
        missing = [c for c in required if c not in keys]
        if missing:
            found = ", ".join(repr(h) for h in header if h is not None) or "none"
            raise InputError(path, f"sheet {SHEET!r}, row {header_line}", f"missing column(s) {', '.join(missing)} (columns found: {found})")
        header_out.extend(header)
        columns = {k: column_letter(i) for i, k in enumerate(keys)}
        width = len(keys)
        for line, values in rows:
            stray = next((i for i in range(width, len(values)) if values[i] not in (None, "")), None)
            if stray is not None:
                # Dropping it would lose data on export; a header makes it a column.
                raise InputError(path, f"sheet {SHEET!r}, row {line}, column {column_letter(stray)}", "a value in a column with no header")
            values = tuple(values[:width]) + (None,) * (width - len(values))
            cells = {k: cell_value(v) for k, v in zip(keys, values, strict=True)}
            yield _Row(line - header_line, line, cells, path, columns)


def _jsonl_rows(path: Path, required: tuple[str, ...]) -> Iterator[_Row]:
    for number, (line, obj) in enumerate(iter_jsonl(path), start=1):
        expect(obj, dict, path, [], f"line {line}")
        missing = [c for c in required if c not in obj]
        if missing:
            raise InputError(path, f"line {line}", f"missing key(s) {', '.join(missing)}")
        yield _Row(number, line, obj, path)


def _is_jsonl(path: Path) -> bool:
    return path.suffix.lower() in (".jsonl", ".ndjson")


# --------------------------------------------------------------------------- items


def _parse_gold(row: _Row) -> Any:
    value = row.cells["json"]
    if isinstance(value, str):
        if not value.strip():
            raise InputError(row.path, row.where("json"), "empty; expected the gold object as JSON text")
        return loads_at(value, row.path, row.where("json"))
    if isinstance(value, (dict, list)) and row.columns is None:
        return value  # JSONL may carry the object itself
    raise InputError(row.path, row.where("json"), f"expected the gold object as JSON text, got {type_name(value)}")


def _item(row: _Row) -> ItemRecord:
    cells = row.cells
    for key in ("schema", "text"):
        if not isinstance(cells[key], str):
            raise InputError(row.path, row.where(key), f"expected text, got {type_name(cells[key])}")
    category = cells["category"]
    if category is not None and not isinstance(category, str):
        raise InputError(row.path, row.where("category"), f"expected text, got {type_name(category)}")
    gold = _parse_gold(row)
    depth = _int_cell(row, "true_depth", optional=True)
    return ItemRecord(
        record_id=row.record_id(),
        kind=ItemKind.EXTRACTION.value,
        gold=gold,
        raw=cells,
        payload={"text": cells["text"]},
        schema=cells["schema"],
        category=category,
        depth=depth,
        difficulty=difficulty_from_depth(depth),
        source_file=row.path.name,
        source_line=row.line,
    )


def _iter_items(rows: Iterator[_Row], ctx: JobContext) -> Iterator[ItemRecord]:
    seen: dict[str, int] = {}
    n = 0
    for n, row in enumerate(rows, start=1):
        if n % _PROGRESS_EVERY == 1:
            ctx.check_cancelled()
            ctx.progress(n - 1, None, "reading rows")
        item = _item(row)
        if item.record_id in seen:
            raise InputError(row.path, row.where(ID_COLUMN), f"duplicate id {item.record_id!r} (first at {'row' if row.columns else 'line'} {seen[item.record_id]})")
        seen[item.record_id] = row.line
        yield item
    ctx.progress(n, n, "read rows")


# --------------------------------------------------------------------------- writing


def gold_text(gold: Any, original: Any) -> str:
    """The ``json`` cell text for an edited gold, laid out like the original cell."""
    indent = detect_style(original).indent if isinstance(original, str) else DEFAULT_INDENT
    return json.dumps(gold, ensure_ascii=False, indent=indent)


def _export_cells(item: ExportItem) -> dict[str, Any]:
    """The item's cells as read, with the gold's ``json`` replaced only when edited."""
    cells = dict(item.raw)
    if item.gold_edited:
        original = cells.get("json")
        cells["json"] = item.gold if isinstance(original, (dict, list)) else gold_text(item.gold, original)
    return cells


def _xlsx_cell(value: Any) -> Any:
    # A JSONL source may hold objects where a sheet needs text.
    if isinstance(value, (dict, list)):
        return json.dumps(value, ensure_ascii=False, indent=DEFAULT_INDENT)
    return value


def _columns_for(dataset: DatasetRecord, items: list[ExportItem]) -> tuple[list, list[str]]:
    """(header row, keys) for a sheet: the source header, or every key in first-seen order."""
    if dataset.meta.get("header") is not None:
        header = list(dataset.meta["header"])
        return header, header_keys(header)
    keys: list[str] = []
    for it in items:
        keys.extend(k for k in it.raw if k not in keys)
    return list(keys), keys


def _with_ids_if_renumbered(dataset: DatasetRecord, items: list[ExportItem]):
    """Without an id column an item's id is its row number, so writing only some items
    (the released Gold, say) would renumber them and detach their prediction files.
    Then an ``id`` column is added, first, holding the ids the items have here."""
    header = dataset.meta.get("header")
    has_ids = (header is not None and ID_COLUMN in header_keys(header)) or any(ID_COLUMN in it.raw for it in items)
    if has_ids or [it.record_id for it in items] == [str(n) for n in range(1, len(items) + 1)]:
        return dataset, items
    meta = dict(dataset.meta)
    if header is not None:
        meta["header"] = [ID_COLUMN, *header]
    dataset = dataclasses.replace(dataset, meta=meta)
    items = [dataclasses.replace(it, raw={ID_COLUMN: it.record_id, **it.raw}) for it in items]
    return dataset, items


def write_xlsx(dataset: DatasetRecord, items: list[ExportItem], path: Path, ctx: JobContext) -> Path:
    """Write ``items`` as ``sheet1`` of a new workbook at ``path``."""
    header, keys = _columns_for(dataset, items)

    def rows():
        yield header
        for n, it in enumerate(items):
            if n % _PROGRESS_EVERY == 0:
                ctx.check_cancelled()
                ctx.progress(n, len(items), "writing rows")
            cells = _export_cells(it)
            yield [_xlsx_cell(cells.get(k)) for k in keys]

    out = write_sheet(path, SHEET, rows())
    ctx.progress(len(items), len(items), "wrote workbook")
    return out


def write_jsonl(dataset: DatasetRecord, items: list[ExportItem], path: Path, ctx: JobContext) -> Path:
    """Write ``items`` as JSON Lines at ``path``, one object per item (UTF-8, not escaped)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", encoding="utf-8", newline="\n") as fh:
        for n, it in enumerate(items):
            if n % _PROGRESS_EVERY == 0:
                ctx.check_cancelled()
                ctx.progress(n, len(items), "writing lines")
            fh.write(json.dumps(_export_cells(it), ensure_ascii=False) + "\n")
    ctx.progress(len(items), len(items), "wrote JSON Lines")
    return path


# --------------------------------------------------------------------------- formats


@dataset_format
class DeepJsonDataset:
    """DeepJSONEval's workbook (sheet ``sheet1``) or the same records as JSON Lines."""

    name = "deepjson"
    label = "DeepJSONEval (.xlsx or .jsonl)"
    kind = ItemKind.EXTRACTION.value

    def detect(self, path: Path) -> bool:
        path = Path(path)
        if not path.is_file():
            return False
        if _is_jsonl(path):
            try:
                first = next(iter_jsonl(path), None)
            except InputError:
                return False
            return first is not None and isinstance(first[1], dict) and all(k in first[1] for k in REQUIRED_COLUMNS)
        if path.suffix.lower() != ".xlsx":
            return False
        header = sheet_header(path, SHEET)
        return header is not None and all(c in header for c in REQUIRED_COLUMNS) and "model_output" not in header

    def read(self, path: Path, ctx: JobContext) -> ParsedDataset:
        """Check the sheet and header now; parse the rows lazily as items are taken."""
        path = Path(path)
        meta: dict[str, Any] = {"file": path.name}
        if _is_jsonl(path):
            meta["source_format"] = "jsonl"
            rows = _prime(_jsonl_rows(path, REQUIRED_COLUMNS))
        else:
            meta["source_format"] = "xlsx"
            meta["sheet"] = SHEET
            header: list = []
            rows = _xlsx_rows(path, REQUIRED_COLUMNS, header)
            rows = _prime(rows)  # opens the workbook and checks sheet and header now
            meta["header"] = header
        dataset = DatasetRecord(name=path.stem, format=self.name, kind=self.kind, source=str(path), meta=meta)
        return ParsedDataset(dataset, _iter_items(rows, ctx))

    def write(
        self,
        dataset: DatasetRecord,
        items: list[ExportItem],
        out: Path,
        ctx: JobContext,
        as_format: str | None = None,
    ) -> list[Path]:
        """Write ``out/<name>.xlsx`` or ``.jsonl``: the source's kind unless ``as_format`` names one."""
        fmt = as_format or dataset.meta.get("source_format", "xlsx")
        stem = Path(dataset.meta.get("file") or f"{dataset.name}.{fmt}").stem
        out = Path(out)
        dataset, items = _with_ids_if_renumbered(dataset, items)
        if fmt == "xlsx":
            return [write_xlsx(dataset, items, out / f"{stem}.xlsx", ctx)]
        if fmt == "jsonl":
            return [write_jsonl(dataset, items, out / f"{stem}.jsonl", ctx)]
        raise ReviewerError(f"DeepJSONEval can be written as xlsx or jsonl, not {fmt!r}")


def _prime(rows: Iterator[_Row]) -> Iterator[_Row]:
    """Run a row generator up to its first row now, so header errors surface at read()."""
    first = next(rows, None)
    return iter(()) if first is None else itertools.chain([first], rows)


@run_format
class DeepJsonPredictions:
    """A DeepJSONEval output workbook: the dataset sheet plus model_output and token counts."""

    name = "deepjson-predictions"
    label = "DeepJSONEval outputs (.xlsx with model_output)"
    dataset_format = "deepjson"

    def detect(self, path: Path) -> bool:
        path = Path(path)
        if not (path.is_file() and path.suffix.lower() == ".xlsx"):
            return False
        header = sheet_header(path, SHEET)
        return header is not None and "model_output" in header

    def read(self, path: Path, ctx: JobContext) -> ParsedRun:
        """Outputs lazily, one per row; ``raw`` keeps the row minus the item's own schema/text/json."""
        path = Path(path)
        header: list = []
        rows = _prime(_xlsx_rows(path, ("model_output",), header))
        run = RunRecord(name=path.stem, format=self.name, source=str(path), meta={"header": header})
        return ParsedRun(run, _iter_outputs(rows, ctx))


_ITEM_COLUMNS = ("schema", "text", "json")
_KNOWN_COLUMNS = set(REQUIRED_COLUMNS) | set(OUTPUT_COLUMNS) | {ID_COLUMN}


def _iter_outputs(rows: Iterator[_Row], ctx: JobContext) -> Iterator[OutputRecord]:
    for n, row in enumerate(rows):
        if n % _PROGRESS_EVERY == 0:
            ctx.check_cancelled()
            ctx.progress(n, None, "reading outputs")
        text = row.cells.get("model_output")
        if text is not None and not isinstance(text, str):
            text = str(text)  # a bare number the spreadsheet stored as one
        yield OutputRecord(
            record_id=row.record_id(),
            text=text,
            raw={k: v for k, v in row.cells.items() if k not in _ITEM_COLUMNS},
            prompt_tokens=_int_cell(row, "prompt_tokens", optional=True) if "prompt_tokens" in row.cells else None,
            completion_tokens=_int_cell(row, "completion_tokens", optional=True) if "completion_tokens" in row.cells else None,
            extra={k: v for k, v in row.cells.items() if k not in _KNOWN_COLUMNS and not k.startswith("column ")},
            source_line=row.line,
        )
