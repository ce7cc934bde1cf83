"""The check job: every guard over a dataset, with progress and cancellation.

Per-item guards recompute only results whose inputs changed (``input_hash``) unless
``force``; the leakage audit is one pass over the whole dataset every time it runs
(its result depends on all the other sources). Results are written in batches, one
transaction each, so a cancelled check keeps what it finished.
"""

from __future__ import annotations

import time
from collections import Counter
from dataclasses import dataclass, field

from sqlalchemy import select

from reviewer.errors import ReviewerError
from reviewer.guards import leakage, settings as settings_mod, storage
from reviewer.guards.base import FAIL, PASS, SKIP, GuardItem, GuardResult, digest, input_hash, leakage_parts
from reviewer.guards.registry import BY_NAME, GUARD_NAMES, ITEM_GUARDS, LEAKAGE
from reviewer.guards.settings import Settings
from reviewer.jobs import JobContext, over_whole_dataset, silent
from reviewer.store.models import Run

BATCH = 200


@dataclass
class CheckSummary:
    dataset_id: int
    items: int
    # guard -> status -> count, over every item of the dataset after the run
    counts: dict[str, dict[str, int]] = field(default_factory=dict)
    recomputed: int = 0
    unchanged: int = 0
    seconds: float = 0.0
    notes: list[str] = field(default_factory=list)


def _check_item_guards(items: list[GuardItem], guards, settings: Settings, stored: dict, force: bool):
    """(item id, result, input hash) for every (item, guard) whose stored result is missing or stale."""
    out, unchanged = [], 0
    batched: dict[str, list[tuple[GuardItem, str]]] = {}
    for item in items:
        for guard in guards:
            h = input_hash(guard, item, settings)
            if not force and stored.get((item.id, guard.name)) == h:
                unchanged += 1
                continue
            if not guard.applies(item, settings):
                out.append((item.id, GuardResult(guard.name, SKIP, "does not apply to this item"), h))
            elif hasattr(guard, "check_many"):
                batched.setdefault(guard.name, []).append((item, h))
            else:
                out.append((item.id, guard.check(item, settings), h))
    for name, pairs in batched.items():
        results = BY_NAME[name].check_many([it for it, _ in pairs], settings)
        out.extend((it.id, r, h) for (it, h), r in zip(pairs, results))
    return out, unchanged


def _run_strategies(conn, dataset_id: int) -> list[tuple[str, dict]]:
    rows = conn.execute(select(Run.__table__.c.setup, Run.__table__.c.config)
                        .where(Run.__table__.c.dataset_id == dataset_id, Run.__table__.c.format == "rerun")).all()
    seen, out = set(), []
    for setup, config in rows:
        options = (config or {}).get("strategy_options") or {}
        key = (setup, repr(sorted(options.items())))
        if setup and key not in seen:
            seen.add(key)
            out.append((setup, options))
    return out


def leakage_results(items: list[GuardItem], settings: Settings, prompts: list[tuple[str, str]],
                    corpus: list[tuple[str, str]], ctx: JobContext) -> dict[int, GuardResult]:
    """The leakage audit's result per item (see reviewer.guards.leakage)."""
    parts = {it.id: leakage_parts(it) for it in items}  # tool_qa: question and gold, not the shared response
    with_source = [it for it in items if parts[it.id][0].strip()]
    sig = leakage.signatures([parts[it.id][0] for it in with_source], settings.ngram, settings.num_perm, ctx)
    ctx.check_cancelled()
    second = [parts[it.id][1] for it in with_source]
    also = leakage.signatures(second, settings.ngram, settings.num_perm) if any(second) else None
    flags: dict[int, dict] = {}
    near = leakage.best_matches(sig, None, settings.near_duplicate, also)
    for q, m in near.items():
        other = with_source[m.index]
        flags.setdefault(q, {})["near_duplicate"] = {
            "document": other.record_id, "item_id": other.id, "similarity": round(m.similarity, 3)}
    for key, docs, threshold in (("prompt", prompts, settings.prompt_similarity),
                                 ("corpus", corpus, settings.corpus_similarity)):
        if not docs:
            continue
        ctx.check_cancelled()
        ref = leakage.signatures([t for _, t in docs], settings.ngram, settings.num_perm)
        for q, m in leakage.best_matches(sig, ref, threshold).items():
            flags.setdefault(q, {})[key] = {"document": docs[m.index][0], "similarity": round(m.similarity, 3)}
    checked = {"prompts": len(prompts), "corpus_documents": len(corpus), "items": len(with_source)}
    out: dict[int, GuardResult] = {}
    names = {"near_duplicate": "near-duplicate of item", "prompt": "similar to", "corpus": "similar to corpus document"}
    for n, item in enumerate(with_source):
        f = flags.get(n)
        if not f:
            out[item.id] = GuardResult(LEAKAGE, PASS, "no similar item, prompt or corpus document", {"checked": checked})
        else:
            summary = "; ".join(f"{names[k]} {v['document']} (similarity {v['similarity']:.2f})" for k, v in f.items())
            out[item.id] = GuardResult(LEAKAGE, FAIL, summary, {**f, "checked": checked})
    for item in items:
        out.setdefault(item.id, GuardResult(LEAKAGE, SKIP, "the item has no source text"))
    return out


@over_whole_dataset
def run_checks(store, dataset_id: int, ctx: JobContext | None = None, guards: list[str] | None = None,
               force: bool = False, item_ids: list[int] | None = None) -> CheckSummary:
    """Run the guards (default: all) over the dataset (or only ``item_ids``: the per-item guards
    of those items, as after an edit) and store the results."""
    ctx = ctx or silent()
    started = time.monotonic()
    wanted = list(guards or GUARD_NAMES)
    unknown = [g for g in wanted if g not in GUARD_NAMES]
    if unknown:
        raise ReviewerError(f"unknown guard(s) {', '.join(unknown)}; known: {', '.join(GUARD_NAMES)}")
    with store.engine.begin() as conn:
        settings = settings_mod.load(conn, dataset_id)
        if not settings_mod.has_settings(conn, dataset_id):  # the first check turns the guards on
            settings_mod.save(conn, dataset_id, settings)
        items = storage.load_items(conn, dataset_id, item_ids)
        strategies = _run_strategies(conn, dataset_id)
    summary = CheckSummary(dataset_id, len(items))
    item_guards = [g for g in ITEM_GUARDS if g.name in wanted]
    total = len(items)
    if item_guards:
        names = [g.name for g in item_guards]
        for start in range(0, total, BATCH):
            ctx.check_cancelled()
            ctx.progress(start, total, "checking items")
            batch = items[start:start + BATCH]
            with store.engine.connect() as conn:
                stored = storage.stored_hashes(conn, [it.id for it in batch], names)
            rows, unchanged = _check_item_guards(batch, item_guards, settings, stored, force)
            with store.engine.begin() as conn:
                storage.save_results(conn, rows)
            summary.recomputed += len(rows)
            summary.unchanged += unchanged
        ctx.progress(total, total, "items checked")
    if LEAKAGE in wanted and items and item_ids is None:
        prompts: list[tuple[str, str]] = []
        if items:
            from reviewer.guards.prompts import prompt_documents

            first = items[0]
            prompts = prompt_documents(first, None if first.payload.get("text") else first.source, strategies)
        corpus = list(leakage.corpus_documents(settings.corpus_dir)) if settings.corpus_dir else []
        if not settings.corpus_dir:
            summary.notes.append("no corpus folder set: sources compared with the other items and the prompts only")
        results = leakage_results(items, settings, prompts, corpus, ctx)
        ctx.check_cancelled()
        h = digest(settings.to_dict())
        rows = [(item_id, r, h) for item_id, r in results.items()]
        with store.engine.begin() as conn:
            for s in range(0, len(rows), 2000):
                storage.save_results(conn, rows[s:s + 2000])
        summary.recomputed += len(rows)
    summary.counts = counts(store, dataset_id)
    summary.seconds = time.monotonic() - started
    return summary


def counts(store, dataset_id: int) -> dict[str, dict[str, int]]:
    """guard -> status -> number of items, over the stored results of the dataset."""
    tally: dict[str, Counter] = {}
    with store.engine.connect() as conn:
        for _, guard, status in storage.dataset_results(conn, dataset_id):
            tally.setdefault(guard, Counter())[status] += 1
    return {g: dict(tally[g]) for g in GUARD_NAMES if g in tally}


def after_import(store, dataset_id: int, ctx: JobContext | None = None) -> CheckSummary | None:
    """On import: re-run the gold programs of the items that carry one (paper 000), so gold
    drift shows from the start. Returns None when no item has a program (nothing is run and
    the dataset's guards stay off until its first check)."""
    with store.engine.connect() as conn:
        items = storage.load_items(conn, dataset_id)
    if not any(BY_NAME["gold_program"].applies(it, Settings()) for it in items):
        return None
    return run_checks(store, dataset_id, ctx, guards=["gold_program"])
