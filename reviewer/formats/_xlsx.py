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
from openpyxl.utils.exceptions import IllegalCharacterError

from reviewer.errors import InputError, ReviewerError
from reviewer.formats._jsonio import open_input


@contextmanager
def open_sheet(path: str | Path, sheet: str) -> Iterator[Any]:
    """Open ``sheet`` of the workbook at ``path`` read-only; close it on exit.

    InputError when the file is missing, is not an .xlsx workbook, or has no
    such sheet (the message lists the sheets it has).
    """
    p = Path(path)
    if p.is_dir():
        raise InputError(p, None, "is a folder, expected an .xlsx workbook")
    fh = open_input(p)  # a regular file within the size limit, or InputError
    try:
        _check_zip(p, fh)
        wb = openpyxl.load_workbook(fh, read_only=True)
    except InputError:
        fh.close()
        raise
    except Exception as exc:  # noqa: BLE001 - hostile bytes reach zipfile/zlib/XML parsers, each with its own errors
        fh.close()
        raise InputError(p, None, f"not a readable .xlsx workbook ({_describe(exc)})") from None
    try:
        if sheet not in wb.sheetnames:
            found = ", ".join(repr(s) for s in wb.sheetnames) or "none"
            raise InputError(p, None, f"no sheet named {sheet!r} (sheets found: {found})")
        ws = wb[sheet]
        # Read-only mode trusts the sheet's <dimension> tag, which some writers get
        # wrong (e.g. "A1"); forgetting it makes openpyxl read every row there is.
        ws.reset_dimensions()
        yield _SafeSheet(ws, p)
    finally:
        wb.close()
        fh.close()


MAX_UNZIPPED_BYTES = 1024 * 1024 * 1024  # all parts of one workbook, as its zip directory declares them
MAX_RATIO = 200  # declared uncompressed / compressed size of one part; deflate tops out near 1000


def _check_zip(p: Path, fh) -> None:
    """Refuse a zip bomb by what its directory declares, before anything is inflated.

    A part that inflates past its declared size fails zipfile's own check, so the
    declared sizes bound the work.
    """
    try:
        with zipfile.ZipFile(fh) as zf:
            infos = zf.infolist()
    except Exception as exc:  # noqa: BLE001
        raise InputError(p, None, f"not a readable .xlsx workbook ({_describe(exc)})") from None
    finally:
        fh.seek(0)
    total = sum(i.file_size for i in infos)
    if total > MAX_UNZIPPED_BYTES:
        raise InputError(p, None, f"the workbook unpacks to {total:,} bytes, more than the limit of {MAX_UNZIPPED_BYTES:,}")
    for i in infos:
        if i.file_size > 1024 * 1024 and i.file_size > MAX_RATIO * max(i.compress_size, 1):
            raise InputError(p, None, f"part {i.filename!r} claims to unpack {i.file_size // max(i.compress_size, 1)}"
                                      f" times larger than stored (limit {MAX_RATIO}); refused as a zip bomb")


def _describe(exc: Exception) -> str:
    """A one-line reason from a parser's exception, never a traceback."""
    text = str(exc).splitlines()[0][:200] if str(exc) else ""
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


class _SafeSheet:
    """A read-only worksheet whose row iteration turns a corrupt part into an InputError.

    openpyxl inflates and parses the sheet XML lazily, so a bit flip in the middle of
    the sheet surfaces only while rows are read (zlib.error, XML syntax errors...).
    """

    def __init__(self, ws, path: Path):
        self._ws = ws
        self._path = path

    def __getattr__(self, name):
        return getattr(self._ws, name)

    def iter_rows(self, *args, **kwargs):
        rows = self._ws.iter_rows(*args, **kwargs)
        number = 0
        while True:
            try:
                row = next(rows)
            except StopIteration:
                return
            except Exception as exc:  # noqa: BLE001 - see the class docstring
                raise InputError(self._path, f"sheet {self._ws.title!r}, after row {number}",
                                 f"the workbook is damaged ({_describe(exc)})") from None
            number += 1
            yield row


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
