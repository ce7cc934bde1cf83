"""Import/export speed of the toolJSONprocessing and DeepJSONEval formats.

Builds scaled-up synthetic inputs in a temporary folder (no refdata needed),
times read (all items taken) and write, and prints one figure per line as
``name: value unit``. Ratios compare the format's read with the floor of just
parsing the same files (json.loads / openpyxl read-only iteration), so a
regression shows whatever the machine's speed.

    .venv/bin/python bench/bench_formats_tooljson_deepjson.py [--scale N]
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import tempfile
import time
import tracemalloc
from pathlib import Path

import openpyxl

from reviewer.formats.base import ExportItem
from reviewer.formats.deepjson import DeepJsonDataset
from reviewer.formats.tooljson import ToolJsonDataset
from reviewer.jobs import silent


def _median_time(fn, repeat: int = 3) -> float:
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return statistics.median(times)


def _peak_mb(fn) -> float:
    tracemalloc.start()
    fn()
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return peak / 1e6


def _exports(items) -> list[ExportItem]:
    return [ExportItem(i.record_id, i.raw, i.gold, i.gold, i.context, i.schema, i.payload) for i in items]


def build_tooljson(root: Path, n_records: int, n_responses: int) -> int:
    """A folder with ``n_responses`` ~80 KB responses and ``n_records`` QA records; returns input bytes."""
    rng = random.Random(1)
    app, ep = "bench.example.com", "v1_things"
    queries = [json.dumps({"id": k}) for k in range(n_responses)]
    responses = {
        app: {ep: {q: {"items": [{"id": j, "name": f"thing {j}", "price": rng.random() * 100,
                                  "tags": ["a", "b", "c"][: j % 3 + 1], "ok": j % 2 == 0} for j in range(700)]}
                   for q in queries}}
    }
    for d in ("qa_pairs", "api_responses", "schemas"):
        (root / d).mkdir(parents=True)
    (root / "api_responses" / f"{app}_{ep}.json").write_text(json.dumps(responses, indent=4))
    (root / "schemas" / f"{app}_{ep}_schema.txt").write_text('{"type": "object"}\n')
    records = [
        {"uid": f"Bench_{k}", "question": f"q{k}?", "gold_answer": str(k), "api_response_path": f"api_responses/{app}_{ep}.json",
         "api_response_schema": f"schemas/{app}_{ep}_schema.txt", "app": app, "endpoint": ep,
         "api_query": queries[k % n_responses], "task": "T", "task_type": "EXTRACTIVE", "predicted_answer": None,
         "model_output": None, "code_exec_status": None,
         "metrics": {"exact_match_metric": "accuracy_string", "exact_match": None, "contains": None, "llm_as_a_judge": None}}
        for k in range(n_records)
    ]
    (root / "qa_pairs" / f"{app}_{ep}_qa_pairs.json").write_text(json.dumps(records))
    return sum(p.stat().st_size for p in root.rglob("*") if p.is_file())


def build_deepjson(path: Path, n_rows: int) -> int:
    rng = random.Random(2)
    schema = json.dumps({"type": "object", "properties": {"A": {"type": "object"}}}, indent=2)
    wb = openpyxl.Workbook(write_only=True)
    ws = wb.create_sheet("sheet1")
    ws.append(["schema", "text", "json", "category", "true_depth"])
    for k in range(n_rows):
        gold = {"A": {"B": {"C": [{"D": rng.random(), "E": f"值{k}"} for _ in range(5)]}}}
        ws.append([schema, "文本 text " * 150, json.dumps(gold, indent=2, ensure_ascii=False), "plant", 3 + k % 5])
    wb.save(path)
    return path.stat().st_size


def bench_tooljson(tmp: Path, scale: int) -> None:
    root = tmp / "tooljson"
    n_records, n_responses = 500 * scale, 20
    size = build_tooljson(root, n_records, n_responses)
    fmt = ToolJsonDataset()
    print(f"tooljson_input_size: {size / 1e6:.1f} MB")
    print(f"tooljson_items: {n_records} items")

    def read_all():
        parsed = fmt.read(root, silent())
        return parsed.dataset, list(parsed.items)

    def parse_floor():
        for p in root.rglob("*.json"):
            json.loads(p.read_text())

    t_read = _median_time(read_all)
    t_floor = _median_time(parse_floor)
    print(f"tooljson_read: {t_read * 1000:.0f} ms")
    print(f"tooljson_read_rate: {n_records / t_read:.0f} items/s")
    print(f"tooljson_read_vs_json_loads: {t_read / t_floor:.1f} x")
    print(f"tooljson_read_peak_memory: {_peak_mb(read_all):.0f} MB")
    print(f"tooljson_read_peak_memory_vs_input: {_peak_mb(read_all) / (size / 1e6):.1f} x")
    dataset, items = read_all()
    exports = _exports(items)
    t_write = _median_time(lambda: fmt.write(dataset, exports, tmp / "tooljson_out", silent()))
    print(f"tooljson_write: {t_write * 1000:.0f} ms")
    print(f"tooljson_write_vs_read: {t_write / t_read:.2f} x")


def bench_deepjson(tmp: Path, scale: int) -> None:
    path = tmp / "deep.xlsx"
    n_rows = 1000 * scale
    size = build_deepjson(path, n_rows)
    fmt = DeepJsonDataset()
    print(f"deepjson_input_size: {size / 1e6:.1f} MB")
    print(f"deepjson_items: {n_rows} items")

    def read_all():
        parsed = fmt.read(path, silent())
        return parsed.dataset, list(parsed.items)

    def iterate_floor():
        wb = openpyxl.load_workbook(path, read_only=True)
        for _ in wb["sheet1"].iter_rows(values_only=True):
            pass
        wb.close()

    t_read = _median_time(read_all)
    t_floor = _median_time(iterate_floor)
    print(f"deepjson_read: {t_read * 1000:.0f} ms")
    print(f"deepjson_read_rate: {n_rows / t_read:.0f} items/s")
    print(f"deepjson_read_vs_openpyxl_iteration: {t_read / t_floor:.2f} x")

    def stream_first_100():
        parsed = fmt.read(path, silent())
        for n, _ in enumerate(parsed.items):
            if n == 99:
                break

    print(f"deepjson_first_100_items: {_median_time(stream_first_100) * 1000:.0f} ms")
    print(f"deepjson_first_100_vs_full_read: {_median_time(stream_first_100) / t_read:.2f} x")
    dataset, items = read_all()
    exports = _exports(items)
    t_write = _median_time(lambda: fmt.write(dataset, exports, tmp / "deep_out", silent()))
    print(f"deepjson_write_xlsx: {t_write * 1000:.0f} ms")
    print(f"deepjson_write_vs_read: {t_write / t_read:.2f} x")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--scale", type=int, default=2, help="multiplies the item counts (default 2)")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        bench_tooljson(Path(tmp), args.scale)
        bench_deepjson(Path(tmp), args.scale)


if __name__ == "__main__":
    main()
