"""What the guards say about release, and an item's guard results for the item view.

Release rule (paper 001, Appendix D, "pass automatic checks"): an item is held back
by every guard that failed on it unless an adjudicator overrode that guard with a
written reason. Results whose inputs changed since they were computed are
recomputed on the fly for the cheap guards; a stale gold-program result holds the
item until the program is run again. A dataset whose guards were never run
(no ``reviewer check`` yet, no settings) is not held by them: the guards switch on
for a dataset at its first check, so datasets made before them keep their status.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from reviewer.guards import settings as settings_mod, storage
from reviewer.guards.base import FAIL, GuardResult, input_hash
from reviewer.guards.registry import BY_NAME, CHEAP_GUARDS, LABELS, LEAKAGE


@dataclass
class ItemGuards:
    """An item's guard results as shown and as the release rule reads them."""

    item_id: int
    record_id: str = ""
    results: dict[str, GuardResult] = field(default_factory=dict)
    stale: set[str] = field(default_factory=set)  # results whose inputs changed since they were computed
    overrides: dict[str, storage.Override] = field(default_factory=dict)

    def blocking(self) -> list[str]:
        """The guards that hold the item back (failed or stale-unknown, not overridden)."""
        out = []
        for name, r in self.results.items():
            if name in self.overrides:
                continue
            if r.status == FAIL or (name in self.stale and name not in CHEAP_GUARDS and name != LEAKAGE):
                out.append(name)
        return out

    @property
    def passed(self) -> bool:
        return not self.blocking()


def _enabled(conn, dataset_id: int) -> bool:
    return settings_mod.has_settings(conn, dataset_id)


def item_guards(store, dataset_id: int, item_ids: list[int] | None = None) -> dict[int, ItemGuards]:
    """Per item: its current guard results (stale cheap ones recomputed, not written), overrides."""
    with store.engine.connect() as conn:
        settings = settings_mod.load(conn, dataset_id)
        items = storage.load_items(conn, dataset_id, item_ids)
        stored = storage.results(conn, [it.id for it in items])
        overrides = storage.overrides(conn, dataset_id=dataset_id)
    out: dict[int, ItemGuards] = {}
    for item in items:
        ig = ItemGuards(item.id, item.record_id, overrides=overrides.get(item.id, {}))
        for name, row in stored.get(item.id, {}).items():
            result = GuardResult(name, row.status, row.summary, row.details or {})
            guard = BY_NAME.get(name)
            if guard is not None and row.input_hash != input_hash(guard, item, settings):
                if name in CHEAP_GUARDS:
                    result = guard.check(item, settings) if guard.applies(item, settings) else \
                        GuardResult(name, "skip", "does not apply to this item")
                else:
                    ig.stale.add(name)
            ig.results[name] = result
        out[item.id] = ig
    return out


def release_reasons(store, dataset_id: int) -> dict[int, list[str]]:
    """item id -> why its guards hold it back (empty or absent: they do not).

    The schema guard is left out: the release rule runs the same schema check
    itself (``automatic_checks``); ``overridden`` tells it when to ignore that check.
    """
    with store.engine.connect() as conn:
        if not _enabled(conn, dataset_id):
            return {}
    out: dict[int, list[str]] = {}
    for item_id, ig in item_guards(store, dataset_id).items():
        reasons = []
        for name in ig.blocking():
            if name == "schema":
                continue
            if ig.results[name].status == FAIL:
                reasons.append(f"guard failed: {LABELS.get(name, name)}")
            else:
                reasons.append(f"guard not re-run since the item changed: {LABELS.get(name, name)}")
        if reasons:
            out[item_id] = reasons
    return out


def overridden(store, dataset_id: int) -> dict[int, set[str]]:
    """item id -> the guards an adjudicator overrode on it."""
    with store.engine.connect() as conn:
        return {i: set(o) for i, o in storage.overrides(conn, dataset_id=dataset_id).items()}


def provenance(store, dataset_id: int) -> dict[int, list[dict]]:
    """item id -> its guard overrides (guard, adjudicator, reason, when), for the export's provenance."""
    with store.engine.connect() as conn:
        return {i: [o.to_dict() for o in by_guard.values()]
                for i, by_guard in storage.overrides(conn, dataset_id=dataset_id).items()}


def guards_pass(store, item_id: int) -> bool:
    """True when no guard holds the item back (failed guards all overridden)."""
    detail = store.item(item_id)
    ig = item_guards(store, detail.dataset_id, [item_id]).get(item_id)
    return ig is None or ig.passed


def overrides(store, item_id: int) -> list[storage.Override]:
    with store.engine.connect() as conn:
        return list(storage.overrides(conn, item_ids=[item_id]).get(item_id, {}).values())
