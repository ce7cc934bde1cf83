"""The guards, in the order they are shown and run."""

from __future__ import annotations

from reviewer.guards.constraints import ConstraintGuard
from reviewer.guards.gold_program import GoldProgramGuard
from reviewer.guards.grounding import GroundingGuard
from reviewer.guards.length import LengthGuard
from reviewer.guards.names import GUARD_NAMES, LABELS
from reviewer.guards.schema import SchemaGuard

# Per-item guards: each result depends on the item (and the dataset's settings) alone.
ITEM_GUARDS = (SchemaGuard(), ConstraintGuard(), GroundingGuard(), LengthGuard(), GoldProgramGuard())
# Cheap enough to recompute on the fly (the release rule does, for results gone stale).
CHEAP_GUARDS = ("schema", "constraints", "grounding", "length")
LEAKAGE = "leakage"  # dataset-wide: each source against the others, the prompts and a corpus
BY_NAME = {g.name: g for g in ITEM_GUARDS}
assert GUARD_NAMES == tuple(BY_NAME) + (LEAKAGE,) and all(LABELS[g.name] == g.label for g in ITEM_GUARDS)
