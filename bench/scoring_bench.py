"""Scoring throughput: string metrics, DeepJSONEval, SchemaBench, sandboxed programs.

Run: ``.venv/bin/python bench/scoring_bench.py [--quick] [--only sandbox]``. Prints one figure
per line as ``name: value unit``; each target comes with the measured/target
ratio. Data is synthetic and built here, so the bench needs no refdata.

To add a scorer's figures, decorate a function with ``@bench``: it receives
the ``scale`` (1.0, or 0.2 with --quick) and yields ``(name, value, unit)``
tuples. ``SCORERS`` holds the registered functions in order.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from reviewer.sandbox import Limits, run_many, run_python  # noqa: E402
from reviewer.scoring import tooljson_metrics as tm  # noqa: E402
from reviewer.scoring.base import ScoringItem, ScoringOutput  # noqa: E402
from reviewer.scoring.registry import scorer_for  # noqa: E402

Figure = tuple[str, float, str]
BenchFn = Callable[[float], Iterator[Figure]]
SCORERS: list[BenchFn] = []

TARGETS = {"records/s string metric": 5000.0, "programs/s": 30.0}


def bench(fn: BenchFn) -> BenchFn:
    """Register a bench function (see the module docstring)."""
    SCORERS.append(fn)
    return fn


def rate(n: int, fn: Callable[[], None]) -> tuple[float, float]:
    """(items per second, seconds) of ``fn`` that processes ``n`` items; best of 3 runs."""
    best = float("inf")
    for _ in range(3):
        start = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - start)
    return n / best, best


@bench
def string_metrics(scale: float) -> Iterator[Figure]:
    rng = random.Random(1)
    words = ["Black", "Gray/Black", "Women's", "ARS", "10-K", "8-K", "SC 13G/A", "Report"]
    n = int(50_000 * scale)
    lists = [(", ".join(rng.sample(words, 4)), ", ".join(rng.sample(words, 4)) + ".") for _ in range(n)]
    numbers = [(str(rng.randint(0, 999)), f"The total is ${rng.random() * 1000:.2f} over {rng.randint(1, 9)} items")
               for _ in range(n)]
    for name, fn, pairs in [
        ("accuracy_string", tm.accuracy_string, lists),
        ("unordered_list_str_match", tm.unordered_list_str_match, lists),
        ("approx_number_match", tm.approx_number_match, numbers),
        ("contains", tm.contains, lists),
    ]:
        per_s, secs = rate(n, lambda fn=fn, pairs=pairs: [fn(g, p) for g, p in pairs])
        yield f"tooljson_{name}", per_s, "records/s"
        yield f"tooljson_{name}_vs_target", per_s / TARGETS["records/s string metric"], "x (target 5000 records/s)"
    scorer = scorer_for("tool_qa")
    items = [(ScoringItem(str(i), "tool_qa", g, category="FILTERING"), ScoringOutput(None, p))
             for i, (g, p) in enumerate(lists[: n // 5])]
    per_s, _ = rate(len(items), lambda: [scorer.score(it, out) for it, out in items])
    yield "tooljson_score_call", per_s, "records/s"


def _deep_schema(i: int) -> dict:
    leaf = {"type": "object", "properties": {f"v{i}": {"type": "number"}, "tags": {"type": "array", "items": {"type": "string"}}},
            "required": [f"v{i}"]}
    return {"type": "object", "properties": {"name": {"type": "string"},
                                             "items": {"type": "array", "items": {"type": "object", "properties": {"inner": leaf}}}},
            "required": ["name", "items"]}


def _deep_gold(i: int, rng: random.Random) -> dict:
    return {"name": f"n{i}", "items": [{"inner": {f"v{i}": rng.random(), "tags": ["a", "b", str(j)]}} for j in range(5)]}


@bench
def deepjson(scale: float) -> Iterator[Figure]:
    rng = random.Random(2)
    n = int(2000 * scale)
    scorer = scorer_for("extraction")
    items, outputs = [], []
    for i in range(n):
        gold = _deep_gold(i, rng)
        pred = json.loads(json.dumps(gold))
        if i % 3 == 0:
            pred["items"][0]["inner"]["tags"].append("extra")
        items.append(ScoringItem(str(i), "extraction", gold, schema=json.dumps(_deep_schema(i % 200)), depth=5))
        outputs.append(ScoringOutput(f"Sure:\n```json\n{json.dumps(pred)}\n```"))
    start = time.perf_counter()
    for it, out in zip(items, outputs):
        scorer.score(it, out)
    cold = n / (time.perf_counter() - start)  # 200 schemas seen for the first time (metaschema checks)
    warm, _ = rate(n, lambda: [scorer.score(it, out) for it, out in zip(items, outputs)])
    yield "deepjson_records_cold_schemas", cold, "records/s"
    yield "deepjson_records", warm, "records/s"


@bench
def schemagen(scale: float) -> Iterator[Figure]:
    n = int(5000 * scale)
    scorer = scorer_for("schema_gen")
    schema = {"type": "object", "properties": {"name": {"type": "string"}, "age": {"type": "integer"},
                                               "code": {"type": "string"}}, "required": ["name", "age"]}
    verify = {"type": "object", "properties": {"code": {"type": "string", "pattern": "^#[0-9a-f]{6}$"}}}
    item = ScoringItem("s", "schema_gen", None, schema=json.dumps(schema), category="custom",
                       payload={"verify_schema": verify, "special_token": None, "subset": "custom"})
    texts = ['```json\n{"name": "A", "age": 3, "code": "#00ff00"}\n```', '{"name": "A", "age": "3", "code": "#00ff00"}',
             '{"name": "A", "age": 3, "code": "red"}', "not json"]
    outputs = [ScoringOutput(texts[i % len(texts)]) for i in range(n)]
    per_s, _ = rate(n, lambda: [scorer.score(item, out) for out in outputs])
    yield "schemagen_records", per_s, "records/s"


@bench
def sandbox(scale: float) -> Iterator[Figure]:
    """Programs per second, each in a fresh bubblewrap sandbox, beside the old audit-hook runner in the same run."""
    from bench.old_sandbox import runner as old_runner

    n = max(20, int(100 * scale))
    response = {"filings": [{"formType": "10-K" if i % 3 else "8-K", "size": i} for i in range(200)]}
    code = "def answer(api_response):\n    return str(sum(1 for f in api_response['filings'] if f['formType'] == '10-K'))\n"
    jobs = [(code, "answer", [response])] * n
    limits = Limits()
    run_python(code, "answer", [response], limits)  # warm the page cache and the availability probe
    latencies = []
    for _ in range(5):
        start = time.perf_counter()
        single = run_python(code, "answer", [response], limits)
        latencies.append(time.perf_counter() - start)
        assert single.ok, single.error
    rates = []
    for _ in range(3):
        start = time.perf_counter()
        results = run_many(jobs, limits)
        rates.append(n / (time.perf_counter() - start))
        assert all(r.ok for r in results), [r.error for r in results if not r.ok][:1]
    old_rates = []
    old_runner.run_python(code, "answer", [response])
    for _ in range(3):
        start = time.perf_counter()
        old = old_runner.run_many(jobs, old_runner.Limits())
        old_rates.append(n / (time.perf_counter() - start))
        assert all(r.ok for r in old)
    new_rate, old_rate = statistics.median(rates), statistics.median(old_rates)
    yield "sandbox_single_program", statistics.median(latencies) * 1000, "ms (bubblewrap, median of 5)"
    yield "sandbox_programs", new_rate, "programs/s (bubblewrap, one sandbox per program, median of 3)"
    yield "sandbox_programs_vs_target", new_rate / TARGETS["programs/s"], "x (target 30 programs/s on 2 cores)"
    yield "sandbox_programs_old_runner", old_rate, "programs/s (old audit-hook runner, same run; not a boundary)"
    yield "sandbox_programs_vs_old_runner", new_rate / old_rate, "x"


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a fifth of the work (for a smoke run)")
    parser.add_argument("--only", choices=[fn.__name__ for fn in SCORERS], help="run one group of figures")
    args = parser.parse_args(argv)
    scale = 0.2 if args.quick else 1.0
    for fn in SCORERS:
        if args.only and fn.__name__ != args.only:
            continue
        for name, value, unit in fn(scale):
            print(f"{name}: {value:.4g} {unit}" if isinstance(value, float) else f"{name}: {value} {unit}", flush=True)


if __name__ == "__main__":
    main()
