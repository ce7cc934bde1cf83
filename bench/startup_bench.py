"""Start-up: `reviewer list`, the app's first and second start, and the wheel's size
(issues 14 and 17). Prints ``name: value unit`` lines, medians of fresh processes.

    .venv/bin/python bench/startup_bench.py [--runs 5] [--first-runs 3] [--baseline-src DIR] [--no-wheel]

Targets: `reviewer list` <= 200 ms; second start to a painted window with the samples
<= 1 s; first start to a usable window <= 1.5 s. Each figure is printed with its ratio
to the target and to a figure measured in the same run:
- `reviewer list` beside the same listing through the Store (SQLAlchemy and SQLModel,
  what the command did before) and beside a bare `python -c pass`;
- with ``--baseline-src DIR`` (a checkout of an earlier version, e.g. the main branch),
  every start measured again with that code on the path.
The figures recorded in the issues before this work are printed as `*_issue_before`.
Times are from the moment the parent starts the process (interpreter start-up included).
Machine load is printed first and last: quote figures with it.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PROBE = ROOT / "bench" / "startup_probe.py"

TARGETS = {"reviewer_list": 0.200, "second_start_to_painted_window": 1.0, "first_start_to_usable_window": 1.5}
ISSUE_BEFORE = {"reviewer_list": 0.884, "second_start_to_painted_window": 3.06,
                "first_start_to_usable_window": 11.9, "first_start_to_scored_samples": 11.9}

# CPU seconds of importing the store's stack (SQLAlchemy, SQLModel, pydantic and the
# core modules the window imports before PySide6): the share of a second start that a
# window free of SQLAlchemy on its import path would save.
CORE_IMPORT = r"""
import time
t = time.process_time()
from reviewer_ui import app
app.preload_core()
print(time.process_time() - t)
"""

STORE_LIST = r"""
import sys
import reviewer.cli as cli
cli._catalog = cli._store  # the listing through the Store, as before reviewer.store.catalog
sys.exit(cli.main(sys.argv[1:]))
"""


def env_for(src: Path, home: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "REVIEWER_DB"}
    env.update(PYTHONPATH=str(src), QT_QPA_PLATFORM="offscreen", XDG_CONFIG_HOME=str(home / "config"),
               XDG_DATA_HOME=str(home / "data"), PYTHONDONTWRITEBYTECODE="")
    return env


def timed(cmd: list[str], env: dict[str, str]) -> float:
    t0 = time.perf_counter()
    proc = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=300)
    elapsed = time.perf_counter() - t0
    if proc.returncode != 0:
        raise SystemExit(f"failed: {' '.join(cmd)}\n{proc.stderr[-2000:]}")
    return elapsed


def probe(db: Path, until: str, env: dict[str, str]) -> dict:
    launch = time.time()
    proc = subprocess.run([sys.executable, str(PROBE), str(db), repr(launch), "--until", until], env=env,
                          capture_output=True, text=True, timeout=300)
    lines = [line for line in proc.stdout.splitlines() if line.startswith("{")]
    if proc.returncode != 0 or not lines:
        raise SystemExit(f"probe failed ({until}):\n{proc.stdout[-1000:]}\n{proc.stderr[-2000:]}")
    return json.loads(lines[-1])


def report(name: str, values: list[float], unit: str = "s", peer: tuple[str, float] | None = None) -> float:
    med = statistics.median(values)
    scale = 1000 if unit == "ms" else 1
    print(f"{name}: {med * scale:.0f} {unit}" if unit == "ms" else f"{name}: {med:.2f} {unit}")
    print(f"{name}_runs: {' '.join(f'{v * scale:.0f}' if unit == 'ms' else f'{v:.2f}' for v in values)} {unit}")
    if name in TARGETS:
        print(f"{name}_vs_target_{TARGETS[name]:g}s: {med / TARGETS[name]:.2f} ratio")
    if peer is not None:
        print(f"{name}_vs_{peer[0]}: {med / peer[1]:.2f} ratio")
    if name in ISSUE_BEFORE:
        before = ISSUE_BEFORE[name]
        print(f"{name}_issue_before: {before * scale:.0f} {unit}" if unit == "ms"
              else f"{name}_issue_before: {before:.2f} {unit}")
    return med


def sample_db(src: Path, home: Path, path: Path) -> Path:
    """A store holding the samples, imported and scored (what a second start finds)."""
    code = ("import sys; from reviewer.store import Store; from reviewer.samples import ensure_samples;"
            "s = Store(sys.argv[1]); ensure_samples(s, score=True); s.close()")
    subprocess.run([sys.executable, "-c", code, str(path)], env=env_for(src, home), check=True, timeout=600)
    return path


def measure(sources: dict[str, Path], args, work: Path) -> dict[str, dict]:
    """Every start figure for each source folder (tag -> code); the runs of the sources
    alternate (run 1 of each, then run 2 of each, ...), so load that changes during the
    bench weighs on each source alike and the ratios between them stay fair."""
    setup = {}
    for tag, src in sources.items():
        home = work / f"home{tag}"
        setup[tag] = (env_for(src, home), sample_db(src, home, work / f"samples{tag}.sqlite3"))
    out: dict[str, dict] = {tag: {"_list_runs": [], "_second": [], "_first": []} for tag in sources}

    def cli(tag):
        return [sys.executable, "-m", "reviewer.cli", "--db", str(setup[tag][1]), "list"]

    for tag in sources:  # warm the file cache and bytecode
        timed(cli(tag), setup[tag][0])
        probe(setup[tag][1], "painted", setup[tag][0])
    store_list = [sys.executable, "-c", STORE_LIST, "--db", str(setup[""][1]), "list"]
    timed(store_list, setup[""][0])
    store_runs, bare_runs, core_runs = [], [], []
    for _ in range(args.runs):
        for tag in sources:
            out[tag]["_list_runs"].append(timed(cli(tag), setup[tag][0]))
        store_runs.append(timed(store_list, setup[""][0]))
        bare_runs.append(timed([sys.executable, "-c", "pass"], setup[""][0]))
        core = subprocess.run([sys.executable, "-c", CORE_IMPORT], env=setup[""][0], capture_output=True,
                              text=True, timeout=120, check=True)
        core_runs.append(float(core.stdout.split()[-1]))
    out[""]["reviewer_list_through_store"] = statistics.median(store_runs)
    out[""]["python_bare_start"] = statistics.median(bare_runs)
    out[""]["window_core_import_cpu"] = statistics.median(core_runs)
    for _ in range(args.runs):
        for tag in sources:
            out[tag]["_second"].append(probe(setup[tag][1], "painted", setup[tag][0]))
    for n in range(args.first_runs):
        for tag in sources:
            out[tag]["_first"].append(probe(work / f"first{tag}-{n}.sqlite3", "scored", setup[tag][0]))

    for tag, o in out.items():
        second, first = o["_second"], o["_first"]
        o["reviewer_list"] = statistics.median(o["_list_runs"])
        o["_second_runs"] = [r["painted_samples"] for r in second]
        o["second_start_to_painted_window"] = statistics.median(o["_second_runs"])
        o["second_start_to_painted_window_cpu"] = statistics.median(r["painted_samples_cpu"] for r in second)
        o["first_start_to_usable_window"] = statistics.median(r["window"] for r in first)
        o["first_start_to_scored_samples"] = statistics.median(r["scored"] for r in first)
        o["first_start_max_gui_stall"] = statistics.median(r["max_stall"] for r in first)
        o["first_start_to_usable_window_cpu"] = statistics.median(r["window_cpu"] for r in first)
        o["first_start_to_scored_samples_cpu"] = statistics.median(r["scored_cpu"] for r in first)
        o["_first_runs"] = first
    return out


def wheel_size(work: Path) -> int | None:
    try:
        import build  # noqa: F401
    except ImportError:
        return None
    src = work / "wheel-src"
    listed = subprocess.run(["git", "ls-files", "-co", "--exclude-standard", "-z"], cwd=ROOT, capture_output=True)
    for name in filter(None, listed.stdout.decode().split("\0")):
        if (ROOT / name).is_file():
            (src / name).parent.mkdir(parents=True, exist_ok=True)
            (src / name).write_bytes((ROOT / name).read_bytes())
    proc = subprocess.run([sys.executable, "-m", "build", "--wheel", "--outdir", str(work / "dist"), str(src)],
                          capture_output=True, text=True, timeout=900)
    wheels = list((work / "dist").glob("*.whl")) if proc.returncode == 0 else []
    return wheels[0].stat().st_size if wheels else None


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5, help="processes per figure (median)")
    parser.add_argument("--first-runs", type=int, default=3, help="first starts (each imports and scores the samples)")
    parser.add_argument("--baseline-src", type=Path, help="an earlier checkout to measure in the same run")
    parser.add_argument("--no-wheel", action="store_true", help="skip building the wheel for its size")
    args = parser.parse_args()
    print(f"load_before: {os.getloadavg()[0]:.1f} (1-minute average, {os.cpu_count()} cores)")
    with tempfile.TemporaryDirectory(prefix="reviewer-startup-") as tmp:
        work = Path(tmp)
        sources = {"": ROOT}
        if args.baseline_src:
            sources["_baseline"] = args.baseline_src.resolve()
        measured = measure(sources, args, work)
        now, before = measured[""], measured.get("_baseline", {})

        def peer(name):
            return ("baseline", before[name]) if name in before else None

        print(f"python_bare_start: {now['python_bare_start'] * 1000:.0f} ms")
        report("reviewer_list", now["_list_runs"], "ms", ("store_path", now["reviewer_list_through_store"]))
        print(f"reviewer_list_through_store: {now['reviewer_list_through_store'] * 1000:.0f} ms")
        if before:
            print(f"reviewer_list_baseline: {before['reviewer_list'] * 1000:.0f} ms")
        report("second_start_to_painted_window", now["_second_runs"], "s", peer("second_start_to_painted_window"))
        if before:
            print(f"second_start_to_painted_window_baseline: {before['second_start_to_painted_window']:.2f} s")
        first = now["_first_runs"]
        report("first_start_to_usable_window", [r["window"] for r in first], "s",
               peer("first_start_to_usable_window"))
        report("first_start_to_scored_samples", [r["scored"] for r in first], "s",
               peer("first_start_to_scored_samples"))
        report("first_start_max_gui_stall", [r["max_stall"] for r in first], "ms",
               ("baseline", before["first_start_max_gui_stall"]) if before else None)
        if before:
            print(f"first_start_max_gui_stall_baseline: {before['first_start_max_gui_stall'] * 1000:.0f} ms")
        # What the GUI thread itself computed between the first paint and the samples'
        # end (its CPU seconds, whatever the load): the window's share of the first start.
        gui = [r["scored_gui_cpu"] - r["window_gui_cpu"] for r in first]
        report("first_start_gui_thread_cpu_after_window", gui, "ms",
               ("baseline", statistics.median(r["scored_gui_cpu"] - r["window_gui_cpu"] for r in before["_first_runs"]))
               if before else None)
        if before:
            for name in ("first_start_to_usable_window", "first_start_to_scored_samples"):
                print(f"{name}_baseline: {before[name]:.2f} s")
        # CPU seconds of the app's process until the same moments: what the wall times
        # shrink to when the machine is not shared (a start is single-core bound).
        for name in ("second_start_to_painted_window", "first_start_to_usable_window",
                     "first_start_to_scored_samples"):
            line = f"{name}_cpu: {now[name + '_cpu']:.2f} s"
            if name in TARGETS:
                line += f" ({now[name + '_cpu'] / TARGETS[name]:.2f} of target)"
            if before:
                line += f" (baseline {before[name + '_cpu']:.2f} s, ratio {now[name + '_cpu'] / before[name + '_cpu']:.2f})"
            print(line)
        core = now["window_core_import_cpu"]
        print(f"window_core_import_cpu: {core:.2f} s ({core / now['second_start_to_painted_window_cpu']:.2f} of "
              f"second_start_to_painted_window_cpu)")
        if not args.no_wheel:
            size = wheel_size(work)
            print(f"wheel_size: {size / 1024:.0f} KiB" if size else "wheel_size_skipped: 1 (python -m build failed)")
    print(f"load_after: {os.getloadavg()[0]:.1f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
