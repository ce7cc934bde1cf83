"""Import time, rate and peak memory (targets: each reference dataset <= 1 s; issue 14:
NesTools-like items >= 20,000 items/s with bounded memory on SQLite and PostgreSQL).

Each import runs in a fresh process into a fresh SQLite file (or PostgreSQL
schema), so the figures include parsing, the one transaction and the blob
de-duplication, and the peak memory is that process's own. The NesTools-like
sets (the 1,000 reference items repeated under new ids, 1k/10k/100k) are
imported three times in the same run: as the app imports them (files of
8 MB and more read in a second process, reviewer.store.import_feed, while
reviewer.store.bulk writes: COPY / prepared executemany), the same with the
file read in the importing process, and through plain SQLAlchemy executemany
read in one process (the old path). The reader alone is timed in the same
process, so the store's own write rate is shown beside the end-to-end rate. On a shared machine the wall-clock rate
depends on what else runs, so each import's CPU time is measured too: this
process's, plus on PostgreSQL the server process's (read from /proc, the server
being on the same machine); ``_rate_per_cpu_second`` is items per second of that
CPU, and the reading process's. Peak RSS is the importing process's maximum resident size (``ru_maxrss``),
given at every size: bounded memory means it does not grow with the item count.
Prints one figure a line: ``name: value unit``.

    .venv/bin/python bench/import_bench.py [--repeat 3] [--sizes 1000,10000,100000] [--pg URL]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import uuid
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


NESTOOLS_CHILD = r"""
import json, os, resource, sys, time
from sqlalchemy import event
from reviewer.store import Store, bulk, importing
from reviewer.formats.registry import load_all, dataset_formats
from reviewer.jobs import JobContext
url, path, mode = sys.argv[1:4]
if mode != "bulk":  # read in this process (no reading process: reviewer.store.import_feed)
    os.environ["REVIEWER_IMPORT_FEED"] = "0"
if mode == "executemany":  # the old path: SQLAlchemy Core's executemany of insert(), 1,000 rows at a time
    def insert_many(conn, table, rows):
        for start in range(0, len(rows), bulk.CHUNK):
            conn.execute(table.insert(), rows[start : start + bulk.CHUNK])
    importing.insert_many = insert_many
store = Store(url)
load_all()
backends = set()
if store.engine.dialect.name == "postgresql":  # the server process's CPU time, read from /proc (same machine)
    event.listen(store.engine, "connect", lambda dbapi_conn, record: backends.add(dbapi_conn.info.backend_pid))
    store.engine.dispose()
    with store.engine.connect():
        pass
tick = os.sysconf("SC_CLK_TCK")
def server_cpu():
    total = 0.0
    for pid in backends:
        try:
            fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
            total += (int(fields[11]) + int(fields[12])) / tick
        except OSError:
            pass
    return total
t0, c0 = time.perf_counter(), time.process_time()
for _ in dataset_formats()["nestools"].read(path, JobContext()).items:
    pass
reader, reader_cpu = time.perf_counter() - t0, time.process_time() - c0
def children():  # the import's reading process (reviewer.store.import_feed), once it has ended
    ru = resource.getrusage(resource.RUSAGE_CHILDREN)
    return ru.ru_utime + ru.ru_stime, ru.ru_maxrss
base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
k0 = children()[0]
t0, c0, s0 = time.perf_counter(), time.process_time(), server_cpu()
summary = store.import_dataset(path, format="nestools")
elapsed, cpu, scpu = time.perf_counter() - t0, time.process_time() - c0, server_cpu() - s0
kcpu, kpeak = children()[0] - k0, children()[1]
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print(json.dumps({"seconds": elapsed, "cpu": cpu + kcpu, "feed_cpu": kcpu, "server_cpu": scpu, "reader": reader,
                  "reader_cpu": reader_cpu, "items": summary.added, "growth_mb": (peak - base) / 1024,
                  "peak_mb": peak / 1024, "feed_peak_mb": kpeak / 1024 if kcpu else 0.0}))
"""


# 100k NesTools-like items make a 269 MB file: over the 256 MiB limit of a file read whole,
# imported as it is because NesTools files are read a line at a time (_jsonio.file_limit).
# The children run without $REVIEWER_MAX_INPUT_BYTES, as a user's import does.
CHILD_ENV = {key: value for key, value in os.environ.items() if key != "REVIEWER_MAX_INPUT_BYTES"}


def nestools_like(n: int, folder: Path) -> Path:
    """The reference NesTools test set repeated under new ids, with its companion api-ids file."""
    root = REFDATA / "NesTools"
    src = [json.loads(line) for line in (root / "data" / "test_data.jsonl").open()]
    ids = {}
    for line in (root / "inference" / "build_test_prompt" / "test_api_ids.jsonl").open():
        rec = json.loads(line)
        ids[rec["test_id"]] = rec["api_ids"]
    folder.mkdir(parents=True, exist_ok=True)
    with (folder / "test_data.jsonl").open("w") as data, (folder / "test_api_ids.jsonl").open("w") as api:
        for i in range(n):
            rec = dict(src[i % len(src)])
            old, rec["test_id"] = rec["test_id"], i + 1
            data.write(json.dumps(rec) + "\n")
            api.write(json.dumps({"test_id": i + 1, "api_ids": ids.get(old, [])}) + "\n")
    return folder / "test_data.jsonl"


def _pg_schema_url(pg: str):
    import psycopg

    schema = f"bench_import_{uuid.uuid4().hex[:8]}"
    with psycopg.connect(pg, autocommit=True) as conn:
        conn.execute(f"create schema {schema}")
    sep = "&" if "?" in pg else "?"

    def drop():
        with psycopg.connect(pg, autocommit=True) as conn:
            conn.execute(f"drop schema {schema} cascade")

    return f"{pg}{sep}options=-csearch_path%3D{schema}", drop


def nestools_rates(sizes: list[int], repeat: int, pg: str | None) -> None:
    if not (REFDATA / "NesTools" / "data" / "test_data.jsonl").exists():
        print("nestools_like_skipped: 1 (reference data not found)")
        return
    backends = ["sqlite"] + (["postgres"] if pg else [])
    with tempfile.TemporaryDirectory() as tmp:
        rate_per_size: dict[tuple[str, int], float] = {}
        cpu_per_size: dict[tuple[str, int], float] = {}
        for n in sizes:
            path = nestools_like(n, Path(tmp) / f"n{n}")
            k = f"{n // 1000}k" if n % 1000 == 0 else str(n)
            reps = repeat if n < 100_000 else max(1, repeat // 3)
            for backend in backends:
                figures = {}
                for mode in ("bulk", "one_process", "executemany"):
                    runs = []
                    for r in range(reps):
                        if backend == "sqlite":
                            url, drop = str(Path(tmp) / f"{n}_{mode}_{r}.sqlite3"), (lambda: None)
                        else:
                            url, drop = _pg_schema_url(pg)
                        try:
                            proc = subprocess.run(
                                [sys.executable, "-c", NESTOOLS_CHILD, url, str(path), mode],
                                capture_output=True, text=True, cwd=ROOT, env=CHILD_ENV,
                            )
                        finally:
                            drop()
                        if proc.returncode:
                            sys.exit(f"the {mode} import of {n} items on {backend} failed:\n{proc.stderr[-2000:]}")
                        runs.append(json.loads(proc.stdout.strip().splitlines()[-1]))
                    figures[mode] = {
                        "seconds": statistics.median(x["seconds"] for x in runs),
                        "write": statistics.median(x["seconds"] - x["reader"] for x in runs),
                        "cpu": statistics.median(x["cpu"] + x["server_cpu"] for x in runs),
                        "server_cpu": statistics.median(x["server_cpu"] for x in runs),
                        "feed_cpu": statistics.median(x["feed_cpu"] for x in runs),
                        "reader_cpu": statistics.median(x["reader_cpu"] for x in runs),
                        "growth": max(x["growth_mb"] for x in runs),
                        "peak": max(x["peak_mb"] for x in runs),
                        "feed_peak": max(x["feed_peak_mb"] for x in runs),
                    }
                new, old, one = figures["bulk"], figures["executemany"], figures["one_process"]
                rate, write_rate = n / new["seconds"], n / max(one["write"], 1e-9)
                old_rate, old_write_rate = n / old["seconds"], n / max(old["write"], 1e-9)
                cpu_rate, old_cpu_rate = n / new["cpu"], n / old["cpu"]
                rate_per_size[(backend, n)] = rate
                cpu_per_size[(backend, n)] = cpu_rate
                p = f"nestools_like_{k}_{backend}"
                print(f"{p}_import_time: {new['seconds']:.2f} s (executemany {old['seconds']:.2f} s)")
                print(f"{p}_import_rate: {rate:.0f} items/s ({rate / 20_000:.2f} of 20,000; "
                      f"executemany {old_rate:.0f} items/s, {rate / old_rate:.2f} x)")
                # Items per second of CPU (this process plus, on PostgreSQL, its server process):
                # what the import costs, whatever else the shared machine runs at the time.
                print(f"{p}_import_rate_per_cpu_second: {cpu_rate:.0f} items/s ({cpu_rate / 20_000:.2f} of 20,000; "
                      f"executemany {old_cpu_rate:.0f} items/s, {cpu_rate / old_cpu_rate:.2f} x; "
                      f"server share {new['server_cpu'] / new['cpu']:.2f})")
                print(f"{p}_reader_rate_per_cpu_second: {n / new['reader_cpu']:.0f} items/s")
                # Import time less the reader's time, both in one process (so without the reading process).
                print(f"{p}_store_write_rate: {write_rate:.0f} items/s ({write_rate / 20_000:.2f} of 20,000; "
                      f"executemany {old_write_rate:.0f} items/s, {write_rate / old_write_rate:.2f} x)")
                print(f"{p}_reader_share: {1 - one['write'] / one['seconds']:.2f} of the one-process import time")
                # The same bulk writes with the file read in the importing process (no reading process):
                # what the second process adds to the wall rate, and what it costs in CPU.
                print(f"{p}_one_process_import_rate: {n / one['seconds']:.0f} items/s "
                      f"(per CPU second {n / one['cpu']:.0f}; the reading process gives {one['seconds'] / new['seconds']:.2f} x "
                      f"wall, {one['cpu'] / new['cpu']:.2f} x CPU)")
                # Where the CPU goes with the reading process: each part's items per CPU second. On two
                # free cores the wall rate approaches the slowest part's (the server shares the cores).
                importer = new["cpu"] - new["feed_cpu"] - new["server_cpu"]
                feed = f"{n / new['feed_cpu']:.0f} items/s" if new["feed_cpu"] else "not used (file under 8 MB)"
                print(f"{p}_cpu_split: importer {n / max(importer, 1e-9):.0f} items/s, reading process {feed}"
                      + (f", server {n / new['server_cpu']:.0f} items/s" if new["server_cpu"] else "")
                      + " (items per CPU second of each)")
                print(f"{p}_rss_growth: {new['growth']:.0f} MB (executemany {old['growth']:.0f} MB)")
                print(f"{p}_peak_rss: {new['peak']:.0f} MB (reading process {new['feed_peak']:.0f} MB; "
                      f"executemany {old['peak']:.0f} MB)")
        for backend in backends:
            if (backend, sizes[0]) in rate_per_size and (backend, sizes[-1]) in rate_per_size:
                ratio = rate_per_size[(backend, sizes[-1])] / rate_per_size[(backend, sizes[0])]
                cpu_ratio = cpu_per_size[(backend, sizes[-1])] / cpu_per_size[(backend, sizes[0])]
                print(f"nestools_like_{backend}_rate_{sizes[-1]}_vs_{sizes[0]}: {ratio:.2f} x "
                      f"(per CPU second {cpu_ratio:.2f} x; 1.0 = linear cost)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--sizes", default="1000,10000,100000", help="NesTools-like item counts")
    parser.add_argument("--pg", default=os.environ.get("REVIEWER_TEST_PG"), help="PostgreSQL URL to make schemas in")
    parser.add_argument("--only-nestools-like", action="store_true")
    args = parser.parse_args()
    print(f"load_average_1min: {os.getloadavg()[0]:.2f}")
    nestools_rates([int(x) for x in args.sizes.split(",")], args.repeat, args.pg)
    if args.only_nestools_like:
        return
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
