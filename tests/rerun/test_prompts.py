"""Prompt strategies: the papers' templates verbatim, and the requests built from small items."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from reviewer.errors import InputError
from reviewer.formats.base import ItemRecord
from reviewer.rerun.prompts import (
    build_request,
    call_chain,
    schema_gen,
    strategies_for,
    tool_qa,
)
from reviewer.rerun.prompts.nlt_paper import SYSTEM_PROMPTS, TOOLS
from reviewer.rerun.prompts.tool_qa import (
    gold_code_keys,
    prune_to_keys,
    reduce_response,
)
from reviewer.rerun.prompts.tool_select import function_name

SHARED = Path(__file__).resolve().parents[3] / "shared"
PAPERS = SHARED / "papers"
REFDATA = SHARED / "refdata"


def paper(number: str) -> str:
    found = sorted(PAPERS.glob(f"{number}_*.txt")) if PAPERS.is_dir() else []
    if not found:
        pytest.skip(f"../shared/papers/{number}_*.txt not found (paper text needed to compare templates)")
    return found[0].read_text(encoding="utf-8")


def figure_prompt(text: str, number: int) -> str:
    """The prompt printed in paper 000's Figure ``number``: numbered lines between ----- rules."""
    before = text[: text.index(f"Figure {number}:")]
    block = before[before.rindex("\n1 -----\n") + 1 :]
    block = block[: block.rindex("-----") + len("-----")]
    lines = [re.sub(r"^\d+ ?", "", line) for line in block.split("\n")]
    rules = [i for i, line in enumerate(lines) if line.strip() == "-----"]
    body = lines[rules[1] + 1 : rules[-1]]
    return "\n".join(body).strip("\n")


def tool_qa_item(**overrides) -> ItemRecord:
    response = {"data": [{"form": "ARS", "acc": "1", "meta": {"x": 1}}, {"form": "10-K", "acc": "2", "meta": {"x": 2}}]}
    values = {
        "record_id": "SEC_1", "kind": "tool_qa", "gold": "ARS", "raw": {},
        "question": "What is the form of filing 1?", "context": json.dumps(response),
        "schema": '{"type": "object"}', "payload": {},
    }
    values.update(overrides)
    return ItemRecord(**values)


# --- paper fidelity ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("figure", "template"),
    [
        (16, tool_qa.FIG16_ANSWER),
        (17, tool_qa.FIG17_ANSWER_SCHEMA),
        (18, tool_qa.FIG18_CODE),
        (19, tool_qa.FIG19_CODE_SCHEMA),
        (20, tool_qa.FIG20_CODE_SCHEMA_NO_RESPONSE),
        (21, tool_qa.FIG21_CODE_SCHEMA_REDUCED),
        (22, tool_qa.FIG22_COT_ANSWER_SCHEMA),
        (23, tool_qa.FIG23_COT_CODE_SCHEMA),
    ],
)
def test_tool_qa_templates_are_paper_000_figures_verbatim(figure, template):
    assert template == figure_prompt(paper("000"), figure)


def test_call_chain_prompt_is_paper_004_table_9():
    text = paper("004")
    start = text.index("You have access to a list of APIs and the task description.")
    printed = text[start : text.index("Table 9:")].replace("\\", "").replace("{task description}", "{task}")
    squash = lambda s: re.sub(r"\s+", "", s)
    assert squash(call_chain.TABLE9_PROMPT) == squash(printed)


def test_schema_gen_prompts_are_paper_003_appendix_b():
    text = paper("003")
    appendix = text[text.index("B Benchmark Prompts") : text.index("C Tool Callings Conversion")]
    unwrapped = appendix.replace("\n↳ ", " ")
    assert schema_gen.SYSTEM_PROMPT in unwrapped
    assert schema_gen.USER_PROMPT in unwrapped
    assert schema_gen.USER_PROMPT_ESCAPE in unwrapped


def test_nlt_system_prompts_are_paper_002_appendix_a2():
    text = "\n".join(line for line in paper("002").split("\n") if line.strip() != "```")
    for prompt in SYSTEM_PROMPTS.values():
        assert prompt in text


# --- tool_qa ----------------------------------------------------------------------------


def test_every_paper_000_setup_builds_and_is_named_as_in_prediction_files():
    item = tool_qa_item()
    for setup in tool_qa.SETUPS:
        request = build_request(item, setup)
        assert request.meta["setup_type"] == setup
        content = request.messages[0]["content"]
        assert "What is the form of filing 1?" in content
        assert "<<" not in content and "{question}" not in content and "{api_response}" not in content
    no_response = build_request(item, "code_generation_schema_no_resp").messages[0]["content"]
    assert "ARS" not in no_response and '{"type": "object"}' in no_response


def test_tool_qa_rejects_a_combination_the_paper_never_ran():
    with pytest.raises(InputError, match="SEC_1.*no answer prompt"):
        build_request(tool_qa_item(), "answer", {"response": "none"})


def test_reduced_response_keeps_one_element_per_list():
    assert reduce_response({"a": [{"b": [1, 2, 3]}, {"b": [4]}], "c": []}) == {"a": [{"b": [1]}], "c": []}
    content = build_request(tool_qa_item(), "code", {"response": "reduced"}).messages[0]["content"]
    assert '"ARS"' in content and '"10-K"' not in content


def test_response_is_pruned_to_the_gold_codes_key_paths():
    code = "def f(d):\n    return ', '.join(r['form'] for r in d.get('data', []) if 'acc' in r)"
    assert gold_code_keys(code) == {"form", "data", "acc"}
    item = tool_qa_item(payload={"gold_code": code})
    request = build_request(item, "code_generation_schema")
    assert request.meta["setup_type"] == "code_generation_schema_cfx2"
    data = json.loads(request.messages[0]["content"].split("data = ")[1].split("\n\nPython Function:")[0])
    assert data == {"data": [{"form": "ARS", "acc": "1"}, {"form": "10-K", "acc": "2"}]}
    unpruned = build_request(item, "code_generation_schema", {"prune_to_gold_code": False})
    assert unpruned.meta["setup_type"] == "code_generation_schema" and '"meta"' in unpruned.messages[0]["content"]
    assert prune_to_keys({"a": {"b": 1}}, {"zzz"}) is None


def test_bad_gold_code_and_bad_response_name_the_record():
    with pytest.raises(InputError, match="SEC_1.*gold_code.*line"):
        build_request(tool_qa_item(payload={"gold_code": "def f(:"}), "code")
    with pytest.raises(InputError, match="SEC_1.*context.*line 1"):
        build_request(tool_qa_item(context="{not json"), "answer")


# --- call_chain -------------------------------------------------------------------------


def chain_item(ids=(11, 12)) -> ItemRecord:
    apis = [
        {"api_name": "scan_isbn", "api_description": "Scan.", "parameters": {"isbn": {"type": "str"}}, "required": ["isbn"], "responses": {"book": {"type": "str"}}},
        {"api_name": "locate_book", "api_description": "Locate.", "parameters": {"book": {"type": "str"}}, "required": [], "responses": {}},
    ]
    return ItemRecord("7", "call_chain", [], {}, question="Find the book 978.", payload={"apis": apis, "api_ids": list(ids)})


def test_call_chain_lists_apis_with_ids_right_after_the_name():
    request = build_request(chain_item(), "nestools")
    content = request.messages[0]["content"]
    assert "APIs:\n[{'api_name': 'scan_isbn', 'api_id': 11, 'api_description': 'Scan.'" in content
    assert content.endswith("\n\nTask description:\nFind the book 978.\n\nAPI call result:\n")
    assert request.meta["api_ids"] == [11, 12] and len(request.messages) == 1


def test_call_chain_shuffle_is_reproducible_and_ids_must_pair():
    a = build_request(chain_item(), "nestools", {"shuffle_seed": 3})
    assert a.messages == build_request(chain_item(), "nestools", {"shuffle_seed": 3}).messages
    with pytest.raises(InputError, match="'7'.*api_ids.*2 APIs"):
        build_request(chain_item(ids=(1,)), "nestools")


# --- extraction, schema_gen -------------------------------------------------------------


def test_extraction_prompt_and_constrained_decoding():
    item = ItemRecord("x1", "extraction", {}, {}, payload={"text": "Ann is 30."}, schema='{"type": "object"}')
    plain = build_request(item)
    content = plain.messages[0]["content"]
    assert content.startswith("*** Task Scenario  \n") and "```json\\n{JSON Object}\\n```" in content
    assert content.endswith('\n*** JSON Schema\n{"type": "object"}\n\n*** Text Description\nAnn is 30.')
    assert plain.response_format is None
    constrained = build_request(item, "deepjsoneval", {"constrained": True})
    assert constrained.response_format == {"type": "json_schema", "json_schema": {"name": "answer", "schema": {"type": "object"}}}


def test_schema_gen_escape_items_name_their_token():
    schema = '{"type": "object",\n "properties": {"a": {"type": "string"}}}'
    plain = ItemRecord("s1", "schema_gen", None, {}, schema=schema, payload={"special_token": None, "subset": "complex"})
    escape = ItemRecord("s2", "schema_gen", None, {}, schema=schema, payload={"special_token": 'd6:\\x;Q+$', "subset": "escape"})
    p, e = build_request(plain), build_request(escape)
    assert p.messages[0] == {"role": "system", "content": schema_gen.SYSTEM_PROMPT.replace("{schema}", json.dumps(json.loads(schema)))}
    assert p.messages[1]["content"] == schema_gen.USER_PROMPT
    assert 'remember your special token here: d6:\\x;Q+$ Give your JSON' in e.messages[1]["content"]


# --- tool_select ------------------------------------------------------------------------


def select_item(tools, message="Are you human? Transfer me to a live agent.") -> ItemRecord:
    return ItemRecord("t1", "tool_select", ["Talk to a Human"], {}, question=message,
                      payload={"tools": [{"name": n, "description": d} for n, d in tools]})


def test_paper_scenarios_get_the_papers_own_system_prompts():
    for (scenario, perturbed), tools in TOOLS.items():
        for style in ("nlt", "structured"):
            request = build_request(select_item(tools), style)
            assert request.messages[0]["content"] == SYSTEM_PROMPTS[(style, scenario, perturbed)]
            assert request.messages[1] == {"role": "user", "content": "Are you human? Transfer me to a live agent."}


def test_generic_templates_reproduce_the_paper_for_the_papers_tools():
    # The generic NLT/structured templates are the paper's, so fed Alex's persona and tools
    # they must give back A.2.5 / A.2.6 exactly.
    persona = SYSTEM_PROMPTS[("nlt", "alex", False)].split("\n\n")[0]
    tools = select_item(TOOLS[("alex", False)])
    for style in ("nlt", "structured"):
        request = build_request(tools, style, {"scenario": "generic", "persona": persona})
        assert request.messages[0]["content"] == SYSTEM_PROMPTS[(style, "alex", False)]


def test_structured_sends_parameterless_check_functions():
    request = build_request(select_item([("Weather Lookup", "weather questions")]), "structured")
    assert request.tools == [{"type": "function", "function": {"name": "check_weather_lookup", "description": "weather questions", "parameters": {"type": "object", "properties": {}}}}]
    assert request.meta["tool_names"] == {"check_weather_lookup": "Weather Lookup"}
    assert "Weather Lookup -- YES/NO" in build_request(select_item([("Weather Lookup", "w")]), "nlt").messages[0]["content"]
    assert function_name("Talk to a Human") == "check_talk_to_a_human"


# --- function_call ----------------------------------------------------------------------


def test_bfcl_functions_become_tools_and_multi_turn_is_refused():
    functions = [{"name": "math.factorial", "description": "n!", "parameters": {"type": "dict", "properties": {"n": {"type": "integer"}, "xs": {"type": "tuple", "items": {"type": "float"}}}}}]
    item = ItemRecord("simple_1", "function_call", [], {}, question="5!", payload={"messages": [[{"role": "user", "content": "5!"}]], "functions": functions})
    request = build_request(item)
    tool = request.tools[0]["function"]
    assert tool["name"] == "math_factorial" and tool["parameters"]["type"] == "object"
    assert tool["parameters"]["properties"]["xs"] == {"type": "array", "items": {"type": "number"}}
    assert request.messages == [{"role": "user", "content": "5!"}] and request.tool_choice is None
    assert functions[0]["parameters"]["type"] == "dict"  # the item is not modified
    item.payload["messages"] = [[{"role": "user", "content": "a"}], [{"role": "user", "content": "b"}]]
    with pytest.raises(InputError, match="simple_1.*2 turns"):
        build_request(item)


# --- registry ---------------------------------------------------------------------------


def test_every_kind_has_strategies_and_typos_fail_early():
    for kind in ("tool_qa", "call_chain", "extraction", "schema_gen", "tool_select", "function_call"):
        assert strategies_for(kind)
    with pytest.raises(InputError, match="unknown strategy 'nlx'.*nlt, structured"):
        build_request(select_item([("A", "a")]), "nlx")
    with pytest.raises(InputError, match="unknown strategy option.*shuffle"):
        build_request(chain_item(), "nestools", {"shuffle": 1})
    with pytest.raises(InputError, match="'maybe' is not one of"):
        build_request(tool_qa_item(), "answer", {"response": "maybe"})


# --- real data --------------------------------------------------------------------------


@pytest.mark.refdata
def test_nestools_items_build_with_their_official_api_ids():
    data, ids_file = REFDATA / "NesTools/data/test_data.jsonl", REFDATA / "NesTools/inference/build_test_prompt/test_api_ids.jsonl"
    if not data.is_file() or not ids_file.is_file():
        pytest.skip("../shared/refdata/NesTools/data/test_data.jsonl or its test_api_ids.jsonl not found")
    ids = {}
    for line in ids_file.read_text().splitlines()[:20]:
        row = json.loads(line)
        ids[row["test_id"]] = row["api_ids"]
    for line in data.read_text().splitlines()[:20]:
        row = json.loads(line)
        item = ItemRecord(str(row["test_id"]), "call_chain", row["call"], row, question=row["task"],
                          payload={"apis": row["api"], "api_ids": ids[row["test_id"]]})
        content = build_request(item).messages[0]["content"]
        for api, api_id in zip(row["api"], ids[row["test_id"]]):
            assert f"'api_name': '{api['api_name']}', 'api_id': {api_id}" in content
