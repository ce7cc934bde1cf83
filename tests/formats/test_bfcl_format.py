"""BFCL v3 question files with possible answers: import, write back, limits and errors."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from reviewer.errors import InputError
from reviewer.formats.base import ExportItem
from reviewer.formats.bfcl import BfclFormat
from reviewer.formats.registry import find_dataset_format
from reviewer.jobs import silent
from reviewer.samples import DATA_DIR

ROOT = Path(__file__).resolve().parents[2]
REFDATA = ROOT.parent / "shared" / "refdata" / "SchemaReinforcementLearning" / "schemabench" / "berkeley-function-call-leaderboard" / "data"
FMT = BfclFormat()

ADD = {"name": "math.add", "description": "Add two numbers.",
       "parameters": {"type": "dict", "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}}, "required": ["a", "b"]}}


def q(text):
    return [[{"role": "user", "content": text}]]


SIMPLE = [
    ({"id": "simple_0", "question": q("Add 1 and 2."), "function": [ADD]}, [{"math.add": {"a": [1], "b": [2]}}]),
    ({"id": "simple_1", "question": q("Add 3 and 4."), "function": [ADD]}, [{"math.add": {"a": [3], "b": [4]}}]),
]
PARALLEL = [
    ({"id": "parallel_0", "question": q("Add 1+2 and 5+6."), "function": [ADD]},
     [{"math.add": {"a": [1], "b": [2]}}, {"math.add": {"a": [5], "b": [6]}}]),
]


def write_lines(path: Path, rows) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join((r if isinstance(r, str) else json.dumps(r)) + "\n" for r in rows), encoding="utf-8")
    return path


def make_category(folder: Path, category: str, pairs, answers=True) -> Path:
    qfile = write_lines(folder / f"BFCL_v3_{category}.json", [rec for rec, _ in pairs])
    if answers:
        write_lines(folder / "possible_answer" / qfile.name, [{"id": rec["id"], "ground_truth": g} for rec, g in pairs])
    return qfile


def read_items(path: Path):
    return list(FMT.read(path, silent()).items)


def jsonl_values(path: Path) -> list:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def export_items(items, gold_for=None):
    gold_for = gold_for or {}
    return [ExportItem(i.record_id, i.raw, gold_for.get(i.record_id, i.gold), i.gold, payload=i.payload) for i in items]


def error_of(path: Path) -> str:
    with pytest.raises(InputError) as exc:
        read_items(path)
    return str(exc.value)


def test_question_file_with_possible_answers(tmp_path):
    items = read_items(make_category(tmp_path, "simple", SIMPLE))
    assert [i.record_id for i in items] == ["simple_0", "simple_1"]
    first = items[0]
    assert first.kind == "function_call" and first.category == "simple"
    assert first.question == "Add 1 and 2."
    assert first.gold == [{"math.add": {"a": [1], "b": [2]}}]
    assert first.payload["messages"] == q("Add 1 and 2.")
    assert first.payload["functions"] == [ADD]
    assert FMT.detect(tmp_path / "BFCL_v3_simple.json")
    assert not FMT.detect(tmp_path / "possible_answer" / "BFCL_v3_simple.json")


def test_folder_reads_every_category_and_round_trips(tmp_path):
    src = tmp_path / "src"
    make_category(src, "simple", SIMPLE)
    make_category(src, "parallel", PARALLEL)
    make_category(src, "irrelevance", [({"id": "irrelevance_0", "question": q("Sing."), "function": [ADD]}, None)], answers=False)
    parsed = FMT.read(src, silent())
    items = list(parsed.items)
    assert [(i.record_id, i.category, len(i.gold)) for i in items] == [
        ("irrelevance_0", "irrelevance", 0), ("parallel_0", "parallel", 2), ("simple_0", "simple", 1), ("simple_1", "simple", 1)]
    assert "call none of the functions" in items[0].payload["gold_note"]

    out = tmp_path / "out"
    files = FMT.write(parsed.dataset, export_items(items), out, silent())
    assert sorted(str(f.relative_to(out)) for f in files) == sorted(
        str(p.relative_to(src)) for p in src.rglob("*.json"))
    for f in files:
        assert jsonl_values(f) == jsonl_values(src / f.relative_to(out))


def test_edited_gold_replaces_ground_truth_in_place(tmp_path):
    src = make_category(tmp_path / "src", "simple", SIMPLE)
    parsed = FMT.read(src, silent())
    items = list(parsed.items)
    new = [{"math.add": {"a": [1, 1.0], "b": [2]}}]
    FMT.write(parsed.dataset, export_items(items, {"simple_0": new}), tmp_path / "out", silent())
    answers = jsonl_values(tmp_path / "out" / "possible_answer" / "BFCL_v3_simple.json")
    assert answers == [{"id": "simple_0", "ground_truth": new}, {"id": "simple_1", "ground_truth": SIMPLE[1][1]}]
    assert jsonl_values(tmp_path / "out" / "BFCL_v3_simple.json") == jsonl_values(src)


def test_gold_given_to_an_answerless_category_gets_a_possible_answer_file(tmp_path):
    src = make_category(tmp_path / "src", "irrelevance", [({"id": "irrelevance_0", "question": q("x"), "function": [ADD]}, None)], answers=False)
    parsed = FMT.read(src, silent())
    items = list(parsed.items)
    FMT.write(parsed.dataset, export_items(items), tmp_path / "a", silent())
    assert not (tmp_path / "a" / "possible_answer").exists()
    gold = [{"math.add": {"a": [0], "b": [0]}}]
    FMT.write(parsed.dataset, export_items(items, {"irrelevance_0": gold}), tmp_path / "b", silent())
    assert jsonl_values(tmp_path / "b" / "possible_answer" / "BFCL_v3_irrelevance.json") == [{"id": "irrelevance_0", "ground_truth": gold}]


def test_exec_category_keeps_its_inline_ground_truth(tmp_path):
    rec = {"id": "exec_simple_0", "question": q("Add 1 and 2."), "function": [ADD],
           "execution_result_type": ["exact_match"], "ground_truth": ["math.add(a=1, b=2)"]}
    src = write_lines(tmp_path / "src" / "BFCL_v3_exec_simple.json", [rec])
    parsed = FMT.read(src, silent())
    items = list(parsed.items)
    assert items[0].gold == ["math.add(a=1, b=2)"]
    FMT.write(parsed.dataset, export_items(items, {"exec_simple_0": ["math.add(a=2, b=1)"]}), tmp_path / "out", silent())
    written = jsonl_values(tmp_path / "out" / "BFCL_v3_exec_simple.json")
    assert written == [{**rec, "ground_truth": ["math.add(a=2, b=1)"]}]
    assert not (tmp_path / "out" / "possible_answer").exists()


def test_multi_turn_reads_turns_and_function_docs(tmp_path):
    rec = {"id": "multi_turn_base_0",
           "question": [[{"role": "user", "content": "List files."}], [], [{"role": "user", "content": "Now sort."}]],
           "initial_config": {"GorillaFileSystem": {}}, "path": ["GorillaFileSystem.ls"], "involved_classes": ["GorillaFileSystem"]}
    gold = [["ls()"], [], ["sort('a.txt')"]]
    src = make_category(tmp_path, "multi_turn_base", [(rec, gold)])
    write_lines(tmp_path / "multi_turn_func_doc" / "gorilla_file_system.json", [{"name": "ls", "description": "List."}])
    item = read_items(src)[0]
    assert item.question == "List files."
    assert len(item.payload["messages"]) == 3
    assert item.gold == gold
    assert item.payload["functions"] == [{"name": "ls", "description": "List."}]


def test_multi_turn_without_function_docs_says_so(tmp_path):
    rec = {"id": "multi_turn_base_0", "question": [[{"role": "user", "content": "ls"}]], "involved_classes": ["GorillaFileSystem"]}
    item = read_items(make_category(tmp_path, "multi_turn_base", [(rec, [["ls()"]])]))[0]
    assert item.payload["functions"] == []
    assert "multi_turn_func_doc" in item.payload["functions_note"]


def test_chatable_records_without_ids_get_ids_from_their_position(tmp_path):
    src = write_lines(tmp_path / "BFCL_v3_chatable.json", [{"question": "Hello?", "function": ""}, {"question": "Hi.", "function": ""}])
    items = read_items(src)
    assert [(i.record_id, i.question, i.gold, i.payload["functions"]) for i in items] == [
        ("chatable_0", "Hello?", [], []), ("chatable_1", "Hi.", [], [])]


def test_sql_question_is_a_single_bare_turn(tmp_path):
    rec = {"id": "sql_0", "question": [{"role": "user", "content": "Select all."}], "function": [ADD]}
    item = read_items(make_category(tmp_path, "sql", [(rec, [{"sql.execute": {"sql_keyword": ["SELECT"]}}])]))[0]
    assert item.payload["messages"] == [[{"role": "user", "content": "Select all."}]]
    assert item.question == "Select all."


# ---- errors --------------------------------------------------------------------------------


def test_missing_possible_answer_file(tmp_path):
    src = make_category(tmp_path, "simple", SIMPLE, answers=False)
    with pytest.raises(InputError, match=r"BFCL_v3_simple\.json: companion file possible_answer/BFCL_v3_simple\.json not found"):
        FMT.read(src, silent())


def test_truncated_question_line(tmp_path):
    src = make_category(tmp_path, "simple", SIMPLE)
    text = src.read_text().splitlines()
    src.write_text(text[0] + "\n" + text[1][:30] + "\n")
    msg = error_of(src)
    assert "BFCL_v3_simple.json: line 2" in msg and "truncated" in msg


def test_wrong_type_in_question(tmp_path):
    bad = [({"id": "simple_0", "question": [[{"role": "user", "content": 5}]], "function": [ADD]}, [])]
    msg = error_of(make_category(tmp_path, "simple", bad))
    assert "line 1, $.question[0][0].content: expected a string, got an integer" in msg


def test_wrong_type_in_possible_answer(tmp_path):
    src = make_category(tmp_path, "simple", SIMPLE)
    write_lines(tmp_path / "possible_answer" / src.name, [{"id": "simple_0", "ground_truth": [{"math.add": {}}]},
                                                           {"id": "simple_1", "ground_truth": "math.add(3, 4)"}])
    msg = error_of(src)
    assert "possible_answer/BFCL_v3_simple.json: line 2, $.ground_truth: expected an array, got a string" in msg


def test_answers_out_of_order(tmp_path):
    src = make_category(tmp_path, "simple", SIMPLE)
    write_lines(tmp_path / "possible_answer" / src.name, [{"id": "simple_1", "ground_truth": []}, {"id": "simple_0", "ground_truth": []}])
    msg = error_of(src)
    assert "line 1, $.id: id 'simple_1' where BFCL_v3_simple.json line 1 has 'simple_0'" in msg


def test_answers_fewer_or_more_than_questions(tmp_path):
    src = make_category(tmp_path, "simple", SIMPLE)
    answers = tmp_path / "possible_answer" / src.name
    write_lines(answers, [{"id": "simple_0", "ground_truth": []}])
    assert "has fewer records than BFCL_v3_simple.json: none for id 'simple_1'" in error_of(src)
    write_lines(answers, [{"id": "simple_0", "ground_truth": []}, {"id": "simple_1", "ground_truth": []}, {"id": "x", "ground_truth": []}])
    assert "possible_answer/BFCL_v3_simple.json: line 3: has more records than BFCL_v3_simple.json" in error_of(src)


def test_duplicate_ids(tmp_path):
    msg = error_of(make_category(tmp_path, "simple", [SIMPLE[0], SIMPLE[0]]))
    assert "line 2, $.id: duplicate id 'simple_0' (first on line 1)" in msg


def test_duplicate_ids_across_category_files_name_both_files(tmp_path):
    make_category(tmp_path, "simple", SIMPLE)
    make_category(tmp_path, "special", [SIMPLE[1]])
    msg = error_of(tmp_path)
    assert "BFCL_v3_special.json: line 1, $.id: duplicate id 'simple_1' (first on BFCL_v3_simple.json line 2)" in msg


def test_possible_answer_file_given_instead_of_questions(tmp_path):
    make_category(tmp_path, "simple", SIMPLE)
    with pytest.raises(InputError, match="this is a possible-answer file; import the question file"):
        FMT.read(tmp_path / "possible_answer" / "BFCL_v3_simple.json", silent())


# ---- sample data ---------------------------------------------------------------------------


def test_sample_data_imports():
    folder = DATA_DIR / "bfcl"
    assert find_dataset_format(folder / "BFCL_v3_simple.json").name == "bfcl"
    items = read_items(folder)
    assert len(items) == 6
    assert {i.category for i in items} == {"simple", "parallel", "irrelevance"}
    assert all(i.gold for i in items if i.category != "irrelevance")


# ---- reference data ------------------------------------------------------------------------


def refdata(name: str) -> Path:
    path = REFDATA / name
    if not path.exists():
        pytest.skip(f"reference data not available: ../shared/refdata/.../berkeley-function-call-leaderboard/data/{name} not found")
    return path


@pytest.mark.refdata
@pytest.mark.parametrize("category, count, min_calls", [("simple", 400, 1), ("multiple", 200, 1), ("parallel", 200, 2)])
def test_refdata_categories_import_with_possible_answers(tmp_path, category, count, min_calls):
    src = refdata(f"BFCL_v3_{category}.json")
    parsed = FMT.read(src, silent())
    items = list(parsed.items)
    assert len(items) == count
    assert all(i.category == category and i.question and i.payload["functions"] for i in items)
    assert all(len(i.gold) >= min_calls for i in items)
    assert all(len(i.gold) == 1 for i in items) == (category != "parallel")
    assert all(isinstance(g, dict) and len(g) == 1 for i in items for g in i.gold)
    FMT.write(parsed.dataset, export_items(items), tmp_path, silent())
    assert jsonl_values(tmp_path / src.name) == jsonl_values(src)
    assert jsonl_values(tmp_path / "possible_answer" / src.name) == jsonl_values(REFDATA / "possible_answer" / src.name)


@pytest.mark.refdata
def test_refdata_whole_folder_imports():
    items = read_items(refdata(""))
    assert len(items) == len({i.record_id for i in items}) > 5000
    multi = [i for i in items if i.category == "multi_turn_base"]
    assert len(multi) == 200 and all(i.payload["functions"] for i in multi)


# ---------------------------------------------------------------- v4 (bfcl-eval's current release)


def make_v4(folder: Path, category: str, pairs, answers=True) -> Path:
    qfile = write_lines(folder / f"BFCL_v4_{category}.json", [rec for rec, _ in pairs])
    if answers:
        write_lines(folder / "possible_answer" / qfile.name, [{"id": rec["id"], "ground_truth": g} for rec, g in pairs])
    return qfile


V4_SIMPLE = [({"id": "simple_python_0", "question": q("Add 1 and 2."), "function": [ADD]}, [{"math.add": {"a": [1], "b": [2]}}]),
             ({"id": "simple_python_1", "question": q("Add 3 and 4."), "function": [ADD]}, [{"math.add": {"a": [3], "b": [4]}}])]
MEMORY = [({"id": "memory_0-customer-0", "question": q("What is my first name?"), "involved_classes": ["MemoryAPI"],
            "scenario": "customer"}, ["Michael"])]


def test_v4_file_is_detected_and_its_category_has_no_version(tmp_path):
    qfile = make_v4(tmp_path, "simple_python", V4_SIMPLE)
    assert find_dataset_format(qfile).name == "bfcl" and find_dataset_format(tmp_path).name == "bfcl"
    assert not FMT.detect(tmp_path / "possible_answer" / qfile.name)
    assert not FMT.detect(tmp_path / "possible_answer")
    assert "possible-answer folder" in error_of(tmp_path / "possible_answer")
    parsed = FMT.read(qfile, silent())
    items = list(parsed.items)
    assert {i.category for i in items} == {"simple_python"}
    assert items[0].payload["bfcl_version"] == "v4"
    assert parsed.dataset.meta["files"][0]["version"] == "v4" and parsed.dataset.meta["bfcl_versions"] == ["v4"]
    assert parsed.dataset.name == "BFCL v4 simple_python"


def test_v4_memory_keeps_string_answers_and_names_its_backend(tmp_path):
    docs = tmp_path / "multi_turn_func_doc"
    write_lines(docs / "memory_kv.json", [{"name": "core_memory_add", "parameters": {"type": "dict", "properties": {}}}])
    make_v4(tmp_path, "memory", MEMORY)
    (item,) = read_items(tmp_path)
    assert item.category == "memory" and item.gold == ["Michael"]
    assert item.payload["functions"][0]["name"] == "core_memory_add"
    assert "key-value" in item.payload["functions_note"]
    write_lines(tmp_path / "possible_answer" / "BFCL_v4_memory.json", [{"id": "memory_0-customer-0", "ground_truth": [7]}])
    assert "ground_truth[0]" in error_of(tmp_path)


def test_v4_format_sensitivity_refers_to_other_categories_and_round_trips(tmp_path):
    make_v4(tmp_path, "simple_python", V4_SIMPLE)
    index = {"simple_python": ["simple_python_1"], "live_simple": ["live_simple_9-1-0"]}
    (tmp_path / "BFCL_v4_format_sensitivity.json").write_text(json.dumps(index, indent=4), encoding="utf-8")
    parsed = FMT.read(tmp_path, silent())
    items = [i for i in parsed.items if i.category == "format_sensitivity"]
    assert [i.record_id for i in items] == ["format_sensitivity:simple_python_1", "format_sensitivity:live_simple_9-1-0"]
    found, missing = items
    assert found.gold == [{"math.add": {"a": [3], "b": [4]}}] and found.payload["functions"] == [ADD]
    assert found.question == "Add 3 and 4."
    assert missing.gold == [] and "BFCL_v4_live_simple.json" in missing.payload["gold_note"]
    out = tmp_path / "out"
    all_items = list(FMT.read(tmp_path, silent()).items)
    FMT.write(parsed.dataset, export_items(all_items), out, silent())
    assert json.loads((out / "BFCL_v4_format_sensitivity.json").read_text()) == index
    assert not (out / "possible_answer" / "BFCL_v4_format_sensitivity.json").exists()


@pytest.mark.parametrize(
    "text, expected",
    [
        ('["simple_python_0"]', "expected an object"),
        ('{"simple_python": "simple_python_0"}', "simple_python"),
        ('{"simple_python": ["a", "a"]}', "duplicate id 'a'"),
        ('{"simple_python": [', "line 1"),
    ],
)
def test_v4_format_sensitivity_errors_name_the_file_and_place(tmp_path, text, expected):
    path = tmp_path / "BFCL_v4_format_sensitivity.json"
    path.write_text(text, encoding="utf-8")
    message = error_of(path)
    assert "BFCL_v4_format_sensitivity.json" in message and expected in message, message
