"""The review protocol's vocabulary and rules (paper 001 Appendix D, paper 004 §3.3).

An annotator gives each item a verdict (Pass / Fix / Reject) and a rubric:
yes/no checks, an ambiguity rating, a confirmed or corrected difficulty tag,
error tags from the papers' taxonomies, and a note. ``problems`` states which
combinations the protocol forbids (a High ambiguity or a failed check must be
Fix or Reject) and what merely deserves a second look (a fix of many edits may
really be a Reject; a Pass or Fix without an ambiguity rating, which the release
rule withholds).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from reviewer.kinds import ItemKind

VERDICTS = ("pass", "fix", "reject")
AMBIGUITY = ("low", "medium", "high")  # ordinal
DIFFICULTY = ("medium", "hard")

# Yes/no checks of paper 001 Appendix D ("No -> Fix/Reject"), shared by every kind.
CHECKS = ("schema_conformance", "content_faithfulness", "cross_field_consistency")
# Paper 004 §3.3 reviews call chains from two more perspectives.
KIND_CHECKS: dict[str, tuple[str, ...]] = {
    ItemKind.CALL_CHAIN: ("chain_matches_tools", "query_meets_requirements"),
    ItemKind.EXTRACTION: ("length_compliance",),  # source text of at least 1,500 words
}

CHECK_LABELS = {
    "schema_conformance": "Schema conformance: keys, nesting and types match the schema",
    "content_faithfulness": "Content faithfulness: every value is supported by the source",
    "cross_field_consistency": "Cross-field consistency: dates, units and id links agree",
    "chain_matches_tools": "Call chain is consistent with the tools",
    "query_meets_requirements": "Query mentions every non-nested parameter and fits the chain",
    "length_compliance": "Source text has at least 1,500 words",
}

# Error tags, by taxonomy. Paper 000 §4.7; paper 004 §5.5; paper 001 Appendix C.
ERROR_TAGS: dict[str, tuple[str, ...]] = {
    "tool output (paper 000)": (
        "json_structure_misread", "semantic_ambiguity", "format_misalignment", "code_execution_failure",
    ),
    "tool (paper 004)": (
        "tool_selection", "tool_omission", "tool_redundancy", "tool_hallucination", "generation_format",
    ),
    "parameter (paper 004)": (
        "param_omission", "param_redundancy", "param_type", "param_extraction", "param_other",
    ),
    "nested parameter (paper 004)": (
        "nested_hallucination", "nested_omission", "nested_identification", "nested_confusion",
    ),
    "extraction (paper 001)": (
        "type_mismatch", "schema_requirement_ignored", "semantic_hallucination", "extraction_incomplete",
    ),
}
ALL_ERROR_TAGS = tuple(tag for tags in ERROR_TAGS.values() for tag in tags)

TAXONOMIES_BY_KIND: dict[str, tuple[str, ...]] = {
    ItemKind.TOOL_QA: ("tool output (paper 000)",),
    ItemKind.CALL_CHAIN: ("tool (paper 004)", "parameter (paper 004)", "nested parameter (paper 004)"),
    ItemKind.EXTRACTION: ("extraction (paper 001)",),
    ItemKind.SCHEMA_GEN: ("extraction (paper 001)",),
    ItemKind.FUNCTION_CALL: ("tool (paper 004)", "parameter (paper 004)"),
    ItemKind.TOOL_SELECT: ("tool (paper 004)",),
}

MANY_FIX_OPERATIONS = 5  # a "minimal fix" (Appendix D) rarely needs more edits


def checks_for(kind: str) -> tuple[str, ...]:
    return CHECKS + KIND_CHECKS.get(kind, ())


def error_tags_for(kind: str) -> tuple[str, ...]:
    return tuple(tag for tax in TAXONOMIES_BY_KIND.get(kind, tuple(ERROR_TAGS)) for tag in ERROR_TAGS[tax])


def suggested_difficulty(depth: int | None, cross_field: bool = False) -> str | None:
    """Appendix D's tag: Medium = depth 3-4 without cross-field constraints;
    Hard = depth 5-7, or cross-field constraints, or multi-entity linking."""
    if cross_field:
        return "hard"
    if depth is None:
        return None
    return "hard" if depth >= 5 else "medium"


@dataclass
class Draft:
    """What an annotator enters for one item. ``fixed_gold`` only with verdict "fix"."""

    verdict: str | None = None
    checks: dict[str, bool | None] = field(default_factory=dict)
    ambiguity: str | None = None
    difficulty: str | None = None
    error_tags: list[str] = field(default_factory=list)
    note: str = ""
    fixed_gold: Any = None

    def rubric(self) -> dict:
        return {**self.checks, "ambiguity": self.ambiguity, "difficulty": self.difficulty}

    @classmethod
    def from_stored(cls, verdict, rubric: dict | None, error_tags, note, fixed_gold) -> Draft:
        """The draft of stored values; a part of the wrong type (a rubric that is not an object,
        tags that are not a list of strings: another client's writing) reads as empty."""
        rubric = dict(rubric) if isinstance(rubric, dict) else {}
        ambiguity = rubric.pop("ambiguity", None)
        difficulty = rubric.pop("difficulty", None)
        tags = [t for t in error_tags if isinstance(t, str)] if isinstance(error_tags, list) else []
        return cls(verdict if isinstance(verdict, str) else None, rubric, ambiguity, difficulty, tags,
                   note if isinstance(note, str) else "", fixed_gold)


@dataclass(frozen=True)
class Problem:
    level: str  # "error" blocks saving a final verdict; "warning" asks for a second look
    field: str
    message: str


def problems(draft: Draft, kind: str, patch_ops: int = 0) -> list[Problem]:
    """The protocol's rules applied to a draft. Errors must be resolved before the
    verdict counts; warnings are shown but do not block."""
    out: list[Problem] = []
    if draft.verdict is not None and draft.verdict not in VERDICTS:
        out.append(Problem("error", "verdict", f"unknown verdict {draft.verdict!r}"))
    if draft.ambiguity is not None and draft.ambiguity not in AMBIGUITY:
        out.append(Problem("error", "ambiguity", f"unknown ambiguity {draft.ambiguity!r}"))
    if draft.difficulty is not None and draft.difficulty not in DIFFICULTY:
        out.append(Problem("error", "difficulty", f"unknown difficulty {draft.difficulty!r}"))
    unknown = [t for t in draft.error_tags if t not in ALL_ERROR_TAGS]
    if unknown:
        out.append(Problem("error", "error_tags", f"unknown error tags: {', '.join(unknown)}"))
    if draft.verdict == "pass":
        if draft.ambiguity == "high":
            out.append(Problem("error", "verdict", "High ambiguity must be Fix or Reject"))
        failed = [c for c in checks_for(kind) if draft.checks.get(c) is False]
        if failed:
            out.append(Problem("error", "verdict", f"failed check ({', '.join(failed)}) must be Fix or Reject"))
    if draft.verdict in ("pass", "fix") and draft.ambiguity is None:
        # A warning, not an error: P stays one key, and the release rule withholds the item
        # ("ambiguity not rated") until someone rates it; no default is invented for the rater.
        out.append(Problem("warning", "ambiguity",
                           "ambiguity not rated: the item is not released as Gold until it is (A)"))
    if draft.verdict == "reject" and not draft.error_tags and not draft.note.strip():
        # A warning, not an error: R stays one key. But a Reject that says nothing leaves the
        # adjudicator comparing "reject" with nothing to weigh, and the release report without a why.
        out.append(Problem("warning", "error_tags",
                           "a Reject with no error tag and no note: say why (tag it, or write a note)"))
    if draft.verdict == "fix":
        if draft.fixed_gold is None:
            out.append(Problem("error", "fixed_gold", "a Fix needs the corrected gold"))
        elif patch_ops == 0:
            out.append(Problem("error", "fixed_gold", "the fix does not change the gold"))
        elif patch_ops > MANY_FIX_OPERATIONS:
            out.append(Problem(
                "warning", "fixed_gold",
                f"this fix makes {patch_ops} edits; fixes should be minimal, so this may be a Reject",
            ))
    return out
