"""Rerun engine throughput against the loopback OpenAI server with 200 ms latency per call.

Ideal throughput at concurrency c is c / 0.2 s calls/s; the engine should
reach at least 0.8 of it at c = 16 (the ratio shows the overhead of the
client, the event loop and HTTP on loopback). The server runs in its own
process, as a real endpoint would (``--in-process`` to share this one), and
one small warm-up run comes first so one-time imports are not counted.
Prints one figure per line as ``name: value unit``.

    .venv/bin/python bench/rerun_bench.py [--calls 128] [--latency 0.2] [--in-process]
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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=128)
    parser.add_argument("--latency", type=float, default=0.2)
    parser.add_argument("--in-process", action="store_true", help="run the server in this process")
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


if __name__ == "__main__":
    main()
