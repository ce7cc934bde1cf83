"""Rerun throughput against the loopback OpenAI server with 200 ms latency per call, and the GUI's stalls.

Ideal throughput at concurrency c is c / 0.2 s calls/s; the target at c = 16
is 0.9 of it, and ahead of a bare ``AsyncOpenAI`` client (a semaphore and
``chat.completions.create``) measured on the same server in the same rounds.
Each round measures engine and bare client at c1/c4/c16 (alternating who goes
first, so drifting machine load hits both alike) and the job path
(``reviewer.rerun.job.rerun``: the engine plus the store writes, into SQLite);
medians over the rounds are printed. The server runs in its own process, as a
real endpoint would (``--in-process`` to share this one); its CPU per call is
read from /proc and printed as its ceiling, so it is seen not to be the limit.
Prints one figure per line as ``name: value unit``.

``gui_max_stall_during_rerun_ms``: the longest gap between ticks of a 10 ms
QTimer in the app's main window while a rerun of the tool-selection sample
(224 calls at concurrency 16) streams its outputs into a SQLite store through
the GUI's JobRunner, the Runs panel showing progress (target <= 50 ms); beside
it the same timer in the same window with nothing running (the machine's own
share of the gaps). Runs offscreen; ``--no-gui`` leaves it out.

    .venv/bin/python bench/rerun_bench.py [--rounds 5] [--seconds 3.2] [--latency 0.2] [--in-process] [--no-gui]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator

import openai

from reviewer.jobs import JobContext
from reviewer.rerun.config import RunConfig
from reviewer.rerun.engine import PlannedCall, execute
from reviewer.rerun.prompts.base import ChatRequest
from reviewer.testing.openai_server import OpenAIServer


class ServerHandle(str):
    """The base URL of the loopback server; ``cpu_seconds()`` is the CPU its process used so far."""

    pid: int | None = None

    def cpu_seconds(self) -> float | None:
        if self.pid is None:
            return None
        fields = open(f"/proc/{self.pid}/stat").read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


@contextlib.contextmanager
def loopback_server(latency: float, in_process: bool) -> Iterator[ServerHandle]:
    """Yield the base URL of a loopback server answering after ``latency`` seconds."""
    if in_process:
        with OpenAIServer(latency=latency) as server:
            yield ServerHandle(server.base_url)
        return
    command = [sys.executable, "-m", "reviewer.testing.openai_server", "--latency", str(latency)]
    process = subprocess.Popen(command, stdout=subprocess.PIPE, text=True)
    try:
        handle = ServerHandle(process.stdout.readline().strip())
        handle.pid = process.pid
        yield handle
    finally:
        process.terminate()
        process.wait()


def measure(base_url: str, concurrency: int, calls: int, cache_dir: str | None = None) -> float:
    """Calls per second for ``calls`` calls at ``concurrency`` (cache only with ``cache_dir``)."""
    config = RunConfig(
        base_url=str(base_url), model="bench", concurrency=concurrency, cache=cache_dir is not None, cache_dir=cache_dir
    )
    planned = [PlannedCall(f"r{n}", 0, ChatRequest([{"role": "user", "content": f"question {n}"}])) for n in range(calls)]
    received = []
    started = time.perf_counter()
    execute(planned, config, JobContext(), received.append)
    elapsed = time.perf_counter() - started
    if len(received) != calls or any(r.status != "ok" for r in received):
        raise SystemExit(f"benchmark run failed: {[r.error for r in received if r.status != 'ok'][:3]}")
    return calls / elapsed


def measure_bare_client(base_url: str, concurrency: int, calls: int) -> float:
    """The same calls through a bare ``AsyncOpenAI`` and a semaphore: the floor the engine sits on."""

    async def run() -> None:
        client = openai.AsyncOpenAI(base_url=str(base_url), api_key="bench", max_retries=0)
        gate = asyncio.Semaphore(concurrency)

        async def one(n: int) -> None:
            async with gate:
                await client.chat.completions.create(model="bench", messages=[{"role": "user", "content": f"q {n}"}])

        await asyncio.gather(*(one(n) for n in range(calls)))
        await client.close()

    started = time.perf_counter()
    asyncio.run(run())
    return calls / (time.perf_counter() - started)


def measure_gui_stall(base_url: str, replications: int = 7, concurrency: int = 16, idle_seconds: float = 3.0) -> dict:
    """Start a rerun from the Runs panel of the main window and time the gaps of a 10 ms timer.

    Returns {"max_ms", "p99_ms", "ticks", "calls", "seconds", "longest" [(gap ms, at s)],
    "idle_max_ms", "idle_p99_ms"} (the idle figures: the same timer for ``idle_seconds`` before the rerun).
    """
    import os

    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from PySide6.QtCore import QCoreApplication, QElapsedTimer, QEvent, QSettings, QTimer
    from PySide6.QtWidgets import QApplication

    from reviewer.samples import ensure_samples
    from reviewer.store import Store
    from reviewer_ui.main_window import MainWindow
    from reviewer_ui.runs.rerun_dialog import RerunRequest

    app = QApplication.instance() or QApplication([])
    with tempfile.TemporaryDirectory() as tmp:
        store = Store(f"{tmp}/bench.sqlite3")
        ensure_samples(store)
        window = MainWindow(store, QSettings(f"{tmp}/settings.ini", QSettings.Format.IniFormat))
        window.resize(1500, 900)
        window.show()
        panel = window.runs_panel

        def spin_until(condition, timeout: float) -> None:
            deadline = time.monotonic() + timeout
            while not condition():
                if time.monotonic() > deadline:
                    raise SystemExit("gui stall benchmark: timed out")
                app.processEvents()
                time.sleep(0.005)

        spin_until(lambda: bool(window.datasets), 10)
        window.select_dataset("sample-tool-selection")
        spin_until(lambda: panel.dataset is not None and panel.dataset.name == "sample-tool-selection"
                   and panel.runs_table.rowCount() > 0, 10)
        config = RunConfig(base_url=str(base_url), model="bench", concurrency=concurrency,
                           replications=replications, cache=False, retries=0)
        gaps: list[float] = []
        clock = QElapsedTimer()
        timer = QTimer(interval=10)
        when: list[float] = []  # seconds after the start at which each gap ended

        def tick() -> None:
            if clock.isValid():
                gaps.append(clock.restart())
                when.append(time.perf_counter() - started)
            else:
                clock.start()

        timer.timeout.connect(tick)
        # The same window and timer with nothing running, as long as a rerun takes: what the
        # machine's load alone does to the timer in this run.
        idle_gaps: list[float] = []
        idle_clock = QElapsedTimer()
        idle_timer = QTimer(interval=10)
        idle_timer.timeout.connect(
            lambda: idle_gaps.append(idle_clock.restart()) if idle_clock.isValid() else idle_clock.start())
        idle_timer.start()
        idle_until = time.monotonic() + idle_seconds
        spin_until(lambda: time.monotonic() > idle_until, idle_seconds + 10)
        idle_timer.stop()
        finished: list = []
        started = time.perf_counter()
        panel.start_rerun(RerunRequest("bench", config, "all"))
        window.runner.job("runs:work").done.connect(lambda: finished.append(time.perf_counter()))
        timer.start()
        spin_until(lambda: bool(finished), 120)
        timer.stop()
        outcome = panel.last_outcome
        if outcome is None or outcome.report.summary.errors:
            raise SystemExit(f"gui stall benchmark: the rerun failed ({panel.status.text()})")
        window.runner.shutdown(5000)
        window.close()
        # Deleted before its folder is: a closed window's timers still started reads of the removed
        # file in the next run's event loop ("reading items failed: unable to open database file").
        window.deleteLater()
        QCoreApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)
        store.close()
    worst = max(range(len(gaps)), key=gaps.__getitem__)
    longest = sorted(zip(gaps, when), reverse=True)[:5]
    gaps.sort()
    return {"max_ms": gaps[-1], "p99_ms": gaps[int(len(gaps) * 0.99) - 1], "ticks": len(gaps),
            "calls": outcome.report.planned, "seconds": finished[0] - started,
            "longest": [(round(g), round(t, 2)) for g, t in longest],
            "idle_max_ms": max(idle_gaps), "idle_p99_ms": sorted(idle_gaps)[int(len(idle_gaps) * 0.99) - 1]}


def measure_job(base_url: str, store, run_name: str, concurrency: int, replications: int) -> float:
    """Calls per second of ``reviewer.rerun.job.rerun`` (the CLI's and GUI's path) into ``store``."""
    from reviewer.rerun.job import rerun

    config = RunConfig(base_url=str(base_url), model="bench", concurrency=concurrency, replications=replications,
                       cache=False, retries=0)
    started = time.perf_counter()
    report = rerun(store, "sample-tool-selection", run_name, config)
    elapsed = time.perf_counter() - started
    if report.summary.ok != report.planned:
        raise SystemExit(f"benchmark job failed: {report.summary}")
    return report.planned / elapsed


def _median_line(name: str, values: list[float], target: float | None = None, extra: str = "") -> str:
    value = statistics.median(values)
    parts = [f"median of {len(values)}, range {min(values):.3f}-{max(values):.3f}"]
    if target is not None:
        parts.append(f"{value / target:.2f} of the {target} target")
    if extra:
        parts.append(extra)
    return f"{name}: {value:.3f} ratio ({'; '.join(parts)})"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=3.2, help="ideal duration of each measured run")
    parser.add_argument("--rounds", type=int, default=5, help="rounds of engine-then-bare measurements")
    parser.add_argument("--latency", type=float, default=0.2)
    parser.add_argument("--in-process", action="store_true", help="run the server in this process")
    parser.add_argument("--no-gui", action="store_true", help="leave out the GUI stall measurement")
    parser.add_argument("--gui-runs", type=int, default=3, help="GUI stall measurements (the max of each)")
    parser.add_argument("--switch-interval-ms", type=float,
                        help="set the GIL switch interval (the app keeps the interpreter's 5 ms; it once set "
                        "1 ms, which made no measurable difference to the GUI's stalls once the calls ran "
                        "in their own process: 20-22 vs 20 ms at load 3.4, 40/52 vs 44/56 ms at load 6-7.7)")
    args = parser.parse_args()
    if args.switch_interval_ms:
        sys.setswitchinterval(args.switch_interval_ms / 1000)
    levels = (1, 4, 16)
    with loopback_server(args.latency, args.in_process) as base_url, tempfile.TemporaryDirectory() as tmp:
        from reviewer.samples import ensure_samples
        from reviewer.store import Store

        store = Store(f"{tmp}/bench.sqlite3")
        ensure_samples(store)
        measure(base_url, 4, 8)  # warm-up: imports and first connections
        measure_bare_client(base_url, 4, 8)
        engine: dict[int, list[float]] = {c: [] for c in levels}
        bare: dict[int, list[float]] = {c: [] for c in levels}
        job: list[float] = []
        wins = 0
        calls_sent = 0
        server_cpu = base_url.cpu_seconds()
        for round_ in range(args.rounds):
            for c in levels:
                ideal = c / args.latency
                calls = max(c, round(ideal * args.seconds))
                # Alternate who goes first, so a change of machine load hits both alike.
                order = ("engine", "bare") if round_ % 2 == 0 else ("bare", "engine")
                for who in order:
                    rate = measure(base_url, c, calls) if who == "engine" else measure_bare_client(base_url, c, calls)
                    (engine if who == "engine" else bare)[c].append(rate / ideal)
                    calls_sent += calls
                if c == 16:
                    wins += engine[c][-1] > bare[c][-1]
            replications = max(1, round(16 / args.latency * args.seconds / 32))
            job.append(measure_job(base_url, store, f"bench-{round_}", 16, replications) / (16 / args.latency))
            calls_sent += 32 * replications
        server_cpu = (base_url.cpu_seconds() - server_cpu) if server_cpu is not None else None
        for c in levels:
            e, b = statistics.median(engine[c]), statistics.median(bare[c])
            print(_median_line(f"rerun_ratio_to_ideal_c{c}", engine[c], 0.9 if c == 16 else None,
                               f"{e * c / args.latency:.1f} of {c / args.latency:.0f} calls/s; "
                               f"bare AsyncOpenAI {b:.3f} in the same rounds, engine/bare {e / b:.3f}"))
            print(_median_line(f"bare_openai_client_ratio_to_ideal_c{c}", bare[c]))
        print(f"rerun_ahead_of_bare_client_c16: {wins} of {args.rounds} rounds")
        print(_median_line("rerun_job_into_sqlite_ratio_to_ideal_c16", job, 0.9,
                           "reviewer.rerun.job.rerun: engine plus the store writes, tool-selection prompts"))
        if server_cpu is not None:
            per_call = server_cpu / calls_sent
            print(f"loopback_server_cpu_per_call: {per_call * 1000:.2f} ms (its ceiling on one core: "
                  f"{1 / per_call:.0f} calls/s, {1 / per_call / (16 / args.latency):.1f}x the c16 ideal)")
        with tempfile.TemporaryDirectory() as cache_dir:
            calls = round(16 / args.latency * args.seconds)
            measure(base_url, 16, calls, cache_dir)  # fills the cache
            rate = measure(base_url, 16, calls, cache_dir)
            print(f"rerun_cached_throughput: {rate:.0f} calls/s ({rate / (16 / args.latency):.1f}x the uncached ideal)")
        store.close()
        if not args.no_gui:
            stalls = [measure_gui_stall(base_url) for _ in range(args.gui_runs)]
            worst = [s["max_ms"] for s in stalls]
            idle = [s["idle_max_ms"] for s in stalls]
            print(f"gui_max_stall_during_rerun_ms: {statistics.median(worst):.0f} ms (median of {len(worst)} runs' "
                  f"max, each {', '.join(f'{w:.0f}' for w in worst)}; target <= 50, "
                  f"{statistics.median(worst) / 50:.2f} of it; 10 ms timer, {stalls[0]['calls']} calls at c16 "
                  f"into the store via the JobRunner in {statistics.median(s['seconds'] for s in stalls):.1f} s)")
            print(f"gui_max_timer_gap_idle_ms: {statistics.median(idle):.0f} ms (the same window with nothing "
                  f"running, just before each rerun: {', '.join(f'{w:.0f}' for w in idle)}; the machine's share)")
            print(f"gui_p99_tick_gap_during_rerun_ms: {statistics.median(s['p99_ms'] for s in stalls):.0f} ms "
                  f"(idle {statistics.median(s['idle_p99_ms'] for s in stalls):.0f} ms; {stalls[0]['ticks']} ticks)")
            for n, s in enumerate(stalls):
                print(f"  gui run {n + 1}: longest gaps (ms, at s) {s['longest']}")

if __name__ == "__main__":
    main()
