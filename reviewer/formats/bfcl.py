"""BFCL v3 (Berkeley Function Calling Leaderboard) question files and their possible answers.

A category is one question file ``BFCL_v3_<category>.json`` (JSON Lines despite
the suffix): ``{id, question, function}``, with its possible answers in
``possible_answer/BFCL_v3_<category>.json`` beside it: ``{id, ground_truth}``,
one line per question, same order. ``read`` takes one question file or a
folder of them (one dataset, every item tagged with its category).

Items: record_id = id, question = first user message, category = the file's
category, gold = ``ground_truth`` (for single-turn categories a list of
``{function_name: {parameter: [acceptable values]}}``, one per expected call),
payload = {"messages": list of turns, each a list of messages,
"functions": the function list, "source_file": the question file name}.

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

from collections.abc import Iterator
from pathlib import Path
from typing import Any

from reviewer.errors import InputError
from reviewer.formats._jsonio import expect, iter_jsonl
from reviewer.formats._jsonlfiles import PROGRESS_EVERY, UniqueIds, at, first_record, write_jsonl
from reviewer.formats.base import DatasetRecord, ExportItem, ItemRecord, ParsedDataset
from reviewer.formats.registry import dataset_format
from reviewer.jobs import JobContext
from reviewer.kinds import ItemKind

PREFIX = "BFCL_v3_"
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
}

GOLD_FROM_ANSWERS, GOLD_INLINE, GOLD_NONE = "possible_answer", "inline", "none"


def category_of(file: Path) -> str:
    """``BFCL_v3_simple.json`` → ``simple`` (the stem for other names)."""
    stem = Path(file).stem
    return stem[len(PREFIX):] if stem.startswith(PREFIX) else stem


def question_files(path: Path) -> list[Path]:
    """The question files to import from a file or folder; InputError when there are none."""
    path = Path(path)
    if path.is_dir():
        files = sorted(p for p in path.glob(f"{PREFIX}*.json") if p.is_file())
        if not files:
            raise InputError(path, None, f"no {PREFIX}<category>.json question files in this folder")
        return files
    if not path.is_file():
        raise InputError(path, None, "file not found")
    if path.parent.name == ANSWER_DIR:
        raise InputError(path, None, f"this is a possible-answer file; import the question file ../{path.name}")
    return [path]


def check_gold(gold: Any, path: Path | str, where: str | None, parts: list, gold_source: str) -> list:
    """Check a gold list's shape: call objects or per-turn lists (answers), strings (inline)."""
    expect(gold, list, path, parts, where)
    entry_types = (str,) if gold_source == GOLD_INLINE else (dict, list)
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
        self.category = category_of(file)
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
        gold = check_gold(ans["ground_truth"], self.answers, f"line {aline}", ["ground_truth"], GOLD_FROM_ANSWERS)
        return gold, {k: v for k, v in ans.items() if k not in ("id", "ground_truth")}

    def items(self, seen: UniqueIds) -> Iterator[ItemRecord]:
        for line, record_id, rec, gold, extras in self.records():
            seen.add(record_id, line, ["id"])
            turns = _messages(rec.get("question"), self.file, line)
            payload: dict[str, Any] = {"messages": turns, "functions": self._functions(rec, line), "source_file": self.file.name}
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


def _items(readers: list[_CategoryReader], ctx: JobContext) -> Iterator[ItemRecord]:
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
    label = "BFCL v3 (BFCL_v3_<category>.json + possible_answer/)"
    kind = ItemKind.FUNCTION_CALL.value

    def detect(self, path: Path) -> bool:
        path = Path(path)
        if path.is_dir():
            return any(path.glob(f"{PREFIX}*.json"))
        return path.name.startswith(PREFIX) and path.suffix == ".json" and path.parent.name != ANSWER_DIR

    def read(self, path: Path, ctx: JobContext) -> ParsedDataset:
        """Companion files are checked now; records are parsed while ``items`` is iterated."""
        path = Path(path)
        readers = [_CategoryReader(f) for f in question_files(path)]
        name = path.resolve().name if path.is_dir() else f"BFCL v3 {readers[0].category}"
        dataset = DatasetRecord(
            name=name,
            format=self.name,
            kind=self.kind,
            source=str(path),
            meta={"files": [r.file_meta() for r in readers]},
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
    questions, answers = [], []
    for item in items:
        rec = item.raw
        if item.gold_edited:
            check_gold(item.gold, f"record {item.record_id!r}", None, ["ground_truth"], source)
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

