"""Gold release (paper 001 Appendix D, "Acceptance and Release").

An item is released as Gold when (i) it passed dual review, after adjudication
(its settled verdict is Pass or Fix), (ii) its gold passes the automatic checks
that exist for its kind, and (iii) its settled ambiguity is Low or Medium (a settled
Pass or Fix with no ambiguity rating is withheld as "ambiguity not rated").
``gold_status`` says, per item, whether it is Gold and if not, why not.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sqlalchemy import select

from reviewer.kinds import ItemKind
from reviewer.review.patch import make_patch
from reviewer.store import exporting
from reviewer.store.item_json import ITEM_COLUMNS, stored_payload
from reviewer.store.models import Adjudication, Annotation, Blob, Item

item_t, ann_t, adj_t, blob_t = Item.__table__, Annotation.__table__, Adjudication.__table__, Blob.__table__


@dataclass(frozen=True)
class GoldStatus:
    item_id: int
    record_id: str
    released: bool
    reasons: list[str]  # why not released; empty when released


def automatic_checks(kind: str, gold: Any, schema_text: str | None) -> list[str]:
    """Failures of the checks that exist for the kind (empty = all pass)."""
    if kind == ItemKind.SCHEMA_GEN:
        return []  # no single gold to check
    if gold is None or gold == "":
        return ["the gold is empty"]
    failures: list[str] = []
    if kind == ItemKind.EXTRACTION and schema_text:
        failures += _schema_failures(gold, schema_text)
    if kind == ItemKind.CALL_CHAIN:
        failures += _chain_reference_failures(gold)
    return failures


def _schema_failures(gold: Any, schema_text: str) -> list[str]:
    import jsonschema

    try:
        schema = json.loads(schema_text)
    except ValueError as exc:
        return [f"the item's schema is not valid JSON ({exc})"]
    validator_cls = jsonschema.validators.validator_for(schema)
    errors = sorted(validator_cls(schema).iter_errors(gold), key=lambda e: list(e.absolute_path))
    return [f"schema: {e.json_path}: {e.message}" for e in errors[:5]]


def _chain_reference_failures(calls: Any) -> list[str]:
    """Every "API_call_k" a call consumes must be a response of an earlier call."""
    if not isinstance(calls, list):
        return ["the gold call chain is not a list"]
    produced: set[str] = set()
    failures = []
    for i, call in enumerate(calls):
        if not isinstance(call, dict):
            failures.append(f"call {i} is not an object")
            continue
        for name, value in (call.get("parameters") or {}).items():
            for ref in value if isinstance(value, list) else [value]:
                if isinstance(ref, str) and ref.startswith("API_call_") and ref not in produced:
                    failures.append(f"call {i} ({call.get('api_name')}) parameter {name!r} uses {ref}, "
                                    "which no earlier call returns")
        responses = call.get("responses") or []
        produced.update(responses.values() if isinstance(responses, dict) else responses)
    return failures


AMBIGUITY_HIGH, AMBIGUITY_NOT_RATED = "ambiguity High", "ambiguity not rated"
RELEASABLE_AMBIGUITY = ("low", "medium")


def ambiguity_reasons(verdict: str | None, rubric: Any) -> list[str]:
    """Condition (iii) on the settled rubric: Low or Medium is released; High is not, and neither
    is no rating at all (a Pass or Fix settled without one: the rule asks for Low/Medium, and
    a missing answer is neither). An unsettled or rejected item is withheld for that already,
    so a missing rating is not counted against it too."""
    ambiguity = rubric.get("ambiguity") if isinstance(rubric, dict) else None
    if ambiguity == "high":
        return [AMBIGUITY_HIGH]
    if verdict in ("pass", "fix") and ambiguity not in RELEASABLE_AMBIGUITY:
        return [AMBIGUITY_NOT_RATED]
    return []


def withheld_counts(statuses: list[GoldStatus]) -> dict[str, int]:
    """How many withheld items each reason (grouped, see ``reason_group``) holds back, most first."""
    counts: dict[str, int] = {}
    for s in statuses:
        for reason in dict.fromkeys(reason_group(r) for r in s.reasons):
            counts[reason] = counts.get(reason, 0) + 1
    return dict(sorted(counts.items(), key=lambda kv: -kv[1]))


def reason_group(reason: str) -> str:
    """Reasons grouped for counting: schema errors by kind of check, not by path and value."""
    if reason.startswith("schema:"):
        return "the gold does not match the item's schema"
    return re.sub(r"^call \d+ \(.*?\) parameter .*", "a call uses a response no earlier call returns", reason)


def gold_status(store, dataset_id: int) -> list[GoldStatus]:
    from reviewer import guards  # the quality guards count too (issue 15), unless an adjudicator overrode them

    held, waived = guards.release_reasons(store, dataset_id), guards.overridden(store, dataset_id)
    with store.engine.connect() as conn:
        items = conn.execute(
            select(item_t.c.id, item_t.c.record_id, item_t.c.kind, item_t.c.gold, item_t.c.schema_hash,
                   adj_t.c.verdict, adj_t.c.rubric)
            .outerjoin(adj_t, adj_t.c.item_id == item_t.c.id)
            .where(item_t.c.dataset_id == dataset_id)
            .order_by(item_t.c.position)
        ).all()
        hashes = {r.schema_hash for r in items if r.schema_hash and r.kind == ItemKind.EXTRACTION}
        schemas = dict(conn.execute(select(blob_t.c.hash, blob_t.c.text).where(blob_t.c.hash.in_(hashes))).all()) \
            if hashes else {}
    out = []
    for r in items:
        reasons = []
        if r.verdict is None:
            reasons.append("not settled by dual review yet")
        elif r.verdict == "reject":
            reasons.append("rejected")
        reasons += ambiguity_reasons(r.verdict, r.rubric)
        checks = automatic_checks(r.kind, r.gold, schemas.get(r.schema_hash))
        if "schema" in waived.get(r.id, ()):
            checks = [c for c in checks if not c.startswith("schema:")]
        reasons += checks + held.get(r.id, [])
        out.append(GoldStatus(r.id, r.record_id, not reasons, reasons))
    return out


def gold_provenance(store, dataset_id: int) -> list[dict]:
    """One JSON-ready record per released item: its gold and how it was settled."""
    from reviewer import guards

    released = {s.item_id for s in gold_status(store, dataset_id) if s.released}
    guard_overrides = guards.provenance(store, dataset_id)
    with store.engine.connect() as conn:
        rows = conn.execute(
            select(*ITEM_COLUMNS, adj_t.c.verdict.label("adj_verdict"), adj_t.c.adjudicator, adj_t.c.resolution,
                   adj_t.c.rationale, adj_t.c.updated_at.label("settled_at"), adj_t.c.rubric.label("adj_rubric"))
            .join(adj_t, adj_t.c.item_id == item_t.c.id)
            .where(item_t.c.dataset_id == dataset_id)
            .order_by(item_t.c.position)
        ).all()
        annotators: dict[int, list[str]] = {}
        for item_id, name in conn.execute(
            select(ann_t.c.item_id, ann_t.c.annotator)
            .join(item_t, item_t.c.id == ann_t.c.item_id)
            .where(item_t.c.dataset_id == dataset_id)
            .order_by(ann_t.c.annotator)
        ):
            annotators.setdefault(item_id, []).append(name)
    return [
        {
            "record_id": r.record_id, "kind": r.kind, "question": r.question, "gold": r.gold,
            "category": r.category, "difficulty": (r.adj_rubric or {}).get("difficulty") or r.difficulty,
            "depth": r.depth, "domain": r.domain, "payload": stored_payload(r),
            "provenance": {
                "decision": "unanimous" if r.resolution == "auto" else "adjudicated",
                "verdict": r.adj_verdict,
                "annotators": annotators.get(r.id, []),
                "adjudicator": r.adjudicator,
                "rationale": r.rationale,
                "settled_at": r.settled_at.isoformat(),
                "patch": make_patch(r.original_gold, r.gold),
                "source_file": r.source_file, "source_line": r.source_line,
                "guard_overrides": guard_overrides.get(r.id, []),
            },
        }
        for r in rows
        if r.id in released
    ]


def export_gold_jsonl(store, dataset_id: int, path: Path) -> int:
    """Write the released Gold items with provenance, one a line; return how many."""
    rows = gold_provenance(store, dataset_id)
    return exporting.write_atomically(Path(path), (json.dumps(r, ensure_ascii=False) + "\n" for r in rows))


def export_gold_source(store, dataset_id: int, out: Path, ctx) -> list[Path]:
    """Write only the released Gold items, in the dataset's own format."""
    keep = {s.record_id for s in gold_status(store, dataset_id) if s.released}
    return exporting.export_dataset(store.engine, dataset_id, Path(out), ctx, record_ids=keep)
