"""Scoring speed of the call scorers: NesTools, BFCL and tool selection.

NesTools target: 1,000 items scored (faithful mode, plus the aggregate with
its breakdowns) in <= 2 s. Uses the NesTools test set and the synthetic
"mixed" predictions from ../shared/refdata when present, else 1,000 generated
chains of the same shape. BFCL and tool selection run on generated items.
Prints one figure per line as ``name: value unit``; medians of 3 runs. The
ratio lines compare with the floor of just parsing the same answers with
json.loads, so a regression shows whatever the machine's speed.

    .venv/bin/python bench/scoring_bench_calls.py
"""

from __future__ import annotations

import json
import random
import statistics
import time
from pathlib import Path

from reviewer.scoring.base import ScoringItem, ScoringOutput
from reviewer.scoring.bfcl import SCORER as BFCL
from reviewer.scoring.nestools import SCORER as NESTOOLS
from reviewer.scoring.toolselect import SCORER as TOOLSELECT

REFDATA = Path(__file__).resolve().parents[1].parent / "shared" / "refdata" / "NesTools"
WORDS = "flight hotel booking paris march report weekly summary customer account invoice total".split()


def _median(fn, repeat: int = 3) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def nestools_refdata() -> list[tuple[ScoringItem, ScoringOutput]] | None:
    data = REFDATA / "data" / "test_data.jsonl"
    predictions = REFDATA / "_synthetic" / "predictions" / "mixed" / "raw_response.jsonl"
    ids_file = REFDATA / "inference" / "build_test_prompt" / "test_api_ids.jsonl"
    if not (data.exists() and predictions.exists() and ids_file.exists()):
        return None
    ids = {r["test_id"]: r["api_ids"] for r in map(json.loads, ids_file.read_text().splitlines())}
    items = {}
    for r in map(json.loads, data.read_text().splitlines()):
        payload = {"apis": r["api"], "api_ids": ids[r["test_id"]], "task": r["task"]}
        items[r["test_id"]] = ScoringItem(str(r["test_id"]), "call_chain", r["call"], raw=r, payload=payload)
    pairs = []
    for r in map(json.loads, predictions.read_text().splitlines()):
        failed = r["response"] == -1
        pairs.append((items[r["test_id"]], ScoringOutput(None if failed else r["response"], status="error" if failed else "ok")))
    return pairs


def nestools_generated(n: int = 1000) -> list[tuple[ScoringItem, ScoringOutput]]:
    rng = random.Random(7)
    pairs = []
    for i in range(n):
        apis = [{"api_name": f"api_{i}_{k}"} for k in range(3)]
        gold, predicted = [], []
        for k in range(3):
            params = {"text": " ".join(rng.choices(WORDS, k=6)), "count": rng.randint(1, 9)}
            if k:
                params["source"] = f"API_call_{k - 1}"
            gold.append({"api_name": f"api_{i}_{k}", "parameters": params, "responses": [f"API_call_{k}"]})
            said = dict(params, text=" ".join(rng.choices(WORDS, k=6)))
            predicted.append({"api_name": f"api_{i}_{k}", "api_id": 1000 * i + k, "parameters": said,
                              "responses": {"out": f"API_call_{k}"}})
        item = ScoringItem(str(i), "call_chain", gold, payload={"apis": apis, "api_ids": [1000 * i + k for k in range(3)]})
        pairs.append((item, ScoringOutput("Here you go:\n" + json.dumps(predicted))))
    return pairs


def bfcl_generated(n: int = 1000) -> list[tuple[ScoringItem, ScoringOutput]]:
    function = {"name": "weather.get", "parameters": {"type": "dict", "required": ["city"], "properties": {
        "city": {"type": "string"}, "days": {"type": "integer"}, "units": {"type": "string"}}}}
    pairs = []
    for i in range(n):
        gold = [{"weather.get": {"city": [f"City {i}"], "days": [i % 7], "units": ["metric", ""]}},
                {"weather.get": {"city": [f"Town {i}"], "days": [1], "units": ["metric", ""]}}]
        item = ScoringItem(str(i), "function_call", gold, payload={"functions": [function]}, category="parallel")
        text = f"[weather.get(city='Town {i}', days=1), weather.get(city='city {i}', days={i % 7}, units='metric')]"
        pairs.append((item, ScoringOutput(text)))
    return pairs


def toolselect_generated(n: int = 1000) -> list[tuple[ScoringItem, ScoringOutput]]:
    tools = [{"name": f"Tool number {k}", "description": "d"} for k in range(8)]
    pairs = []
    for i in range(n):
        gold = sorted(f"Tool number {k}" for k in range(8) if (i >> k) & 1)
        lines = ["Thinking: weighing each tool."] + [
            f"Tool number {k} -- {'YES' if (i >> k) & 1 else 'NO'}" for k in range(8)
        ] + ["Assessment finished."]
        item = ScoringItem(str(i % 32), "tool_select", gold, payload={"tools": tools})
        pairs.append((item, ScoringOutput("\n".join(lines), extra={"replication": i // 32})))
    return pairs


def run(scorer, pairs, mode="faithful") -> None:
    scorer.aggregate([(item, scorer.score(item, output, mode)) for item, output in pairs])


def report(name: str, scorer, pairs, floor_texts) -> float:
    seconds = _median(lambda: run(scorer, pairs))
    floor = _median(lambda: [_try_json(t) for t in floor_texts])
    print(f"{name}_{len(pairs)}_items: {seconds:.3f} s")
    print(f"{name}_rate: {len(pairs) / seconds:.0f} records/s")
    print(f"{name}_vs_json_parse: {seconds / max(floor, 1e-9):.1f} x")
    return seconds


def _try_json(text):
    try:
        return json.loads(text[text.find("["):] if text else "null")
    except ValueError:
        return None


def main() -> None:
    pairs = nestools_refdata()
    name = "nestools_refdata" if pairs else "nestools_generated"
    pairs = pairs or nestools_generated()
    seconds = report(name, NESTOOLS, pairs, [o.text for _, o in pairs])
    print(f"{name}_vs_target_2s: {seconds / 2.0:.2f} ratio")
    fixed = _median(lambda: run(NESTOOLS, pairs, "fixed"))
    print(f"{name}_fixed_{len(pairs)}_items: {fixed:.3f} s")
    bfcl = bfcl_generated()
    report("bfcl", BFCL, bfcl, [o.text for _, o in bfcl])
    selection = toolselect_generated()
    report("toolselect", TOOLSELECT, selection, [o.text for _, o in selection])


if __name__ == "__main__":
    main()
