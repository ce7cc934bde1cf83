"""The one place the guards reach the sandbox.

Everything the guards need from reviewer.sandbox (bubblewrap isolation) is
``run_programs`` below, over its public ``run_many((code, entry, args), limits)``.
A program that could not run (no isolation available) comes back not ok, with the
sandbox's "not run: ..." message as its error.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class ProgramRun:
    ok: bool
    value: Any = None
    error: str | None = None


def run_programs(jobs: list[tuple[str, str, Any]], cpu_seconds: int = 10, wall_seconds: float = 20.0) -> list[ProgramRun]:
    """Run each ``(code, entry function, argument)`` in the sandbox; the function is
    called with the one argument. Results in the order of ``jobs``."""
    if not jobs:
        return []
    from reviewer.sandbox import Limits, run_many

    limits = Limits(cpu_seconds=cpu_seconds, wall_seconds=wall_seconds)
    results = run_many([(code, entry, [arg]) for code, entry, arg in jobs], limits)
    return [ProgramRun(r.ok, r.value, r.error) for r in results]
