"""The one place the guards reach the sandbox.

reviewer.sandbox is being reworked (bubblewrap); everything the guards need from it
is ``run_programs`` below, coded against the sandbox's public API of today
(``run_many((code, entry, args), limits)`` returning results with ``ok``, ``value``,
``error``). When that API changes, re-point this function and nothing else.
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
