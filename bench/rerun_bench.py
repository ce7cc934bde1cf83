"""Rerun engine throughput against the loopback OpenAI server with 200 ms latency per call.

Ideal throughput at concurrency c is c / 0.2 s calls/s; the engine should
reach at least 0.8 of it at c = 16 (the ratio shows the overhead of the
client, the event loop and HTTP on loopback). The server runs in its own
process, as a real endpoint would (``--in-process`` to share this one), and
one small warm-up run comes first so one-time imports are not counted.
Prints one figure per line as ``name: value unit``.

``gui_max_stall_during_rerun_ms``: the longest gap between ticks of a 10 ms
QTimer in the app's main window while a rerun of the tool-selection sample
(224 calls at concurrency 16) streams its outputs into a SQLite store through
the GUI's JobRunner, the Runs panel showing progress (target <= 50 ms).
Runs offscreen; ``--no-gui`` leaves it out.

    .venv/bin/python bench/rerun_bench.py [--calls 128] [--latency 0.2] [--in-process] [--no-gui]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
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


@contextlib.contextmanager
def loopback_server(latency: float, in_process: bool) -> Iterator[str]:
    """Yield the base URL of a loopback server answering after ``latency`` seconds."""
    if in_process:
        with OpenAIServer(latency=latency) as server:
            yield server.base_url
        return
    command = [sys.executable, "-m", "reviewer.testing.openai_server", "--latency", str(latency)]
    process = subprocess.Popen(command, stdout=subprocess.PIPE, text=True)
    try:
        yield process.stdout.readline().strip()
    finally:
        process.terminate()
        process.wait()


def measure(base_url: str, concurrency: int, calls: int, cache_dir: str | None = None) -> float:
    """Calls per second for ``calls`` calls at ``concurrency`` (cache only with ``cache_dir``)."""
    config = RunConfig(
        base_url=base_url, model="bench", concurrency=concurrency, cache=cache_dir is not None, cache_dir=cache_dir
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
        client = openai.AsyncOpenAI(base_url=base_url, api_key="bench", max_retries=0)
        gate = asyncio.Semaphore(concurrency)

        async def one(n: int) -> None:
            async with gate:
                await client.chat.completions.create(model="bench", messages=[{"role": "user", "content": f"q {n}"}])

        await asyncio.gather(*(one(n) for n in range(calls)))
        await client.close()

    started = time.perf_counter()
    asyncio.run(run())
    return calls / (time.perf_counter() - started)


def measure_gui_stall(base_url: str, replications: int = 7, concurrency: int = 16) -> dict:
    """Start a rerun from the Runs panel of the main window and time the gaps of a 10 ms timer.

    Returns {"max_ms", "p99_ms", "ticks", "calls", "seconds"}.
    """
    import os

    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from PySide6.QtCore import QElapsedTimer, QSettings, QTimer
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
        config = RunConfig(base_url=base_url, model="bench", concurrency=concurrency, replications=replications,
                           cache=False, retries=0)
        gaps: list[float] = []
        clock = QElapsedTimer()
        timer = QTimer(interval=10)
        timer.timeout.connect(lambda: (gaps.append(clock.restart()) if clock.isValid() else clock.start()))
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
        store.close()
    gaps.sort()
    return {"max_ms": gaps[-1], "p99_ms": gaps[int(len(gaps) * 0.99) - 1], "ticks": len(gaps),
            "calls": outcome.report.planned, "seconds": finished[0] - started}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=128)
    parser.add_argument("--latency", type=float, default=0.2)
    parser.add_argument("--in-process", action="store_true", help="run the server in this process")
    parser.add_argument("--no-gui", action="store_true", help="leave out the GUI stall measurement")
    args = parser.parse_args()
    with loopback_server(args.latency, args.in_process) as base_url:
        measure(base_url, 4, 8)  # warm-up: imports and first connections
        for concurrency in (1, 4, 16):
            rate = measure(base_url, concurrency, args.calls)
            ideal = concurrency / args.latency
            print(f"rerun_throughput_c{concurrency}: {rate:.2f} calls/s")
            print(f"rerun_ratio_to_ideal_c{concurrency}: {rate / ideal:.3f} ratio (ideal {ideal:.1f} calls/s)")
        bare = measure_bare_client(base_url, 16, args.calls)
        print(f"bare_openai_client_ratio_to_ideal_c16: {bare / (16 / args.latency):.3f} ratio (no engine, same calls)")
        with tempfile.TemporaryDirectory() as cache_dir:
            measure(base_url, 16, args.calls, cache_dir)  # fills the cache
            rate = measure(base_url, 16, args.calls, cache_dir)
            print(f"rerun_cached_throughput: {rate:.0f} calls/s ({rate / (16 / args.latency):.1f}x the uncached ideal)")
        if not args.no_gui:
            stall = measure_gui_stall(base_url)
            print(f"gui_max_stall_during_rerun_ms: {stall['max_ms']:.0f} ms (target <= 50; 10 ms timer, "
                  f"{stall['calls']} calls at c16 into the store via the JobRunner in {stall['seconds']:.1f} s)")
            print(f"gui_p99_tick_gap_during_rerun_ms: {stall['p99_ms']:.0f} ms ({stall['ticks']} ticks)")


if __name__ == "__main__":
    main()
