"""Reading one sheet of an .xlsx workbook row by row, and writing one back.

Reading uses openpyxl's read-only mode: rows are parsed as they are asked for
and the workbook is closed when the iteration ends (or is abandoned), so a big
workbook is never held whole in memory. Errors are InputErrors naming the file,
the sheet and, from the callers, the row and column.
"""

from __future__ import annotations

import datetime as _dt
import zipfile
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import openpyxl
from openpyxl.utils import get_column_letter
from openpyxl.utils.exceptions import IllegalCharacterError, InvalidFileException

from reviewer.errors import InputError, ReviewerError


@contextmanager
def open_sheet(path: str | Path, sheet: str) -> Iterator[Any]:
    """Open ``sheet`` of the workbook at ``path`` read-only; close it on exit.

    InputError when the file is missing, is not an .xlsx workbook, or has no
    such sheet (the message lists the sheets it has).
    """
    p = Path(path)
    if p.is_dir():
        raise InputError(p, None, "is a folder, expected an .xlsx workbook")
    if not p.is_file():
        raise InputError(p, None, "file not found")
    try:
        wb = openpyxl.load_workbook(p, read_only=True)
    except (zipfile.BadZipFile, InvalidFileException, KeyError, OSError) as exc:
        raise InputError(p, None, f"not a readable .xlsx workbook ({exc})") from None
    try:
        if sheet not in wb.sheetnames:
            found = ", ".join(repr(s) for s in wb.sheetnames) or "none"
            raise InputError(p, None, f"no sheet named {sheet!r} (sheets found: {found})")
        ws = wb[sheet]
        # Read-only mode trusts the sheet's <dimension> tag, which some writers get
        # wrong (e.g. "A1"); forgetting it makes openpyxl read every row there is.
        ws.reset_dimensions()
        yield ws
    finally:
        wb.close()


def iter_rows(ws) -> Iterator[tuple[int, tuple]]:
    """Yield ``(row_number, values)`` for each row (1-based sheet row numbers).

    A row's values stop at its last stored cell, so rows may differ in length;
    rows whose cells are all empty are skipped.
    """
    for number, values in enumerate(ws.iter_rows(values_only=True), start=1):
        if all(v is None or v == "" for v in values):
            continue
        yield number, values


def column_letter(index0: int) -> str:
    """Spreadsheet letter of a 0-based column index (0 -> "A")."""
    return get_column_letter(index0 + 1)


def header_keys(header: Iterable[Any]) -> list[str]:
    """Names to key a row's cells by: the header text, or "column X" where it is empty or repeated."""
    keys: list[str] = []
    for i, h in enumerate(header):
        key = h.strip() if isinstance(h, str) else ""
        if not key or key in keys:
            key = f"column {column_letter(i)}"
        keys.append(key)
    return keys


def cell_value(value: Any) -> Any:
    """A cell value as a JSON value: dates and times become ISO text, the rest is kept."""
    if isinstance(value, (_dt.datetime, _dt.date, _dt.time)):
        return value.isoformat()
    if isinstance(value, _dt.timedelta):
        return value.total_seconds()
    return value


def write_sheet(path: str | Path, sheet: str, rows: Iterable[Iterable[Any]]) -> Path:
    """Write ``rows`` (the header first) as the only sheet of a new workbook at ``path``.

    Uses openpyxl's write-only mode, which streams rows to disk.
    """
    p = Path(path)
    p.parent.mkdir(parents=True, exist_ok=True)
    wb = openpyxl.Workbook(write_only=True)
    ws = wb.create_sheet(sheet)
    for number, row in enumerate(rows, start=1):
        try:
            ws.append(list(row))
        except IllegalCharacterError:
            raise ReviewerError(
                f"{p}: row {number}: a cell holds a control character that an .xlsx file cannot store; "
                "export as JSON Lines instead"
            ) from None
    wb.save(p)
    return p


def sheet_header(path: str | Path, sheet: str) -> tuple | None:
    """The first row of ``sheet``, or None when the file is no workbook or lacks the sheet.

    For format detection: never raises on a bad file.
    """
    try:
        with open_sheet(path, sheet) as ws:
            for _, values in iter_rows(ws):
                return values
    except Exception:  # detection must not fail on odd files
        return None
    return None
