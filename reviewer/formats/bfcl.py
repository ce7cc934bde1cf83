"""BFCL (Berkeley Function Calling Leaderboard) v3 and v4 question files and their possible answers.

A category is one question file ``BFCL_v<N>_<category>.json`` (JSON Lines
despite the suffix): ``{id, question, function}``, with its possible answers in
``possible_answer/BFCL_v<N>_<category>.json`` beside it: ``{id, ground_truth}``,
one line per question, same order. ``read`` takes one question file or a
folder of them (one dataset, every item tagged with its category), such as
bfcl-eval's own ``bfcl_eval/data`` folder.

Items: record_id = id, question = first user message, category = the file's
category WITHOUT the version ("simple_python", not "BFCL_v4_simple_python";
the version is in the dataset meta of each file and in ``payload["bfcl_version"]``),
gold = ``ground_truth`` (for single-turn categories a list of
``{function_name: {parameter: [acceptable values]}}``, one per expected call;
for v4 memory and web_search the list of accepted answer strings),
payload = {"messages": list of turns, each a list of messages,
"functions": the function list, "source_file": the question file name}.

v4 additions:
- ``BFCL_v4_format_sensitivity.json`` is one JSON object ``{category: [ids]}``
  naming questions of other categories (bfcl-eval asks each of them under 26
  prompt formats). Each id becomes an item ``format_sensitivity:<id>`` carrying
  that question, its functions and its possible answers when its category file
  is in the same folder (else gold = [] and a note); writing gives the object back;
- memory (``involved_classes: ["MemoryAPI"]``) and web_search
  (``["WebSearchAPI"]``) take their functions from ``multi_turn_func_doc/``
  (memory: the key-value backend's, one of the three bfcl-eval runs; noted).

Categories read differently (limits, stated so nobody is surprised):
- no possible answers (irrelevance, live_irrelevance, live_relevance, chatable,
  rest): gold = [] and ``payload["gold_note"]`` says why;
- exec_*: the ground truth is inline in the question record (call strings such
  as ``"f(x=1)"``) and is the gold; an edit replaces it there;
- multi_turn_*: ``question`` is a list of turns (a turn may be empty where a
  missing function is added), gold is the list of call strings per turn; the
  functions come from ``multi_turn_func_doc/`` for the record's involved
  classes when that folder is beside the file (else [] and a note); the
  initial state (``initial_config``) and ``missed_function`` stay in ``raw``;
- chatable: records have no id (record_id = "chatable_<n>", n counted from 0)
  and a plain-string question.

``write`` gives every question file back, and every possible-answer file the
import read; with no edits each line is JSON value-equal to the original.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from reviewer.errors import InputError, json_path
from reviewer.formats._jsonio import expect, iter_jsonl
from reviewer.formats._jsonlfiles import PROGRESS_EVERY, UniqueIds, at, first_record, write_jsonl
from reviewer.formats.base import DatasetRecord, ExportItem, ItemRecord, ParsedDataset
from reviewer.formats.registry import dataset_format
from reviewer.jobs import JobContext
from reviewer.kinds import ItemKind

PREFIX = "BFCL_v3_"  # the v3 prefix, assumed where a file's version cannot be told
FILE_NAME = re.compile(r"^BFCL_v(\d+)_(.+)\.json$")
GLOB = "BFCL_v*_*.json"
ANSWER_DIR = "possible_answer"
FUNC_DOC_DIR = "multi_turn_func_doc"

# Categories BFCL scores without possible answers, and why.
NO_ANSWER_NOTES = {
    "irrelevance": "no possible answers: the right behaviour is to call none of the functions",
    "live_irrelevance": "no possible answers: the right behaviour is to call none of the functions",
    "live_relevance": "no possible answers: BFCL only checks that some function is called",
    "chatable": "no possible answers: a chat category answered in plain text",
    "rest": "no possible answers: BFCL scores REST items by executing the calls against live APIs",
}

# multi_turn_* records name classes; their function docs are one file per class.
MULTI_TURN_DOCS = {
    "GorillaFileSystem": "gorilla_file_system.json",
    "MathAPI": "math_api.json",
    "MessageAPI": "message_api.json",
    "TwitterAPI": "posting_api.json",
    "TicketAPI": "ticket_api.json",
    "TradingBot": "trading_bot.json",
    "TravelAPI": "travel_booking.json",
    "VehicleControlAPI": "vehicle_control.json",
    "WebSearchAPI": "web_search.json",
    "MemoryAPI": "memory_kv.json",  # bfcl-eval runs memory with three backends: kv, vector, rec_sum
}
FORMAT_SENSITIVITY = "format_sensitivity"
AGENTIC_CATEGORIES = ("memory", "web_search")  # ground truth: accepted answer strings

GOLD_FROM_ANSWERS, GOLD_INLINE, GOLD_NONE = "possible_answer", "inline", "none"
GOLD_REFERENCED = "referenced"  # format_sensitivity: the gold of the questions it names


def split_name(file: Path) -> tuple[str | None, str]:
    """``BFCL_v4_simple_python.json`` → ``("v4", "simple_python")``; (None, stem) for other names."""
    match = FILE_NAME.match(Path(file).name)
    if match:
        return f"v{match.group(1)}", match.group(2)
    return None, Path(file).stem


def category_of(file: Path) -> str:
    """``BFCL_v3_simple.json`` → ``simple``, ``BFCL_v4_simple_python.json`` → ``simple_python``."""
    return split_name(file)[1]


def is_question_file(path: Path) -> bool:
    return bool(FILE_NAME.match(path.name)) and path.parent.name != ANSWER_DIR


def question_files(path: Path) -> list[Path]:
    """The question files to import from a file or folder; InputError when there are none."""
    path = Path(path)
    if path.is_dir():
        if path.name == ANSWER_DIR:
            raise InputError(path, None, "this is the possible-answer folder; import the folder above it")
        files = sorted(p for p in path.glob(GLOB) if p.is_file() and FILE_NAME.match(p.name))
        if not files:
            raise InputError(path, None, "no BFCL_v<N>_<category>.json question files in this folder")
        return files
    if not path.is_file():
        raise InputError(path, None, "file not found")
    if path.parent.name == ANSWER_DIR:
        raise InputError(path, None, f"this is a possible-answer file; import the question file ../{path.name}")
    return [path]


def check_gold(gold: Any, path: Path | str, where: str | None, parts: list, gold_source: str, category: str = "") -> list:
    """Check a gold list's shape: call objects or per-turn lists (answers), strings (inline, agentic)."""
    expect(gold, list, path, parts, where)
    if gold_source == GOLD_INLINE or category.startswith(AGENTIC_CATEGORIES):
        entry_types: tuple = (str,)
    else:
        entry_types = (dict, list)
    for i, entry in enumerate(gold):
        expect(entry, entry_types, path, parts + [i], where)
        if isinstance(entry, list):
            for j, call in enumerate(entry):
                expect(call, str, path, parts + [i, j], where)
    return gold


def _messages(question: Any, path: Path, line: int) -> list:
    """The question as a list of turns, each a list of ``{role, content}`` messages."""
    where = f"line {line}"
    if isinstance(question, str):  # chatable: one plain user message
        return [[{"role": "user", "content": question}]]
    expect(question, list, path, ["question"], where)
    turns = question if question and all(isinstance(t, list) for t in question) else [question]  # sql: one bare turn
    for i, turn in enumerate(turns):
        tp = ["question", i] if turns is question else ["question"]
        expect(turn, list, path, tp, where)
        for j, msg in enumerate(turn):
            expect(msg, dict, path, tp + [j], where)
            expect(msg.get("role"), str, path, tp + [j, "role"], where)
            expect(msg.get("content"), str, path, tp + [j, "content"], where)
    return turns


def _first_user_text(turns: list) -> str | None:
    for turn in turns:
        for msg in turn:
            if msg.get("role") == "user":
                return msg["content"]
    return None


class _FuncDocs:
    """Function docs of the multi-turn classes, loaded once per class on first use."""

    def __init__(self, folder: Path):
        self.folder = folder
        self.loaded: dict[str, list] = {}

    def available(self) -> bool:
        return self.folder.is_dir()

    def functions(self, classes: list, path: Path, line: int) -> list:
        out = []
        for i, cls in enumerate(classes):
            expect(cls, str, path, ["involved_classes", i], f"line {line}")
            if cls not in self.loaded:
                doc = self.folder / MULTI_TURN_DOCS.get(cls, f"{cls}.json")
                if not doc.is_file():
                    raise InputError(path, at(line, ["involved_classes", i]), f"no function doc for class {cls!r} ({doc} not found)")
                self.loaded[cls] = [fn for _, fn in iter_jsonl(doc)]
            out.extend(self.loaded[cls])
        return out


class _CategoryReader:
    """Reads one question file with its possible answers, in step."""

    def __init__(self, file: Path):
        self.file = file
        self.version, self.category = split_name(file)
        answers = file.parent / ANSWER_DIR / file.name
        self.answers = answers if answers.is_file() else None
        self.func_docs = _FuncDocs(file.parent / FUNC_DOC_DIR)
        if self.answers is not None:
            self.gold_source = GOLD_FROM_ANSWERS
        elif self.category in NO_ANSWER_NOTES:
            self.gold_source = GOLD_NONE
        elif isinstance(first := first_record(file), dict) and "ground_truth" in first:
            self.gold_source = GOLD_INLINE
        else:
            raise InputError(
                file, None,
                f"companion file {ANSWER_DIR}/{file.name} not found beside it; category {self.category!r} needs possible answers",
            )

    def file_meta(self) -> dict:
        return {
            "question_file": self.file.name,
            "answer_file": f"{ANSWER_DIR}/{self.file.name}" if self.answers else None,
            "category": self.category,
            "version": self.version,
            "gold_source": self.gold_source,
        }

    def records(self) -> Iterator[tuple[int, str, dict, list, dict]]:
        """``(line, record_id, question record, gold, answer extras)`` per question."""
        answers = iter_jsonl(self.answers) if self.answers else None
        for index, (line, rec) in enumerate(iter_jsonl(self.file)):
            expect(rec, dict, self.file, [], f"line {line}")
            if "id" in rec:
                record_id = expect(rec["id"], str, self.file, ["id"], f"line {line}")
            elif self.gold_source == GOLD_NONE:
                record_id = f"{self.category}_{index}"
            else:
                raise InputError(self.file, at(line, ["id"]), "missing: every question needs an id to pair it with its possible answer")
            gold, extras = self._gold(rec, record_id, line, answers)
            yield line, record_id, rec, gold, extras
        if answers is not None:
            left = next(answers, None)
            if left is not None:
                raise InputError(self.answers, at(left[0]), f"has more records than {self.file.name} (which ends before this line)")

    def _gold(self, rec: dict, record_id: str, line: int, answers) -> tuple[list, dict]:
        if self.gold_source == GOLD_NONE:
            return [], {}
        if self.gold_source == GOLD_INLINE:
            if "ground_truth" not in rec:
                raise InputError(self.file, at(line, ["ground_truth"]), "missing: this category keeps its ground truth inline")
            return check_gold(rec["ground_truth"], self.file, f"line {line}", ["ground_truth"], GOLD_INLINE), {}
        pair = next(answers, None)
        if pair is None:
            raise InputError(self.answers, None, f"has fewer records than {self.file.name}: none for id {record_id!r} ({self.file.name} line {line})")
        aline, ans = pair
        expect(ans, dict, self.answers, [], f"line {aline}")
        if ans.get("id") != record_id:
            raise InputError(
                self.answers, at(aline, ["id"]),
                f"id {ans.get('id')!r} where {self.file.name} line {line} has {record_id!r} (the two files must list the items in the same order)",
            )
        if "ground_truth" not in ans:
            raise InputError(self.answers, at(aline, ["ground_truth"]), "missing: expected the list of possible answers")
        gold = check_gold(ans["ground_truth"], self.answers, f"line {aline}", ["ground_truth"], GOLD_FROM_ANSWERS, self.category)
        return gold, {k: v for k, v in ans.items() if k not in ("id", "ground_truth")}

    def items(self, seen: UniqueIds) -> Iterator[ItemRecord]:
        for line, record_id, rec, gold, extras in self.records():
            seen.add(record_id, line, ["id"])
            turns = _messages(rec.get("question"), self.file, line)
            payload: dict[str, Any] = {"messages": turns, "functions": self._functions(rec, line), "source_file": self.file.name}
            if self.version:
                payload["bfcl_version"] = self.version
            if "MemoryAPI" in (rec.get("involved_classes") or []):
                payload["functions_note"] = "the memory functions shown are the key-value backend's; bfcl-eval also runs vector and rec_sum"
            if self.gold_source == GOLD_NONE:
                payload["gold_note"] = NO_ANSWER_NOTES.get(self.category, "no possible answers in this category")
            if "involved_classes" in rec and not self.func_docs.available():
                payload["functions_note"] = f"{FUNC_DOC_DIR}/ not found beside the file: the multi-turn functions are missing"
            if extras:
                payload["answer_extra"] = extras
            yield ItemRecord(
                record_id=record_id,
                kind=ItemKind.FUNCTION_CALL.value,
                gold=gold,
                raw=rec,
                question=_first_user_text(turns),
                payload=payload,
                category=self.category,
                source_file=str(self.file),
                source_line=line,
            )

    def _functions(self, rec: dict, line: int) -> list:
        fns = rec.get("function")
        if fns is None and "involved_classes" in rec:
            classes = expect(rec["involved_classes"], list, self.file, ["involved_classes"], f"line {line}")
            return self.func_docs.functions(classes, self.file, line) if self.func_docs.available() else []
        if fns is None or fns == "":  # chatable has "function": ""
            return []
        expect(fns, list, self.file, ["function"], f"line {line}")
        for i, fn in enumerate(fns):
            expect(fn, dict, self.file, ["function", i], f"line {line}")
            expect(fn.get("name"), str, self.file, ["function", i, "name"], f"line {line}")
        return fns


class _FormatSensitivityReader:
    """``BFCL_v4_format_sensitivity.json``: ``{category: [question ids]}``, one JSON object.

    Each id becomes an item ``format_sensitivity:<id>`` holding that question,
    its functions and possible answers, read from the category's files in the
    same folder; when they are absent the item keeps the reference only.
    """

    def __init__(self, file: Path):
        self.file = file
        self.version, self.category = split_name(file)
        self.gold_source = GOLD_REFERENCED
        try:
            text = file.read_text(encoding="utf-8")
        except UnicodeDecodeError as exc:
            raise InputError(file, None, f"not UTF-8 text ({exc.reason} at byte {exc.start})") from None
        try:
            self.index = json.loads(text)
        except json.JSONDecodeError as exc:
            raise InputError(file, at(exc.lineno), f"not valid JSON: {exc.msg}") from None
        expect(self.index, dict, file, [], None)
        for category, ids in self.index.items():
            expect(ids, list, file, [category], None)
            for i, record_id in enumerate(ids):
                expect(record_id, str, file, [category, i], None)

    def file_meta(self) -> dict:
        return {"question_file": self.file.name, "answer_file": None, "category": self.category,
                "version": self.version, "gold_source": self.gold_source}

    def _referenced(self, category: str) -> dict[str, tuple]:
        """``{id: (record, gold, functions)}`` of one referenced category, {} when its file is absent."""
        name = f"BFCL_{self.version}_{category}.json" if self.version else f"{PREFIX}{category}.json"
        qfile = self.file.parent / name
        if not qfile.is_file():
            return {}
        reader = _CategoryReader(qfile)
        out = {}
        for line, record_id, rec, gold, _extras in reader.records():
            out[record_id] = (gold, reader._functions(rec, line), _messages(rec.get("question"), qfile, line))
        return out

    def items(self, seen: UniqueIds) -> Iterator[ItemRecord]:
        ids_seen: set[str] = set()
        for category, ids in self.index.items():
            found = self._referenced(category)
            for i, original in enumerate(ids):
                record_id = f"{FORMAT_SENSITIVITY}:{original}"
                if record_id in ids_seen:
                    raise InputError(self.file, json_path([category, i]), f"duplicate id {original!r}")
                ids_seen.add(record_id)
                payload: dict[str, Any] = {
                    "source_file": self.file.name, "original_id": original, "original_category": category,
                    "bfcl_version": self.version,
                }
                if original in found:
                    gold, functions, turns = found[original]
                    payload.update(messages=turns, functions=functions)
                    question = _first_user_text(turns)
                else:
                    gold, question = [], None
                    payload.update(messages=[], functions=[],
                                   gold_note=f"question {original!r} not found: BFCL_{self.version}_{category}.json is not beside this file")
                yield ItemRecord(
                    record_id=record_id,
                    kind=ItemKind.FUNCTION_CALL.value,
                    gold=gold,
                    raw={"category": category, "id": original},
                    question=question,
                    payload=payload,
                    category=self.category,
                    source_file=str(self.file),
                    source_line=None,
                )


def _reader(file: Path):
    if category_of(file) == FORMAT_SENSITIVITY:
        return _FormatSensitivityReader(file)
    return _CategoryReader(file)


def _write_format_sensitivity(meta: dict, items: list[ExportItem], out: Path) -> Path:
    """The ``{category: [ids]}`` object back, in item order (gold edits live in the referenced categories)."""
    index: dict[str, list] = {}
    for item in items:
        index.setdefault(item.raw["category"], []).append(item.raw["id"])
    target = out / meta["question_file"]
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = target.with_name(target.name + ".tmp")
    tmp.write_text(json.dumps(index, indent=4, ensure_ascii=False) + "\n", encoding="utf-8")
    tmp.replace(target)
    return target


def _items(readers: list, ctx: JobContext) -> Iterator[ItemRecord]:
    seen = UniqueIds(readers[0].file, "id")
    count = 0
    for reader in readers:
        seen.path = reader.file
        for item in reader.items(seen):
            ctx.check_cancelled()
            yield item
            count += 1
            if count % PROGRESS_EVERY == 0:
                ctx.progress(count, None, f"{count} BFCL items read")
    ctx.progress(count, count, f"{count} BFCL items read")


@dataset_format
class BfclFormat:
    name = "bfcl"
    label = "BFCL v3/v4 (BFCL_v<N>_<category>.json + possible_answer/)"
    kind = ItemKind.FUNCTION_CALL.value

    def detect(self, path: Path) -> bool:
        path = Path(path)
        if path.is_dir():
            return path.name != ANSWER_DIR and any(FILE_NAME.match(p.name) for p in path.glob(GLOB))
        return is_question_file(path)

    def read(self, path: Path, ctx: JobContext) -> ParsedDataset:
        """Companion files are checked now; records are parsed while ``items`` is iterated."""
        path = Path(path)
        readers = [_reader(f) for f in question_files(path)]
        first = readers[0]
        name = path.resolve().name if path.is_dir() else f"BFCL {first.version or ''} {first.category}".replace("  ", " ")
        versions = sorted({r.version for r in readers if r.version})
        dataset = DatasetRecord(
            name=name,
            format=self.name,
            kind=self.kind,
            source=str(path),
            meta={"files": [r.file_meta() for r in readers], "bfcl_versions": versions},
        )
        return ParsedDataset(dataset, _items(readers, ctx))

    def write(self, dataset: DatasetRecord, items: list[ExportItem], out: Path, ctx: JobContext) -> list[Path]:
        """Each category's question file, and its possible-answer file when it had one.

        A category imported without answers gets a possible-answer file only
        when someone gave one of its items a gold.
        """
        out = Path(out)
        by_file: dict[str, list[ExportItem]] = {}
        for item in items:
            by_file.setdefault(item.payload.get("source_file", ""), []).append(item)
        files_meta = dataset.meta.get("files") or []
        unknown = set(by_file) - {f["question_file"] for f in files_meta}
        if unknown:
            raise InputError(None, None, f"items from files this dataset did not import: {', '.join(sorted(unknown))}")
        written = []
        for meta in files_meta:
            ctx.check_cancelled()
            group = by_file.get(meta["question_file"], [])
            written.extend(_write_category(meta, group, out))
            ctx.progress(len(written), None, f"wrote {meta['question_file']}")
        return written


def _write_category(meta: dict, items: list[ExportItem], out: Path) -> list[Path]:
    source = meta["gold_source"]
    if source == GOLD_REFERENCED:
        return [_write_format_sensitivity(meta, items, out)]
    questions, answers = [], []
    for item in items:
        rec = item.raw
        if item.gold_edited:
            check_gold(item.gold, f"record {item.record_id!r}", None, ["ground_truth"], source, meta.get("category", ""))
        if source == GOLD_INLINE and item.gold_edited:
            rec = dict(rec)
            rec["ground_truth"] = item.gold
        questions.append(rec)
        answers.append({"id": item.record_id, "ground_truth": item.gold, **item.payload.get("answer_extra", {})})
    files = [write_jsonl(out / meta["question_file"], questions)]
    wants_answers = source == GOLD_FROM_ANSWERS or (source == GOLD_NONE and any(i.gold_edited for i in items))
    if wants_answers:
        files.append(write_jsonl(out / ANSWER_DIR / meta["question_file"], answers))
    return files

