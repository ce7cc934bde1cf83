"""Import time and peak memory for the three reference datasets (target: each <= 1 s).

Each import runs in a fresh process into a fresh SQLite file, so the figures
include parsing, the one transaction and the blob de-duplication, and the peak
memory is that process's own. Prints one figure a line: ``name: value unit``.

    .venv/bin/python bench/import_bench.py [--repeat 3]
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
REFDATA = ROOT.parent / "shared" / "refdata"
SETS = {
    "tooljson": (REFDATA / "toolJSONprocessing" / "generate_qa_pairs" / "data", "tooljson"),
    "nestools": (REFDATA / "NesTools" / "data" / "test_data.jsonl", "nestools"),
    "deepjson": (REFDATA / "DeepJSONEval" / "DeepJSONEval.xlsx", "deepjson"),
}

CHILD = r"""
import json, resource, sys, time
from reviewer.store import Store
from reviewer.formats.registry import load_all
store = Store(sys.argv[1])
load_all()
base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
t0 = time.perf_counter()
summary = store.import_dataset(sys.argv[2], format=sys.argv[3])
elapsed = time.perf_counter() - t0
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print(json.dumps({"seconds": elapsed, "items": summary.added, "peak_mb": peak / 1024, "growth_mb": (peak - base) / 1024}))
"""


def run_once(path: Path, fmt: str) -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        proc = subprocess.run(
            [sys.executable, "-c", CHILD, str(Path(tmp) / "bench.sqlite3"), str(path), fmt],
            capture_output=True, text=True, check=True, cwd=ROOT,
        )
    return json.loads(proc.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    for name, (path, fmt) in SETS.items():
        if not path.exists():
            print(f"{name}_skipped: 1 (reference data not found at {path})")
            continue
        runs = [run_once(path, fmt) for _ in range(args.repeat)]
        seconds = statistics.median(r["seconds"] for r in runs)
        print(f"{name}_import_items: {runs[0]['items']} items")
        print(f"{name}_import_time: {seconds * 1000:.0f} ms")
        print(f"{name}_import_time_vs_target_1s: {seconds:.2f} ratio")
        print(f"{name}_import_rate: {runs[0]['items'] / seconds:.0f} items/s")
        print(f"{name}_import_peak_rss: {max(r['peak_mb'] for r in runs):.0f} MB")
        print(f"{name}_import_rss_growth: {max(r['growth_mb'] for r in runs):.0f} MB")


if __name__ == "__main__":
    main()
