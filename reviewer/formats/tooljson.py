"""toolJSONprocessing (paper 000): tool-response QA triples and their prediction files.

Dataset layout (a folder; see shared/FORMATS.md §1)::

    qa_pairs/<app>_<endpoint>_qa_pairs.json   JSON array of QA records
    api_responses/<app>_<endpoint>.json      {app: {endpoint: {api_query: response}}}
    schemas/<app>_<endpoint>_schema.txt      the response's JSON Schema, as text

One item per QA record: ``record_id`` = uid (unique across the folder),
``gold`` = gold_answer, ``context`` = the record's response as JSON text
(``response_text``), ``schema`` = the text of its schema file.

Round trip: ``DatasetRecord.meta`` lists every file with its layout and, for
response and schema files, the content hash of each large text; the texts
themselves are in ``DatasetRecord.blobs`` (the same strings as the items'
context/schema, so the store keeps each once). The writer rebuilds all three
folders from that, including responses no QA record uses; QA records are
written as read (``raw``), with gold_answer replaced only when it was edited.

Prediction files are JSON arrays of records carrying ``uid``, ``model``,
``setup_type``, ``predicted_answer``, ``model_output``, ``code_exec_status``
and ``metrics``. The official results are one file per endpoint, model and setup,
``{endpoint}_{model}_{setup}_predictions.json``; each is read as run
``{model}_{setup}`` (see ``run_name``), so a folder of them makes one run per
model and setup (Store.import_runs).
"""

from __future__ import annotations

import ast
import itertools
import json
import posixpath
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any

from reviewer.errors import InputError, ReviewerError, json_path
from reviewer.formats._jsonio import (
    JsonStyle,
    detect_style,
    expect,
    iter_json_array,
    parse_json,
    read_text,
    write_json_file,
)
from reviewer.formats.base import (
    DatasetRecord,
    ExportItem,
    ItemRecord,
    OutputRecord,
    ParsedDataset,
    ParsedRun,
    RunRecord,
    blob_hash,
)
from reviewer.formats.registry import dataset_format, run_format
from reviewer.jobs import JobContext
from reviewer.kinds import ItemKind

QA_DIR = "qa_pairs"
RESPONSES_DIR = "api_responses"
SCHEMAS_DIR = "schemas"

# The official scorer picks the metric from metrics.exact_match_metric; these are
# the values the benchmark uses for each task type, used when a record lacks it.
TASK_TYPE_METRICS = {
    "EXTRACTIVE": "accuracy_string",
    "FILTERING": "unordered_list_str_match",
    "AGGREGATION": "approx_number_match",
}

# Fields every QA record must carry as strings.
_QA_STRING_FIELDS = (
    "question",
    "gold_answer",
    "api_response_path",
    "api_response_schema",
    "app",
    "endpoint",
    "api_query",
    "task",
    "task_type",
)

_PROGRESS_EVERY = 50


def response_text(response: Any) -> str:
    """The JSON text stored as an item's ``context`` (and as the response's blob).

    Deterministic, so every item that uses a response gets the identical text
    and the store keeps one copy. Single-line (json's default separators): the
    C encoder writes it ~10x faster than an indented text, it is a third
    smaller, and viewers pretty-print it anyway.
    """
    return json.dumps(response, ensure_ascii=False)


def metrics_dict(metrics: Any) -> dict | None:
    """The record's metrics as a dict: some files store them as a Python repr string."""
    if isinstance(metrics, dict):
        return metrics
    if isinstance(metrics, str):
        try:
            value = ast.literal_eval(metrics)
        except (ValueError, SyntaxError, MemoryError, RecursionError):
            return None
        return value if isinstance(value, dict) else None
    return None


def find_root(path: Path) -> Path | None:
    """The dataset folder (the one holding ``qa_pairs/``) for ``path``, or None."""
    path = Path(path)
    if (path / QA_DIR).is_dir():
        return path
    if path.name == QA_DIR and path.is_dir():
        return path.parent
    return None


# --------------------------------------------------------------------------- reading


@dataclass
class _ResponseFile:
    rel: str
    style: JsonStyle
    # app -> endpoint -> api_query -> response JSON text (insertion order = file order)
    tree: dict[str, dict[str, dict[str, str]]]

    def meta(self) -> dict:
        # Lists, not objects, so the order survives a store that reorders keys.
        return {
            "file": self.rel,
            "style": self.style.to_dict(),
            "apps": [
                {
                    "app": app,
                    "endpoints": [
                        {"endpoint": ep, "queries": [{"query": q, "blob": blob_hash(t)} for q, t in queries.items()]}
                        for ep, queries in endpoints.items()
                    ],
                }
                for app, endpoints in self.tree.items()
            ],
        }


@dataclass
class _QaRecord:
    rec: dict
    rel: str  # qa file, relative to the root
    index: int
    line: int
    response_rel: str
    schema_rel: str


@dataclass
class _Folder:
    """Everything read from one dataset folder, checked before any item is yielded."""

    root: Path
    responses: dict[str, _ResponseFile] = field(default_factory=dict)
    schemas: dict[str, str] = field(default_factory=dict)  # rel -> text
    qa_files: list[dict] = field(default_factory=list)
    records: list[_QaRecord] = field(default_factory=list)
    _resolved: dict[tuple[str, str], Path | None] = field(default_factory=dict)

    def rel(self, p: Path) -> str:
        """``p`` relative to the root, normalised so one file always has one name."""
        return posixpath.normpath(p.relative_to(self.root).as_posix())

    # -- referenced files ------------------------------------------------------

    def resolve(self, ref: str, folder: str) -> Path | None:
        """The file a record names: as given relative to the root, else by name in ``folder``."""
        key = (ref, folder)
        if key not in self._resolved:  # hundreds of records name the same few files
            self._resolved[key] = self._resolve(ref, folder)
        return self._resolved[key]

    def _resolve(self, ref: str, folder: str) -> Path | None:
        root = self.root.resolve()
        for cand in (self.root / ref, self.root / folder / PurePosixPath(ref).name):
            try:
                inside = cand.resolve().is_relative_to(root)
            except OSError:
                continue
            if inside and cand.is_file():
                return cand
        return None

    def load_response_file(self, p: Path) -> _ResponseFile:
        rel = self.rel(p)
        if rel in self.responses:
            return self.responses[rel]
        text = read_text(p)
        doc = parse_json(text, p)
        expect(doc, dict, p, [], None)
        tree: dict[str, dict[str, dict[str, str]]] = {}
        for app, endpoints in doc.items():
            expect(endpoints, dict, p, [app], None)
            tree[app] = {}
            for ep, queries in endpoints.items():
                expect(queries, dict, p, [app, ep], None)
                tree[app][ep] = {q: response_text(r) for q, r in queries.items()}
        rf = _ResponseFile(rel, detect_style(text), tree)
        self.responses[rel] = rf
        return rf

    def load_schema_file(self, p: Path) -> str:
        rel = self.rel(p)
        if rel not in self.schemas:
            self.schemas[rel] = read_text(p)
        return self.schemas[rel]


def _read_folder(root: Path, ctx: JobContext) -> _Folder:
    folder = _Folder(root)
    qa_paths = sorted((root / QA_DIR).glob("*.json"))
    if not qa_paths:
        raise InputError(root / QA_DIR, None, "no QA files (*.json) in this folder")
    # Every response and schema file is kept, even those no record names, so that
    # an export rebuilds the folders whole.
    for p in sorted((root / RESPONSES_DIR).glob("*.json")):
        ctx.check_cancelled()
        ctx.progress(0, None, f"reading {folder.rel(p)}")
        folder.load_response_file(p)
    for p in sorted((root / SCHEMAS_DIR).glob("*.txt")):
        folder.load_schema_file(p)

    seen: dict[str, tuple[str, int, int]] = {}
    for qa_path in qa_paths:
        ctx.check_cancelled()
        rel = folder.rel(qa_path)
        ctx.progress(0, None, f"checking {rel}")
        text = read_text(qa_path)
        uids: list[str] = []
        for index, line, rec in iter_json_array(qa_path, text):
            qr = _check_qa_record(folder, qa_path, rel, index, line, rec, seen)
            folder.records.append(qr)
            uids.append(rec["uid"])
        folder.qa_files.append({"file": rel, "style": detect_style(text).to_dict(), "uids": uids})
    return folder


def _check_qa_record(folder: _Folder, qa_path: Path, rel: str, index: int, line: int, rec: Any, seen: dict) -> _QaRecord:
    expect(rec, dict, qa_path, [index], f"line {line}")
    if "uid" not in rec:
        raise InputError(qa_path, f"line {line}, {json_path([index])}", "missing field 'uid'")
    uid = expect(rec["uid"], str, qa_path, [index, "uid"], f"line {line}")
    where = f"line {line}, record {uid!r}"
    if uid in seen:
        f0, line0, i0 = seen[uid]
        raise InputError(qa_path, f"{where}, {json_path([index, 'uid'])}", f"duplicate uid {uid!r}: already used in {f0} at line {line0} ({json_path([i0])})")
    seen[uid] = (rel, line, index)
    for key in _QA_STRING_FIELDS:
        if key not in rec:
            raise InputError(qa_path, f"{where}, {json_path([index])}", f"missing field {key!r}")
        expect(rec[key], str, qa_path, [index, key], where)

    resp_ref = rec["api_response_path"]
    resp_path = folder.resolve(resp_ref, RESPONSES_DIR)
    if resp_path is None:
        raise InputError(qa_path, f"{where}, {json_path([index, 'api_response_path'])}", f"response file {resp_ref!r} not found in {folder.root}")
    rf = folder.load_response_file(resp_path)
    app, ep, query = rec["app"], rec["endpoint"], rec["api_query"]
    if app not in rf.tree:
        raise InputError(qa_path, f"{where}, {json_path([index, 'app'])}", f"app {app!r} not found in {rf.rel} (it has {_names(rf.tree)})")
    if ep not in rf.tree[app]:
        raise InputError(qa_path, f"{where}, {json_path([index, 'endpoint'])}", f"endpoint {ep!r} not found under app {app!r} in {rf.rel} (it has {_names(rf.tree[app])})")
    if query not in rf.tree[app][ep]:
        n = len(rf.tree[app][ep])
        raise InputError(qa_path, f"{where}, {json_path([index, 'api_query'])}", f"api_query {query!r} not found in {rf.rel} under [{app!r}][{ep!r}] ({n} queries there)")

    schema_ref = rec["api_response_schema"]
    schema_path = folder.resolve(schema_ref, SCHEMAS_DIR)
    if schema_path is None:
        raise InputError(qa_path, f"{where}, {json_path([index, 'api_response_schema'])}", f"schema file {schema_ref!r} not found in {folder.root}")
    folder.load_schema_file(schema_path)
    return _QaRecord(rec, rel, index, line, rf.rel, folder.rel(schema_path))


def _names(d: dict) -> str:
    names = list(d)
    shown = ", ".join(repr(n) for n in names[:5])
    return shown + (f" and {len(names) - 5} more" if len(names) > 5 else "") if names else "none"


def _item(folder: _Folder, qr: _QaRecord) -> ItemRecord:
    rec = qr.rec
    metrics = metrics_dict(rec.get("metrics")) or {}
    metric = metrics.get("exact_match_metric") or TASK_TYPE_METRICS.get(rec["task_type"])
    payload = {
        "task": rec["task"],
        "app": rec["app"],
        "endpoint": rec["endpoint"],
        "api_query": rec["api_query"],
        "exact_match_metric": metric,
    }
    if rec.get("gold_code") is not None:
        payload["gold_code"] = rec["gold_code"]
    return ItemRecord(
        record_id=rec["uid"],
        kind=ItemKind.TOOL_QA.value,
        gold=rec["gold_answer"],
        raw=rec,
        question=rec["question"],
        payload=payload,
        context=folder.responses[qr.response_rel].tree[rec["app"]][rec["endpoint"]][rec["api_query"]],
        schema=folder.schemas[qr.schema_rel],
        category=rec["task_type"],
        domain=rec["endpoint"],
        source_file=qr.rel,
        source_line=qr.line,
    )


def _iter_items(folder: _Folder, ctx: JobContext) -> Iterator[ItemRecord]:
    total = len(folder.records)
    for done, qr in enumerate(folder.records):
        if done % _PROGRESS_EVERY == 0:
            ctx.check_cancelled()
            ctx.progress(done, total, "reading QA records")
        yield _item(folder, qr)
    ctx.progress(total, total, "read QA records")


# --------------------------------------------------------------------------- writing


def _rebuild_responses(meta: dict, blobs: dict[str, str]) -> dict:
    doc: dict = {}
    for app in meta["apps"]:
        endpoints = doc.setdefault(app["app"], {})
        for ep in app["endpoints"]:
            queries = endpoints.setdefault(ep["endpoint"], {})
            for q in ep["queries"]:
                queries[q["query"]] = json.loads(_blob(blobs, q["blob"], meta["file"]))
    return doc


def _blob(blobs: dict[str, str], h: str, file: str) -> str:
    try:
        return blobs[h]
    except KeyError:
        raise ReviewerError(f"cannot rebuild {file}: its stored text {h[:12]}… is missing from the dataset") from None


def _safe_target(out: Path, rel: str) -> Path:
    target = out / rel
    if not target.resolve().is_relative_to(out.resolve()):
        raise ReviewerError(f"refusing to write {rel!r} outside {out}")
    return target


# --------------------------------------------------------------------------- formats


@dataset_format
class ToolJsonDataset:
    """The qa_pairs / api_responses / schemas folder of toolJSONprocessing."""

    name = "tooljson"
    label = "toolJSONprocessing QA pairs (folder)"
    kind = ItemKind.TOOL_QA.value

    def detect(self, path: Path) -> bool:
        root = find_root(Path(path))
        return root is not None and any((root / QA_DIR).glob("*.json"))

    def read(self, path: Path, ctx: JobContext) -> ParsedDataset:
        path = Path(path)
        root = find_root(path)
        if root is None:
            if not path.exists():
                raise InputError(path, None, "no such folder")
            raise InputError(path, None, f"not a toolJSONprocessing folder: expected a {QA_DIR}/ folder inside it")
        folder = _read_folder(root, ctx)
        blobs: dict[str, str] = {}
        for rf in folder.responses.values():
            for endpoints in rf.tree.values():
                for queries in endpoints.values():
                    for t in queries.values():
                        blobs[blob_hash(t)] = t
        for t in folder.schemas.values():
            blobs[blob_hash(t)] = t
        meta = {
            "qa_files": folder.qa_files,
            "response_files": [rf.meta() for rf in folder.responses.values()],
            "schema_files": [{"file": rel, "blob": blob_hash(t)} for rel, t in folder.schemas.items()],
        }
        dataset = DatasetRecord(
            name=root.name if root.name != "data" else root.parent.name or root.name,
            format=self.name,
            kind=self.kind,
            source=str(root),
            meta=meta,
            blobs=blobs,
        )
        return ParsedDataset(dataset, _iter_items(folder, ctx))

    def write(self, dataset: DatasetRecord, items: list[ExportItem], out: Path, ctx: JobContext) -> list[Path]:
        """Rebuild qa_pairs/, api_responses/ and schemas/ under ``out``.

        QA records keep their file and order; an item missing from ``items`` is
        left out of its file; an edited gold replaces ``gold_answer`` in place.
        """
        out = Path(out)
        meta = dataset.meta
        by_uid = {it.record_id: it for it in items}
        known = {uid for qf in meta["qa_files"] for uid in qf["uids"]}
        stray = [uid for uid in by_uid if uid not in known]
        if stray:
            raise ReviewerError(f"{len(stray)} item(s) are not in any QA file of this dataset (e.g. {stray[0]!r})")
        written: list[Path] = []
        steps = len(meta["qa_files"]) + len(meta["response_files"]) + len(meta["schema_files"])
        step = 0
        for qf in meta["qa_files"]:
            ctx.check_cancelled()
            records = []
            for uid in qf["uids"]:
                it = by_uid.get(uid)
                if it is None:
                    continue
                rec = dict(it.raw)
                if it.gold_edited:
                    rec["gold_answer"] = it.gold
                records.append(rec)
            written.append(write_json_file(_safe_target(out, qf["file"]), records, JsonStyle.from_dict(qf["style"])))
            step += 1
            ctx.progress(step, steps, f"wrote {qf['file']}")
        for rf in meta["response_files"]:
            ctx.check_cancelled()
            doc = _rebuild_responses(rf, dataset.blobs)
            written.append(write_json_file(_safe_target(out, rf["file"]), doc, JsonStyle.from_dict(rf["style"])))
            step += 1
            ctx.progress(step, steps, f"wrote {rf['file']}")
        for sf in meta["schema_files"]:
            target = _safe_target(out, sf["file"])
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(_blob(dataset.blobs, sf["blob"], sf["file"]), encoding="utf-8", newline="")
            written.append(target)
            step += 1
            ctx.progress(step, steps, f"wrote {sf['file']}")
        return written


@run_format
class ToolJsonPredictions:
    """A toolJSONprocessing prediction file: a JSON array, one record per uid (and setup)."""

    name = "tooljson-predictions"
    label = "toolJSONprocessing predictions (JSON array)"
    dataset_format = "tooljson"

    def detect(self, path: Path) -> bool:
        path = Path(path)
        if not (path.is_file() and path.suffix.lower() == ".json"):
            return False
        try:
            with path.open(encoding="utf-8-sig", errors="replace") as fh:  # a byte-order mark is not content
                head = fh.read(65536)
        except OSError:
            return False
        return head.lstrip().startswith("[") and '"setup_type"' in head and '"uid"' in head and '"predicted_answer"' in head

    def read(self, path: Path, ctx: JobContext) -> ParsedRun:
        """Outputs lazily; model and setup come from the first record and must not change."""
        path = Path(path)
        elements = iter_json_array(path)
        first = next(elements, None)
        model = setup = endpoint = None
        if first is not None:
            index, line, rec = first
            _check_prediction(path, index, line, rec)
            model, setup, endpoint = rec.get("model"), rec.get("setup_type"), rec.get("endpoint")
        # No endpoint in the run's meta: the official results are one file per endpoint, and
        # the files of one model and setup make one run (run_name), so a run spans endpoints;
        # each output's raw record keeps its own endpoint (and each item's payload its own).
        run = RunRecord(
            name=run_name(path.stem, endpoint),
            format=self.name,
            source=str(path),
            model=model,
            setup=setup,
        )
        return ParsedRun(run, _iter_outputs(path, first, elements, model, setup, ctx))


def run_name(stem: str, endpoint: Any) -> str:
    """The run a prediction file belongs to: ``{model}_{setup}`` of the official file name
    ``{endpoint}_{model}_{setup}_predictions`` (the endpoint as its first record names it),
    so the files of every endpoint of one model and setup import into one run. A name that
    does not follow that pattern is kept whole."""
    prefix, suffix = f"{endpoint}_", "_predictions"
    if isinstance(endpoint, str) and endpoint and stem.startswith(prefix) and stem.endswith(suffix):
        middle = stem[len(prefix) : -len(suffix)]
        if middle:
            return middle
    return stem


def _check_prediction(path: Path, index: int, line: int, rec: Any) -> str:
    expect(rec, dict, path, [index], f"line {line}")
    if "uid" not in rec:
        raise InputError(path, f"line {line}, {json_path([index])}", "missing field 'uid'")
    uid = expect(rec["uid"], str, path, [index, "uid"], f"line {line}")
    where = f"line {line}, record {uid!r}"
    # Only fields the app reads are type-checked. code_exec_status is whatever
    # the generated code returned (qa_inference.py stores it as is: a list, a
    # number, ...); it is kept as read.
    for key in ("model_output", "setup_type", "model"):
        expect(rec.get(key), (str, type(None)), path, [index, key], where)
    return uid


def _iter_outputs(path: Path, first, rest, model, setup, ctx: JobContext) -> Iterator[OutputRecord]:
    if first is None:
        return
    seen: dict[str, int] = {}
    for n, (index, line, rec) in enumerate(itertools.chain([first], rest)):
        if n % _PROGRESS_EVERY == 0:
            ctx.check_cancelled()
            ctx.progress(n, None, "reading predictions")
        uid = _check_prediction(path, index, line, rec)
        for key, expected in (("model", model), ("setup_type", setup)):
            if rec.get(key) != expected:
                raise InputError(
                    path,
                    f"line {line}, record {uid!r}, {json_path([index, key])}",
                    f"{key} {rec.get(key)!r} differs from the first record's {expected!r}; one file must hold one run",
                )
        # A uid seen again is another sample of the same item (a replication).
        replication = seen.get(uid, 0)
        seen[uid] = replication + 1
        yield OutputRecord(
            record_id=uid,
            text=rec.get("model_output"),
            raw=rec,
            prediction=rec.get("predicted_answer"),
            replication=replication,
            extra={
                "code_exec_status": rec.get("code_exec_status"),
                "setup_type": rec.get("setup_type"),
                "metrics": rec.get("metrics"),
            },
            source_line=line,
        )
