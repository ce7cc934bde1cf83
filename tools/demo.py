"""Made-up items of every kind, for screenshots and the UI tests.

``build_demo_store(store)`` imports one small dataset per kind, each with two
runs whose outputs exercise the layouts (a right answer, a wrong one, a
failed call, validation errors, wrong producers, UNK values...). Nothing here
is copied from a benchmark.
"""

from __future__ import annotations

import json

from reviewer.formats.base import (
    DatasetRecord,
    ItemRecord,
    OutputRecord,
    ParsedDataset,
    ParsedRun,
    RunRecord,
)
from reviewer.jobs import silent
from reviewer.store.importing import import_dataset, import_run


def _response(n: int = 40) -> str:
    return json.dumps({
        "network": {"name": "Velo Lisboa", "city": "Lisbon", "country": "PT"},
        "stations": [
            {"id": f"st-{i:03d}", "name": f"Praça {i}", "free_bikes": (i * 7) % 13, "empty_slots": (i * 5) % 11,
             "extra": {"ebikes": i % 3, "renting": i % 5 != 0, "last_update": f"2024-05-0{i % 9 + 1}T10:00:00Z"}}
            for i in range(n)
        ],
    })


SCHEMA = json.dumps({"type": "object", "properties": {"network": {"type": "object"}, "stations": {
    "type": "array", "items": {"type": "object", "properties": {"id": {"type": "string"},
                                                               "free_bikes": {"type": "integer"}}}}}})


def tool_qa() -> tuple[list[ItemRecord], dict[str, list[OutputRecord]]]:
    items, a, b = [], [], []
    for i in range(6):
        gold = str((i * 7) % 13)
        items.append(ItemRecord(
            record_id=f"bikes-{i}", kind="tool_qa", gold=gold, raw={"uid": f"bikes-{i}"},
            question=f"How many free bikes does station st-{i:03d} have right now?",
            context=_response(), schema=SCHEMA, category=["EXTRACTIVE", "FILTERING", "AGGREGATION"][i % 3],
            domain="networks/velo-lisboa",
            payload={"task": "bike availability", "app": "citybikes", "endpoint": "networks/velo-lisboa",
                     "api_query": "velo-lisboa", "exact_match_metric": "accuracy_string",
                     "gold_code": f"def solve(data):\n    for s in data['stations']:\n        if s['id'] == 'st-{i:03d}':\n"
                                  "            return s['free_bikes']  # the live count"},
            source_file="qa_pairs/citybikes.json", source_line=i + 1,
        ))
        code = (f"def solve(data):\n    # find the station by id\n    match = [s for s in data['stations'] "
                f"if s['id'] == 'st-{i:03d}']\n    return match[0]['free_bikes'] if match else None\n")
        a.append(OutputRecord(f"bikes-{i}", code, {}, prediction=int(gold),
                              extra={"setup_type": "code_generation_schema", "code_exec_status": "ok"}))
        b.append(OutputRecord(f"bikes-{i}", f"The station has {int(gold) + i % 2} free bikes.", {},
                              prediction=str(int(gold) + i % 2), extra={"setup_type": "direct_prompting"}))
    return items, {"coder-7b": a, "chatty-3b": b}


EXTRACTION_TEXT = (
    "Dr. Amelia Rourke, 47, joined the Harbour Institute in Galway in 2011 as head of marine robotics. "
    "Her team of 12 engineers built the Selkie underwater glider, which mapped 3,400 km of seabed. "
    "She holds degrees from Trinity College Dublin (BEng, 1999) and ETH Zurich (PhD, 2005)."
)


def extraction():
    gold = {"person": {"name": "Amelia Rourke", "age": 47, "employer": {"name": "Harbour Institute", "city": "Galway",
            "since": 2011}, "role": "head of marine robotics"},
            "team": {"size": 12, "project": "Selkie"},
            "education": [{"school": "Trinity College Dublin", "degree": "BEng", "year": 1999},
                          {"school": "ETH Zurich", "degree": "PhD", "year": 2005}]}
    schema = json.dumps({"type": "object", "properties": {"person": {"type": "object"}, "team": {"type": "object"},
                                                          "education": {"type": "array"}}})
    item = ItemRecord(record_id="bio-1", kind="extraction", gold=gold, raw={"id": "bio-1"},
                      payload={"text": EXTRACTION_TEXT}, schema=schema, category="Biography", depth=4,
                      difficulty="Medium", source_file="deepjson.xlsx", source_line=2)
    wrong = json.loads(json.dumps(gold))
    wrong["person"]["age"] = 46
    wrong["person"]["role"] = "head of marine robotics and autonomous underwater systems research group"
    wrong["team"]["project"] = "Selkie glider"
    del wrong["education"][1]
    return [item], {
        "extractor-a": [OutputRecord("bio-1", "```json\n" + json.dumps(wrong, indent=1) + "\n```", {})],
        "extractor-b": [OutputRecord("bio-1", json.dumps(gold), {})],
    }


def call_chain():
    apis = [
        {"api_name": "search_flights", "api_description": "Find flights between two cities on a date.",
         "parameters": {"origin": {"type": "str"}, "destination": {"type": "str"}, "date": {"type": "str"}},
         "responses": {"flight_id": {"type": "str"}, "price": {"type": "float"}}},
        {"api_name": "book_flight", "api_description": "Book a flight for a passenger.",
         "parameters": {"flight_id": {"type": "str"}, "passenger": {"type": "str"}},
         "responses": {"booking_ref": {"type": "str"}}},
        {"api_name": "convert_currency", "api_description": "Convert an amount between currencies.",
         "parameters": {"amount": {"type": "float"}, "to": {"type": "str"}},
         "responses": {"converted": {"type": "float"}}},
        {"api_name": "send_email", "api_description": "Send an email.",
         "parameters": {"to": {"type": "str"}, "body": {"type": "str"}}, "responses": {"status": {"type": "str"}}},
    ]
    gold = [
        {"api_name": "search_flights", "parameters": {"origin": "Porto", "destination": "Oslo", "date": "2024-06-01"},
         "responses": ["API_call_0", "API_call_1"]},
        {"api_name": "book_flight", "parameters": {"flight_id": "API_call_0", "passenger": "Ines Sousa"},
         "responses": ["API_call_2"]},
        {"api_name": "convert_currency", "parameters": {"amount": "API_call_1", "to": "NOK"},
         "responses": ["API_call_3"]},
        {"api_name": "send_email", "parameters": {"to": "ines@example.org", "body": "API_call_2"},
         "responses": ["API_call_4"]},
    ]
    task = ("Find a flight from Porto to Oslo on 2024-06-01, book it for Ines Sousa, tell me the price in NOK "
            "and email the booking reference to ines@example.org.")
    item = ItemRecord(record_id="trip-1", kind="call_chain", gold=gold, raw={"test_id": 1}, question=task,
                      payload={"apis": apis, "api_ids": [101, 102, 103, 104]}, domain="Travel/Booking", depth=3,
                      source_file="test_data.jsonl", source_line=1)
    pred_a = [
        {"api_name": "search_flights", "api_id": 101, "parameters": {"origin": "Porto", "destination": "Oslo",
         "date": "2024-06-01"}, "responses": {"flight_id": "API_call_0", "price": "API_call_1"}},
        {"api_name": "book_flight", "api_id": 102, "parameters": {"flight_id": "API_call_1", "passenger": "UNK"},
         "responses": {"booking_ref": "API_call_2"}},
        {"api_name": "send_email", "api_id": 104, "parameters": {"to": "ines@example.org", "body": "API_call_2"},
         "responses": {"status": "API_call_3"}},
    ]
    pred_b = [dict(c, api_id=100 + i + 1, responses={f"r{k}": r for k, r in enumerate(c["responses"])})
              for i, c in enumerate(gold)]
    return [item], {
        "chainsmith-8b": [OutputRecord("trip-1", json.dumps(pred_a), {})],
        "tiny-planner-1b": [OutputRecord("trip-1", "Here you go:\n" + json.dumps(pred_b), {})],
    }


def schema_gen():
    schema = {"type": "object", "properties": {
        "name": {"type": "string", "minLength": 3},
        "age": {"type": "integer", "minimum": 0},
        "tags": {"type": "array", "items": {"type": "string"}, "minItems": 1},
        "address": {"type": "object", "properties": {"zip": {"type": "string", "pattern": "^[0-9]{5}$"}},
                    "required": ["zip"]}},
        "required": ["name", "age", "address"], "additionalProperties": False}
    item = ItemRecord(record_id="complex-001", kind="schema_gen", gold=None, raw={"id": "complex-001"},
                      question="Please generate a valid JSON object according to the JSON schema.",
                      schema=json.dumps(schema), category="complex",
                      payload={"verify_schema": None, "special_token": None, "subset": "complex"},
                      source_file="schemagen.jsonl", source_line=1)
    bad = {"name": "Al", "age": -3, "tags": [], "address": {"zip": "12AB"}, "nickname": "x"}
    good = {"name": "Alice", "age": 30, "tags": ["a"], "address": {"zip": "12345"}}
    return [item], {"gen-a": [OutputRecord("complex-001", json.dumps(bad), {})],
                    "gen-b": [OutputRecord("complex-001", json.dumps(good), {})]}


def tool_select():
    tools = [{"name": "Weather", "description": "current weather and forecasts for a city"},
             {"name": "Calendar", "description": "the user's meetings, free slots and reminders"},
             {"name": "Email", "description": "read, search and send the user's email"},
             {"name": "Maps", "description": "directions, travel times and places nearby"}]
    item = ItemRecord(record_id="nlt-07", kind="tool_select", gold=["Calendar", "Maps"], raw={"id": "nlt-07"},
                      question="Do I have time to get to the dentist across town before my 3pm meeting?",
                      payload={"tools": tools}, category="multi-tool", source_file="appendix_a.jsonl",
                      source_line=7)
    return [item], {
        "selector-a": [OutputRecord("nlt-07", "Thinking: needs the calendar and a route.\n\nWeather - NO\n"
                                    "Calendar - YES\nEmail - NO\nMaps - YES\nAssessment finished.", {})],
        "selector-b": [OutputRecord("nlt-07", "Thinking: checking the day.\n\nWeather - YES\nCalendar - YES\n"
                                    "Email - NO\nMaps - NO\nAssessment finished.", {})],
    }


def function_call():
    functions = [{"name": "restaurant.tip_amount", "description": "Compute the tip for a restaurant bill.",
                  "parameters": {"type": "dict", "properties": {
                      "bill": {"type": "float", "description": "The bill total."},
                      "percent": {"type": "integer", "description": "Tip percentage."}},
                      "required": ["bill", "percent"]}}]
    messages = [[{"role": "user", "content": "What tip should I leave on a bill of 84.50 at 15 percent?"}]]
    gold = [{"restaurant.tip_amount": {"bill": [84.5], "percent": [15], "round_up": ["", False]}}]
    item = ItemRecord(record_id="simple_0", kind="function_call", gold=gold, raw={"id": "simple_0"},
                      question=messages[0][0]["content"], payload={"messages": messages, "functions": functions},
                      category="simple", source_file="BFCL_v3_simple.json", source_line=1)
    return [item], {
        "caller-a": [OutputRecord("simple_0", '[{"restaurant.tip_amount": {"bill": 84.5, "percent": 15}}]', {})],
        "caller-b": [OutputRecord("simple_0", None, {}, status="error", error="HTTP 500 from the endpoint")],
    }


KINDS = {"tool_qa": tool_qa, "extraction": extraction, "call_chain": call_chain, "schema_gen": schema_gen,
         "tool_select": tool_select, "function_call": function_call}


def build_demo_store(store, kinds=None) -> dict[str, int]:
    """Import one demo dataset per kind (named ``demo-<kind>``); return their ids."""
    ids = {}
    for kind in kinds or KINDS:
        items, runs = KINDS[kind]()
        ds = DatasetRecord(name=f"demo-{kind}", format="demo", kind=kind, source="tools.demo")
        summary = import_dataset(store.engine, ParsedDataset(ds, iter(items)), silent())
        for run_name, outputs in runs.items():
            run = RunRecord(name=run_name, format="demo", source="tools.demo", model=run_name)
            import_run(store.engine, summary.dataset_id, ParsedRun(run, iter(outputs)), silent())
        ids[kind] = summary.dataset_id
    return ids
