"""Small pieces shared by the JSON Lines dataset formats (NesTools, BFCL, schemagen, toolselect).

- ``first_record(path)``: the first JSON object of a file, for cheap ``detect``.
- ``pick_jsonl(path, keys, what)``: the one ``.jsonl`` file to import from a file or folder.
- ``at(line, parts)``: the "line 7, $.call[2]" location text used in InputError.
- ``UniqueIds``: rejects a record id seen before, naming both lines.
- ``write_jsonl(path, rows)``: one compact JSON object a line, UTF-8, parents created.

Parsing and type checks live in ``_jsonio`` (``iter_jsonl``, ``expect``).
"""

from __future__ import annotations

import io
import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from reviewer.errors import InputError, json_path
from reviewer.formats._jsonio import max_input_bytes, open_input

PROGRESS_EVERY = 200  # records between two progress reports while importing


def estimated_total(records: int, read: int, size: int) -> int:
    """How many records a file of ``size`` bytes holds, ``records`` having been read in its
    first ``read`` bytes (at least ``records``): a progress bar's total while the file is
    read a line at a time, better as more is read. Said "about" wherever it is shown, so it
    is rounded to three figures (about 100,000, not about 100,009)."""
    if read <= 0:
        return records
    estimate = round(records * size / read)
    return max(records, round(estimate, 3 - len(str(estimate))) if estimate >= 1000 else estimate)


def first_record(path: Path) -> Any:
    """The first non-blank line of ``path`` parsed as JSON, or None when unreadable.

    Only for ``detect``: it never raises, and reads one line whatever the file size.
    """
    try:
        # open_input: a FIFO or device in a folder must not block or flood detection.
        # streamed: one line is read, at most max_input_bytes() of it (a longer one: None)
        with io.TextIOWrapper(open_input(path, streamed=True), encoding="utf-8-sig") as fh:
            limit = max_input_bytes()
            while line := fh.readline(limit + 1):
                if len(line) > limit and not line.endswith("\n"):
                    return None
                if line.strip():
                    return json.loads(line)
    except (OSError, UnicodeDecodeError, ValueError, RecursionError, InputError):
        return None
    return None


def has_keys(path: Path, keys: Iterable[str]) -> bool:
    """True when the first record of ``path`` is an object with all ``keys``."""
    rec = first_record(path)
    return isinstance(rec, dict) and all(k in rec for k in keys)


def pick_jsonl(path: Path, keys: Iterable[str], what: str) -> Path:
    """The JSON Lines file to import: ``path`` itself, or the one ``*.jsonl`` in folder
    ``path`` whose first record has ``keys``.

    Raises InputError when the folder has none or several such files.
    """
    path = Path(path)
    if not path.is_dir():
        if not path.exists():
            raise InputError(path, None, "file not found")
        return path
    keys = tuple(keys)
    found = sorted(p for p in path.glob("*.jsonl") if has_keys(p, keys))
    if not found:
        raise InputError(path, None, f"no {what} .jsonl file in this folder (records need the fields {', '.join(keys)})")
    if len(found) > 1:
        names = ", ".join(p.name for p in found)
        raise InputError(path, None, f"several {what} files in this folder ({names}); import one of them")
    return found[0]


def at(line: int, parts: list | None = None) -> str:
    """Location text "line 7" or "line 7, $.call[2].parameters" for InputError."""
    return f"line {line}, {json_path(parts)}" if parts else f"line {line}"


class UniqueIds:
    """Remembers where every record id was seen so that a repeat is an error naming both places.

    ``path`` is the file being read; a dataset read from several files sets it
    before each one, and a repeat across files names the first file too.
    """

    def __init__(self, path: Path, what: str = "id"):
        self.path = Path(path)
        self.what = what
        self.first: dict[str, tuple[Path, int]] = {}

    def add(self, record_id: str, line: int, parts: list | None = None) -> None:
        first = self.first.setdefault(record_id, (self.path, line))
        if first != (self.path, line):
            where = f"line {first[1]}" if first[0] == self.path else f"{first[0].name} line {first[1]}"
            raise InputError(self.path, at(line, parts), f"duplicate {self.what} {record_id!r} (first on {where})")


def write_jsonl(path: Path, rows: Iterable[Any]) -> Path:
    """Write one compact JSON value a line (UTF-8, non-ASCII kept as is); return ``path``."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", encoding="utf-8", newline="\n") as fh:
        for row in rows:
            fh.write(json.dumps(row, ensure_ascii=False, allow_nan=False))  # standard JSON only
            fh.write("\n")
    return path


class SingleJsonlFormat:
    """Shared ``detect`` and ``read`` of a dataset format whose source is one .jsonl file
    (or a folder holding exactly one) whose records carry ``keys``.

    Subclasses set ``name``, ``label``, ``kind``, ``keys`` and ``what`` (words for
    messages) and implement ``items(file, ctx)`` and ``write``.
    """

    keys: tuple[str, ...] = ()
    what = "records"

    def detect(self, path: Path) -> bool:
        path = Path(path)
        if path.is_dir():
            return any(has_keys(p, self.keys) for p in path.glob("*.jsonl"))
        return path.suffix == ".jsonl" and has_keys(path, self.keys)

    def read(self, path: Path, ctx):
        """A .jsonl file, or a folder holding exactly one; records parse while ``items`` is iterated."""
        from reviewer.formats.base import DatasetRecord, ParsedDataset

        file = pick_jsonl(Path(path), self.keys, self.what)
        dataset = DatasetRecord(name=file.stem, format=self.name, kind=self.kind, source=str(file),
                                meta={"file": file.name})
        return ParsedDataset(dataset, self.items(file, ctx))
