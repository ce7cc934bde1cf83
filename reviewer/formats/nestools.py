"""NesTools (paper 004): nested tool-call chains, and the model predictions on them.

Dataset files (FORMATS.md §3), both JSON Lines, one line per item, same order:

- ``test_data.jsonl``: ``{test_id, api: [{api_name, api_description, parameters,
  required, responses}], task, call: [{api_name, parameters, responses: ["API_call_k"...]}],
  field}``;
- ``test_api_ids.jsonl``: ``{test_id, api_ids: [...]}``, the api_id of each ``api``
  entry by position (gold calls carry no api_id; the scorer needs them).

``read`` accepts the data file (the ids file is looked for beside it, and where
the NesTools repository keeps it: ``../inference/build_test_prompt/``), a folder
holding either layout, or the ids file given explicitly (``api_ids=``).
Items: record_id = str(test_id), question = task, gold = call, domain = field,
depth = chain depth, payload = {"apis": api, "api_ids": ids}.

``write`` gives both files back; with no edits every line is JSON value-equal to
the original; an edited gold replaces ``call`` in place (key order kept).

Predictions: ``raw_response.jsonl`` lines ``{test_id, prompt?, response}``;
response -1 means the model call failed (status "error").
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from reviewer.callgraph import PLACEHOLDER, placeholders_in
from reviewer.errors import InputError
from reviewer.formats._jsonio import NOT_PLAIN, expect, iter_jsonl, max_input_bytes, open_input, plain_line_value
from reviewer.formats._jsonlfiles import PROGRESS_EVERY, UniqueIds, at, estimated_total, has_keys, write_jsonl
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
from reviewer.kinds import ItemKind

DATA_FILE = "test_data.jsonl"
IDS_FILE = "test_api_ids.jsonl"
PREDICTIONS_FILE = "raw_response.jsonl"
# Where the NesTools repository keeps the ids file, relative to its root.
REPO_IDS_DIR = Path("inference") / "build_test_prompt"
DATA_KEYS = ("test_id", "api", "task", "call")


def locate_files(path: Path, api_ids: Path | None = None) -> tuple[Path, Path]:
    """``(data file, api ids file)`` for a data file or a folder; InputError naming where it looked."""
    path = Path(path)
    if path.is_dir():
        candidates = [path / DATA_FILE, path / "data" / DATA_FILE]
        data = next((p for p in candidates if p.is_file()), None)
        if data is None:
            raise InputError(path, None, f"no {DATA_FILE} in this folder or in its data/ folder")
    elif path.is_file():
        data = path
    else:
        raise InputError(path, None, "file not found")
    if api_ids is not None:
        if not Path(api_ids).is_file():
            raise InputError(api_ids, None, "api ids file not found")
        return data, Path(api_ids)
    roots = [data.parent, data.parent.parent] + ([path] if path.is_dir() else [])
    looked = []
    for root in roots:
        for cand in (root / IDS_FILE, root / REPO_IDS_DIR / IDS_FILE):
            if cand not in looked:
                looked.append(cand)
    found = next((p for p in looked if p.is_file()), None)
    if found is None:
        where = ", ".join(str(p) for p in looked)
        raise InputError(data, None, f"companion file {IDS_FILE} not found (looked for {where}); put it beside the data file or give its path (reviewer import dataset --api-ids PATH)")
    return data, found


_NONE_GIVEN = object()


def _calls_well_formed(calls: Any) -> bool:
    """What ``check_calls`` checks, as one yes/no pass with no error to build (the usual case).
    Plain loops: generator expressions inside ``all`` cost more than the checks (an import
    makes this pass for every item)."""
    if not isinstance(calls, list):
        return False
    for call in calls:
        if not (isinstance(call, dict) and isinstance(call.get("api_name"), str)
                and isinstance(call.get("parameters"), dict)):
            return False
        responses = call.get("responses", _NONE_GIVEN)
        if responses is _NONE_GIVEN:  # no responses key: as an empty list
            continue
        if not isinstance(responses, list):
            return False
        for response in responses:
            if not isinstance(response, str):
                return False
    return True


def check_calls(calls: Any, path: Path | str, where: str | None, parts: list) -> list:
    """Check the shape of a gold call list ``[{api_name, parameters, responses: [str]}]``."""
    if _calls_well_formed(calls):
        return calls
    # Walk again to name the first offending value.
    expect(calls, list, path, parts, where)
    for i, call in enumerate(calls):
        cp = parts + [i]
        expect(call, dict, path, cp, where)
        expect(call.get("api_name"), str, path, cp + ["api_name"], where)
        expect(call.get("parameters"), dict, path, cp + ["parameters"], where)
        responses = expect(call.get("responses", []), list, path, cp + ["responses"], where)
        for j, r in enumerate(responses):
            expect(r, str, path, cp + ["responses", j], where)
    return calls


def _data_record_well_formed(rec: Any) -> bool:
    """What ``_check_data_record`` checks, as one yes/no pass (booleans are not ids, as in ``expect``)."""
    if not isinstance(rec, dict):
        return False
    test_id = rec.get("test_id")
    apis = rec.get("api")
    field = rec.get("field")
    if not (isinstance(test_id, (int, str)) and not isinstance(test_id, bool) and isinstance(apis, list)
            and isinstance(rec.get("task"), str) and (field is None or isinstance(field, str))):
        return False
    for api in apis:
        if not (isinstance(api, dict) and isinstance(api.get("api_name"), str)):
            return False
    return _calls_well_formed(rec.get("call"))


def _check_data_record(rec: Any, path: Path, line: int) -> None:
    if _data_record_well_formed(rec):
        return
    where = f"line {line}"
    expect(rec, dict, path, [], where)
    expect(rec.get("test_id"), (int, str), path, ["test_id"], where)
    apis = expect(rec.get("api"), list, path, ["api"], where)
    for i, api in enumerate(apis):
        expect(api, dict, path, ["api", i], where)
        expect(api.get("api_name"), str, path, ["api", i, "api_name"], where)
    expect(rec.get("task"), str, path, ["task"], where)
    check_calls(rec.get("call"), path, where, ["call"])
    if rec.get("field") is not None:
        expect(rec["field"], str, path, ["field"], where)


class _Pairs:
    """Walks the data file and the ids file in step, one record from each."""

    def __init__(self, data: Path, ids: Path):
        self.data = data
        self.ids = ids

    def __iter__(self) -> Iterator[tuple[int, dict, list]]:
        # streamed: both are read a line at a time, so neither has a file size limit (the
        # import holds a chunk of items, not the file; see _jsonio.file_limit)
        id_lines = iter_jsonl(self.ids, streamed=True)
        records = 0
        for line, rec in iter_jsonl(self.data, streamed=True):
            _check_data_record(rec, self.data, line)
            pair = next(id_lines, None)
            if pair is None:
                raise InputError(
                    self.ids, None,
                    f"has fewer records than {self.data.name}: none for test_id {rec['test_id']!r} ({self.data.name} line {line})",
                )
            records += 1
            yield line, rec, self._ids_for(rec, line, *pair)
        extra = next(id_lines, None)
        if extra is not None and records == 0:  # the data file is what is wrong: say so
            raise InputError(self.data, None, "holds no items; nothing was imported")
        if extra is not None:
            raise InputError(self.ids, at(extra[0]), f"has more records than {self.data.name} (which ends before this line)")

    def _ids_for(self, rec: dict, data_line: int, ids_line: int, ids_rec: Any) -> list:
        where = f"line {ids_line}"
        expect(ids_rec, dict, self.ids, [], where)
        if ids_rec.get("test_id") != rec["test_id"]:
            raise InputError(
                self.ids, at(ids_line, ["test_id"]),
                f"test_id {ids_rec.get('test_id')!r} where {self.data.name} line {data_line} has {rec['test_id']!r} "
                "(the two files must list the items in the same order)",
            )
        ids = expect(ids_rec.get("api_ids"), list, self.ids, ["api_ids"], where)
        if len(ids) != len(rec["api"]):
            raise InputError(
                self.ids, at(ids_line, ["api_ids"]),
                f"{len(ids)} api ids for the {len(rec['api'])} apis of test_id {rec['test_id']!r} ({self.data.name} line {data_line})",
            )
        return ids


def _item_record(record_id: str, rec: dict, ids: list, source_file: str, line: int) -> ItemRecord:
    """The item of a checked data record and its api ids (both read paths make it here)."""
    return ItemRecord(
        record_id=record_id,
        kind=ItemKind.CALL_CHAIN.value,
        gold=rec["call"],
        raw=rec,
        question=rec["task"],
        payload={"apis": rec["api"], "api_ids": ids},
        domain=rec.get("field"),
        depth=_chain_depth(rec["call"]),
        source_file=source_file,
        source_line=line,
        # Every value above comes from the data record or the ids record, both
        # checked by iter_jsonl (or plain_line_value) as they were read.
        storable_checked=True,
    )


def _items_fast(pairs: _Pairs, ctx: JobContext) -> Iterator[ItemRecord]:
    """``_items``, the same records, with the lines of an ordinary file decoded and checked here.

    ``_plain_items`` takes the files as long as every pair of lines is plain and well formed
    (``plain_line_value``, ``_data_record_well_formed``, the ids record's test_id and length);
    at the first pair it cannot vouch for, ``_items`` reads both files
    again from the start, skips the records already given (the same ones: the plain path
    accepts only what ``_items`` accepts, and makes what it would make) and goes on with its
    own checks, so a bad line gets ``_items``'s error. A NesTools item cost ~110 us to read
    through the generic layers (iter_jsonl per file, _Pairs, UniqueIds); see
    tests/formats/test_nestools_fast.py for the equivalence checks.
    """
    given = 0
    before = _identity(pairs)
    plain = _plain_items(pairs, ctx)
    for rec in plain:
        if rec is None:
            break
        given += 1
        yield rec
    else:
        _same_files(pairs, before)
        return
    plain.close()  # its two files, now rather than when this generator ends
    for n, rec in enumerate(_items(pairs, ctx)):
        if n >= given:
            yield rec
    _same_files(pairs, before)


def _identity(pairs: _Pairs) -> tuple:
    """What tells a file saved again (replaced or rewritten) from the one read: each file's
    device, inode, size and modification time (None for one that cannot be looked at)."""
    out = []
    for path in (pairs.data, pairs.ids):
        try:
            st = path.stat()
            out.append((st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns))
        except OSError:
            out.append(None)
    return tuple(out)


def _same_files(pairs: _Pairs, before: tuple) -> None:
    """InputError when either file changed while it was read: the hand-over above reads the
    files again from the start, so records from before and after a save would be mixed (and a
    single pass would mix the two versions of a file rewritten in place). The import's one
    transaction then writes nothing."""
    after = _identity(pairs)
    for path, was, now in zip((pairs.data, pairs.ids), before, after):
        if was != now:
            raise InputError(path, None, "the file changed while it was read (saved by another program?); "
                                         "nothing was imported: import it again")


def _plain_items(pairs: _Pairs, ctx: JobContext) -> Iterator[ItemRecord | None]:
    """The records of the plain prefix of the files; ``None`` at the first pair that is not
    plain (a blank or irregular line, a shape ``_check_data_record`` or ``_ids_for`` would
    look at, a repeated id, the ids file ending early or running on): the caller hands over."""
    seen: set[str] = set()
    source_file = str(pairs.data)
    line = 0
    try:  # a file that cannot be read: _items names it (it opens the ids file later, after the data)
        data_fh = open_input(pairs.data, streamed=True)
    except InputError:
        yield None
        return
    try:
        ids_fh = open_input(pairs.ids, streamed=True)
    except InputError:
        data_fh.close()
        yield None
        return
    limit = max_input_bytes()  # of one line: a longer one is _items' to refuse, with its line
    size = os.fstat(data_fh.fileno()).st_size
    with data_fh, ids_fh:
        while data := data_fh.readline(limit + 1):
            line += 1
            ids_data = ids_fh.readline(limit + 1)
            if len(data) > limit or len(ids_data) > limit:
                yield None
                return
            rec = plain_line_value(data)
            ids_rec = plain_line_value(ids_data) if ids_data else NOT_PLAIN
            if rec is NOT_PLAIN or ids_rec is NOT_PLAIN or not _data_record_well_formed(rec):
                yield None
                return
            ids = ids_rec.get("api_ids") if isinstance(ids_rec, dict) else None
            if (not isinstance(ids, list) or ids_rec.get("test_id") != rec["test_id"]
                    or len(ids) != len(rec["api"])):
                yield None
                return
            ctx.check_cancelled()
            record_id = str(rec["test_id"])
            if record_id in seen:
                yield None
                return
            seen.add(record_id)
            yield _item_record(record_id, rec, ids, source_file, line)
            if line % PROGRESS_EVERY == 0:
                total = estimated_total(line, data_fh.tell(), size)
                ctx.progress(line, total, f"{line:,} of about {total:,} NesTools items read")
        if ids_fh.readline():  # the ids file runs on (or ends in blank lines): _items decides
            yield None
            return
    ctx.progress(line, line, f"{line:,} NesTools items read")


def _items(pairs: _Pairs, ctx: JobContext) -> Iterator[ItemRecord]:
    seen = UniqueIds(pairs.data, "test_id")
    count = 0
    for line, rec, ids in pairs:
        ctx.check_cancelled()
        record_id = str(rec["test_id"])
        seen.add(record_id, line, ["test_id"])
        yield _item_record(record_id, rec, ids, str(pairs.data), line)
        count += 1
        if count % PROGRESS_EVERY == 0:
            ctx.progress(count, None, f"{count} NesTools items read")
    ctx.progress(count, count, f"{count} NesTools items read")


def _chain_depth(calls: list) -> int:
    """``reviewer.callgraph.chain_depth`` of a call list ``check_calls`` accepted, in one pass.

    Same rule: a call's depth is 1, or 1 + the depth of the latest earlier call
    returning a placeholder found in its parameter values; the chain's depth is
    the deepest call's (0 for no calls). callgraph builds every edge for the
    graph view; the importer needs only the number, for every item.
    """
    producer_depth: dict[str, int] = {}
    deepest = 0
    for call in calls:
        depth = 1
        # Before any call returned a placeholder no token can count; a text without the
        # token's fixed part holds none (a substring test in C, most values fail it).
        for value in call["parameters"].values() if producer_depth else ():
            if isinstance(value, str):
                if "API_call_" not in value:
                    continue
                tokens = PLACEHOLDER.findall(value)
            elif isinstance(value, (list, dict)):
                tokens = placeholders_in(value)
            else:
                continue
            for token in tokens:
                produced = producer_depth.get(token)
                if produced is not None and produced >= depth:
                    depth = produced + 1
        for token in call.get("responses") or ():
            producer_depth[token] = depth
        deepest = max(deepest, depth)
    return deepest


@dataset_format
class NesToolsFormat:
    name = "nestools"
    label = "NesTools (test_data.jsonl + test_api_ids.jsonl)"
    kind = ItemKind.CALL_CHAIN.value

    def detect(self, path: Path) -> bool:
        path = Path(path)
        if path.is_dir():
            return (path / DATA_FILE).is_file() or (path / "data" / DATA_FILE).is_file()
        return path.suffix == ".jsonl" and has_keys(path, DATA_KEYS)

    def read(self, path: Path, ctx: JobContext, api_ids: Path | None = None) -> ParsedDataset:
        """Parse lazily: errors surface while ``items`` is iterated, naming file, line and JSON path."""
        data, ids = locate_files(path, api_ids)
        name = _dataset_name(Path(path), data)
        dataset = DatasetRecord(
            name=name,
            format=self.name,
            kind=self.kind,
            source=str(Path(path)),
            meta={"data_file": data.name, "api_ids_file": ids.name, "api_ids_source": str(ids)},
        )
        return ParsedDataset(dataset, _items_fast(_Pairs(data, ids), ctx))

    def write(self, dataset: DatasetRecord, items: list[ExportItem], out: Path, ctx: JobContext) -> list[Path]:
        """Write ``out/test_data.jsonl`` and ``out/test_api_ids.jsonl`` (names as imported)."""
        out = Path(out)
        data_rows, id_rows = [], []
        for n, item in enumerate(items):
            ctx.check_cancelled()
            rec = item.raw
            if item.gold_edited:
                check_calls(item.gold, f"record {item.record_id!r}", None, ["call"])
                rec = _replaced(rec, "call", item.gold)
            data_rows.append(rec)
            id_rows.append({"test_id": item.raw["test_id"], "api_ids": item.payload.get("api_ids")})
            if (n + 1) % PROGRESS_EVERY == 0:
                ctx.progress(n + 1, len(items), "writing NesTools items")
        data_name = dataset.meta.get("data_file", DATA_FILE)
        ids_name = dataset.meta.get("api_ids_file", IDS_FILE)
        if ids_name == data_name:  # an ids file given apart (--api-ids) under the data file's name
            ids_name = IDS_FILE if data_name != IDS_FILE else f"api_ids_{IDS_FILE}"
        files = [write_jsonl(out / data_name, data_rows), write_jsonl(out / ids_name, id_rows)]
        ctx.progress(len(items), len(items), "NesTools files written")
        return files


def _dataset_name(path: Path, data: Path) -> str:
    """The folder given, else the data file's folder (the repository root for its data/ folder)."""
    if path.is_dir():
        return path.resolve().name
    folder = data.resolve().parent
    return folder.parent.name if folder.name == "data" else folder.name


def _replaced(rec: dict, key: str, value: Any) -> dict:
    """A copy of ``rec`` with ``key`` set to ``value`` at the same position."""
    out = dict(rec)
    out[key] = value
    return out


def _outputs(path: Path, ctx: JobContext) -> Iterator[OutputRecord]:
    seen = UniqueIds(path, "test_id")
    count = 0
    for line, rec in iter_jsonl(path):
        ctx.check_cancelled()
        where = f"line {line}"
        expect(rec, dict, path, [], where)
        test_id = expect(rec.get("test_id"), (int, str), path, ["test_id"], where)
        record_id = str(test_id)
        seen.add(record_id, line, ["test_id"])
        if "response" not in rec:
            raise InputError(path, at(line, ["response"]), "missing: expected the model's text or -1")
        response = expect(rec["response"], (str, int), path, ["response"], where)
        failed = isinstance(response, int)
        if failed and response != -1:
            raise InputError(path, at(line, ["response"]), f"expected the model's text or -1, got {response}")
        extra = {"prompt": rec["prompt"]} if rec.get("prompt") else {}
        yield OutputRecord(
            record_id=record_id,
            text=None if failed else response,
            raw=rec,
            status="error" if failed else "ok",
            error="the model call failed (response -1)" if failed else None,
            extra=extra,
            source_line=line,
        )
        count += 1
        if count % PROGRESS_EVERY == 0:
            ctx.progress(count, None, f"{count} NesTools predictions read")
    ctx.progress(count, count, f"{count} NesTools predictions read")


@run_format
class NesToolsPredictionsFormat:
    name = "nestools-predictions"
    label = "NesTools predictions (raw_response.jsonl)"
    dataset_format = "nestools"

    def detect(self, path: Path) -> bool:
        path = Path(path)
        if path.is_dir():
            path = path / PREDICTIONS_FILE
        return path.is_file() and has_keys(path, ("test_id", "response"))

    def read(self, path: Path, ctx: JobContext) -> ParsedRun:
        """The run is named after the folder holding ``raw_response.jsonl`` (the model or setup)."""
        path = Path(path)
        file = path / PREDICTIONS_FILE if path.is_dir() else path
        if not file.is_file():
            raise InputError(file, None, "file not found")
        run = RunRecord(name=file.parent.name or file.stem, format=self.name, source=str(file), meta={"file": file.name})
        return ParsedRun(run, _outputs(file, ctx))
