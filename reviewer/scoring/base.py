"""The scorer seam: one module per benchmark, each scoring one output at a time.

A scorer is pure: it reads an item's gold and source fields and one model
output and returns metrics. It never touches the store; the scoring job
(reviewer/scoring/job.py) loads items and outputs, calls scorers and saves
the results with the mode recorded beside them.

Modes: ``faithful`` reproduces the benchmark's official scorer, quirks included
(each quirk is named in the scorer's docstring); ``fixed`` corrects the quirks
that make the official number wrong.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

Mode = Literal["faithful", "fixed"]
MODES: tuple[Mode, ...] = ("faithful", "fixed")


@dataclass
class ScoringItem:
    """What a scorer may read of an item (see reviewer.formats.base.ItemRecord)."""

    record_id: str
    kind: str
    gold: Any
    raw: dict = field(default_factory=dict)
    payload: dict = field(default_factory=dict)
    context: str | None = None  # tool response / source document, JSON text
    schema: str | None = None  # JSON Schema text
    category: str | None = None
    depth: int | None = None


@dataclass
class ScoringOutput:
    """One model output: the raw text and, when the format has one, the prediction."""

    text: str | None
    prediction: Any = None
    extra: dict = field(default_factory=dict)
    status: str = "ok"  # "error" outputs (failed calls) are scored as the benchmark does


@dataclass
class ScoreResult:
    """Metrics of one output.

    ``metrics`` maps metric names to numbers or booleans (None = not applicable);
    ``primary`` names the headline metric; ``passed`` is True when the output is
    fully correct by that metric; ``skipped`` marks outputs the official scorer
    drops before averaging (they count in no denominator); ``notes`` explain,
    in words a reviewer reads, why the score is what it is (quirks applied,
    parse errors, validation errors with JSON paths).
    """

    metrics: dict[str, Any]
    primary: str
    passed: bool | None
    skipped: bool = False
    notes: list[str] = field(default_factory=list)

    @property
    def value(self) -> Any:
        return self.metrics.get(self.primary)


class Scorer(Protocol):
    name: str  # e.g. "tooljson"
    kind: str  # the ItemKind it scores

    def score(self, item: ScoringItem, output: ScoringOutput, mode: Mode = "faithful") -> ScoreResult: ...

    def aggregate(self, pairs: list[tuple[ScoringItem, ScoreResult]]) -> dict[str, Any]:
        """The benchmark's own summary numbers over a run (micro/macro as it does)."""
