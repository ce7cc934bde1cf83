"""Scoring as a background job, and reading scores back.

``score_run`` scores every output of a run (or some items' outputs) with the
scorer of the dataset's kind, in one mode, and stores one Score row per
output, replacing an earlier score of the same scorer and mode. Scores are
written a chunk at a time: a cancelled job keeps the scores it finished, each
of them complete. ``rescore_items`` re-scores the outputs of items whose gold
changed and lists the outputs whose pass/fail flipped.
"""

from __future__ import annotations

import json
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import Text, cast, select

from reviewer.jobs import JobContext, over_whole_dataset, silent
from reviewer.rerun.config import RunConfig
from reviewer.scoring.base import Mode, ScoreResult, ScoringItem, ScoringOutput
from reviewer.scoring.registry import scorer_for
from reviewer.store.item_json import JSON_COLUMNS, stored_payload, stored_raw
from reviewer.store.models import Blob, Dataset, Item, Output, Run, Score, utcnow

item_t, output_t, run_t, score_t, blob_t, dataset_t = (
    Item.__table__, Output.__table__, Run.__table__, Score.__table__, Blob.__table__, Dataset.__table__,
)
CHUNK = 200


@dataclass
class Flip:
    """An output whose verdict changed when its item's gold changed."""

    item_id: int
    record_id: str
    run: str
    replication: int
    mode: str
    before: bool | None
    after: bool | None


@dataclass
class RunScores:
    run_id: int
    run: str
    scorer: str
    mode: str
    scored: int = 0
    summary: dict[str, Any] = field(default_factory=dict)  # the scorer's own aggregate
    by_category: dict[str, dict] = field(default_factory=dict)  # {category: {n, mean, pass_rate}}


def _scoring_item(row, texts: dict[str, str]) -> ScoringItem:
    return ScoringItem(
        record_id=row.record_id, kind=row.kind, gold=row.gold, raw=(raw := stored_raw(row)) or {}, payload=stored_payload(row, raw),
        context=texts.get(row.context_hash), schema=texts.get(row.schema_hash), category=row.category,
        depth=row.depth,
    )


def _load(conn, run_id: int, item_ids: list[int] | None):
    stmt = (
        select(
            output_t.c.id.label("output_id"), output_t.c.replication, output_t.c.text, output_t.c.prediction,
            output_t.c.extra, output_t.c.status, item_t.c.id.label("item_id"), item_t.c.record_id, item_t.c.kind,
            item_t.c.gold, *JSON_COLUMNS, item_t.c.context_hash, item_t.c.schema_hash,
            item_t.c.category, item_t.c.depth, item_t.c.version.label("item_version"),
        )
        .join(item_t, item_t.c.id == output_t.c.item_id)
        .where(output_t.c.run_id == run_id)
        .order_by(item_t.c.position, output_t.c.replication)
    )
    if item_ids is not None:
        stmt = stmt.where(item_t.c.id.in_(item_ids))
    return conn.execute(stmt).all()


def _texts(conn, rows) -> dict[str, str]:
    hashes = sorted({h for r in rows for h in (r.context_hash, r.schema_hash) if h})
    out: dict[str, str] = {}
    for start in range(0, len(hashes), 500):
        out.update(conn.execute(
            select(blob_t.c.hash, blob_t.c.text).where(blob_t.c.hash.in_(hashes[start:start + 500]))).all())
    return out


def _as_number(value) -> float | None:
    if isinstance(value, bool):
        return float(value)
    return float(value) if isinstance(value, (int, float)) else None


@over_whole_dataset
def score_run(
    store, run_id: int, mode: Mode = "faithful", ctx: JobContext | None = None, item_ids: list[int] | None = None,
    judge: RunConfig | None = None,
) -> RunScores:
    """Score a run's outputs (all, or those of ``item_ids``) and store the scores.

    With ``judge`` (an endpoint and model), scorers that have an LLM-as-judge
    metric (tool-response QA, paper 000 Figure 24) ask that model too.
    """
    ctx = ctx or silent()
    with store.engine.connect() as conn:
        run = conn.execute(select(run_t.c.name, dataset_t.c.kind).join(
            dataset_t, dataset_t.c.id == run_t.c.dataset_id).where(run_t.c.id == run_id)).one()
        rows = _load(conn, run_id, item_ids)
        texts = _texts(conn, rows)
    scorer = scorer_for(run.kind)
    if judge is not None and hasattr(scorer, "judge_fn"):
        from reviewer.scoring.judge_client import openai_judge

        scorer.judge_fn = openai_judge(judge)
    result = RunScores(run_id, run.name, scorer.name, mode)
    pairs: list[tuple[ScoringItem, ScoreResult]] = []
    pending: list[dict] = []
    for n, row in enumerate(rows, 1):
        ctx.check_cancelled()
        item = _scoring_item(row, texts)
        output = ScoringOutput(text=row.text, prediction=row.prediction,
                               extra={**(row.extra or {}), "replication": row.replication}, status=row.status)
        res = scorer.score(item, output, mode)
        pairs.append((item, res))
        pending.append({
            "output_id": row.output_id, "run_id": run_id, "item_id": row.item_id,  # the triggers' values too
            "scorer": scorer.name, "mode": mode, "primary": res.primary,
            "value": _as_number(res.value), "passed": res.passed, "skipped": res.skipped,
            "metrics": _jsonable(res.metrics), "notes": list(res.notes), "created_at": utcnow(),
            "_item": (row.item_id, row.item_version),
        })
        if len(pending) >= CHUNK:
            _save(store, pending)
        ctx.progress(n, len(rows), f"scored {n} of {len(rows)} outputs")
    _save(store, pending)
    result.scored = len(pairs)
    result.summary = scorer.aggregate(pairs)
    result.by_category = _by_category(pairs)
    return result


def _jsonable(metrics: dict) -> dict:
    out = {}
    for k, v in metrics.items():
        if isinstance(v, float) and v != v:  # NaN is not JSON; undefined is None
            v = None
        out[k] = v
    return out


def _save(store, rows: list[dict]) -> None:
    """Store scores, checking the item (gold) versions they were computed from: the items are
    locked in id order, and a score whose item's gold changed since it was read is dropped (the
    re-score that follows that gold change writes the right one). Concurrent re-scores of the
    same outputs serialise on the item locks instead of colliding on the unique key."""
    if not rows:
        return
    read = {r["_item"][0]: r["_item"][1] for r in rows}
    with store.engine.begin() as conn:
        now = dict(conn.execute(select(item_t.c.id, item_t.c.version).where(item_t.c.id.in_(sorted(read)))
                                .order_by(item_t.c.id).with_for_update()).all())
        rows[:] = [r for r in rows if now.get(r["_item"][0]) == r["_item"][1]]
        for r in rows:
            del r["_item"]
        for r in rows:
            conn.execute(score_t.delete().where(
                score_t.c.output_id == r["output_id"], score_t.c.scorer == r["scorer"], score_t.c.mode == r["mode"]))
        if rows:
            conn.execute(score_t.insert(), rows)
    rows.clear()


def _by_category(pairs) -> dict[str, dict]:
    groups: dict[str, list[ScoreResult]] = defaultdict(list)
    for item, res in pairs:
        if res.skipped:
            continue
        groups["(all)"].append(res)
        groups[item.category or (f"depth {item.depth}" if item.depth is not None else "(none)")].append(res)
    table = {}
    for category, results in sorted(groups.items()):
        values = [v for v in (_as_number(r.value) for r in results) if v is not None]
        passed = [r.passed for r in results if r.passed is not None]
        table[category] = {
            "n": len(results),
            "mean": sum(values) / len(values) if values else None,
            "pass_rate": sum(passed) / len(passed) if passed else None,
        }
    return table


def stored_results(store, run_id: int, mode: Mode = "faithful") -> dict[int, ScoreResult]:
    """The stored scores of a run, by output id, as ScoreResults.

    By the score's own run (score.run_id, its output's, kept by the database): no join with
    output, and in team mode one assignment probe per score (or one hashed look-up of the
    annotator's assignments: reviewer.team.sql). The JSON columns come as text and are
    decoded in one pass (``_json_values``)."""
    stmt = select(score_t.c.output_id, score_t.c.primary, score_t.c.passed, score_t.c.skipped,
                  cast(score_t.c.metrics, Text), cast(score_t.c.notes, Text)
                  ).where(score_t.c.run_id == run_id, score_t.c.mode == mode)
    with store.engine.connect() as conn:
        rows = conn.execute(stmt).all()
    values = _json_values(t for r in rows for t in r[4:])
    return {
        output_id: ScoreResult(values[2 * n] or {}, primary or "", passed, skipped, list(values[2 * n + 1] or []))
        for n, (output_id, primary, passed, skipped, _, _) in enumerate(rows)
    }


def _json_values(texts) -> list:
    """The values of JSON column texts (None: SQL NULL), as json.loads reads each of them.

    Decoded as one JSON array: a run's thousands of small texts each through json.loads (or the
    driver's JSON loader) took most of stored_results' time (10k items: ~70 of ~100 ms of
    client CPU)."""
    return json.loads("[" + ",".join("null" if t is None else t for t in texts) + "]")


@dataclass(frozen=True)
class ItemScore:
    """One stored score of one output of an item, for the item view."""

    run: str
    replication: int
    scorer: str
    mode: str
    primary: str | None
    value: float | None
    passed: bool | None
    skipped: bool
    notes: list[str]


def item_scores(store, item_id: int) -> list[ItemScore]:
    """Every stored score of the item's outputs, by run, replication and mode."""
    stmt = (
        select(run_t.c.name, output_t.c.replication, score_t)
        .join(output_t, output_t.c.id == score_t.c.output_id)
        .join(run_t, run_t.c.id == output_t.c.run_id)
        .where(output_t.c.item_id == item_id)
        .order_by(run_t.c.id, output_t.c.replication, score_t.c.mode)
    )
    with store.engine.connect() as conn:
        return [ItemScore(r.name, r.replication, r.scorer, r.mode, r.primary, r.value, r.passed, r.skipped,
                          list(r.notes or [])) for r in conn.execute(stmt)]


def summarise_stored(store, run_id: int, mode: Mode = "faithful") -> RunScores | None:
    """The aggregate of a run's stored scores in ``mode``, computed as ``score_run``
    computes it, without scoring anything again; None when the run has none."""
    stored = stored_results(store, run_id, mode)
    if not stored:
        return None
    with store.engine.connect() as conn:
        run = conn.execute(select(run_t.c.name, dataset_t.c.kind).join(
            dataset_t, dataset_t.c.id == run_t.c.dataset_id).where(run_t.c.id == run_id)).one()
        rows = _load(conn, run_id, None)
        texts = _texts(conn, rows)
    scorer = scorer_for(run.kind)
    pairs = [(_scoring_item(r, texts), stored[r.output_id]) for r in rows if r.output_id in stored]
    return RunScores(run_id, run.name, scorer.name, mode, scored=len(pairs), summary=scorer.aggregate(pairs),
                     by_category=_by_category(pairs))


def rescore_items(store, item_ids: list[int], ctx: JobContext | None = None) -> list[Flip]:
    """Re-score every already-scored output of these items (each run, each mode
    scored before) and return the outputs whose pass/fail changed."""
    ctx = ctx or silent()
    stmt = (
        select(output_t.c.id, output_t.c.run_id, output_t.c.replication, score_t.c.mode, score_t.c.passed,
               item_t.c.id.label("item_id"), item_t.c.record_id, run_t.c.name.label("run"))
        .join(score_t, score_t.c.output_id == output_t.c.id)
        .join(item_t, item_t.c.id == output_t.c.item_id)
        .join(run_t, run_t.c.id == output_t.c.run_id)
        .where(output_t.c.item_id.in_(item_ids))
    )
    with store.engine.connect() as conn:
        before = conn.execute(stmt).all()
    for run_id, mode in sorted({(r.run_id, r.mode) for r in before}):
        score_run(store, run_id, mode, ctx, item_ids=list(item_ids))
    with store.engine.connect() as conn:
        after = {(r.id, r.mode): r.passed for r in conn.execute(stmt)}
    return [
        Flip(r.item_id, r.record_id, r.run, r.replication, r.mode, r.passed, after.get((r.id, r.mode)))
        for r in before
        if after.get((r.id, r.mode)) != r.passed
    ]


def _scored_by_item(store, run_id: int, mode: Mode) -> dict:
    """The run's scored items (replication 0, ``mode``): item id -> row with record_id, category, depth,
    position, value, passed."""
    stmt = (
        select(item_t.c.id, item_t.c.record_id, item_t.c.category, item_t.c.depth, item_t.c.position,
               score_t.c.value, score_t.c.passed)
        .join(output_t, output_t.c.item_id == item_t.c.id)
        .join(score_t, score_t.c.output_id == output_t.c.id)
        .where(output_t.c.run_id == run_id, output_t.c.replication == 0, score_t.c.mode == mode)
    )
    with store.engine.connect() as conn:
        return {r.id: r for r in conn.execute(stmt)}


def scored_overlap(store, run_a: int, run_b: int, mode: Mode = "faithful") -> tuple[int, int, int]:
    """How many items each run has scores for in ``mode``, and how many of them both have:
    what a comparison can cover (``compare_runs`` gives the rows of the last)."""
    a, b = _scored_by_item(store, run_a, mode).keys(), _scored_by_item(store, run_b, mode).keys()
    return len(a), len(b), len(a & b)


def compare_runs(store, run_a: int, run_b: int, mode: Mode = "faithful") -> list[dict]:
    """Items both runs answered, with both headline scores, largest difference first (equal
    differences in dataset order: record ids "2" before "10")."""
    a, b = _scored_by_item(store, run_a, mode), _scored_by_item(store, run_b, mode)
    rows = []
    for item_id in a.keys() & b.keys():
        va, vb = a[item_id].value, b[item_id].value
        diff = None if va is None or vb is None else vb - va
        rows.append({"item_id": item_id, "record_id": a[item_id].record_id, "category": a[item_id].category,
                     "depth": a[item_id].depth, "position": a[item_id].position, "a": va, "b": vb, "difference": diff})
    rows.sort(key=lambda r: (-(abs(r["difference"]) if r["difference"] is not None else -1), r["position"]))
    return rows
