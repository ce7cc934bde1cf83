"""Quality guards (paper 001 Appendix D; paper 000's gold programs): automatic checks
whose results are stored per item, shown where the annotator decides, filterable in
the item table and counted by the release rule.

Qt-free. Public entry points (loaded on first use, so importing the package is cheap):

- ``run_checks(store, dataset_id, ctx)``: every guard over a dataset (job; CLI ``reviewer check``);
- ``after_import(store, dataset_id, ctx)``: the gold programs, right after an import;
- ``item_guards(store, dataset_id, item_ids)``: results for the item view;
- ``guards_pass(store, item_id)`` / ``overrides(store, item_id)`` / ``add_override(...)``: the release rule;
- ``release_reasons`` / ``overridden`` / ``provenance``: what reviewer.review.release reads;
- ``failed_clause(item_id_column, guard)``: the item table's "guard X failed" filter;
- ``fix_from_program(store, item_id, actor)``: a Fix that takes a gold program's answer;
- ``settings.update(store, dataset_id, rules=[...], min_words=...)``: the dataset's rules and thresholds.
"""

from importlib import import_module

from reviewer.guards.names import GUARD_NAMES, LABELS

_EXPORTS = {
    "FILTER_CHOICES": "filters", "failed_clause": "filters",
    "ItemGuards": "gate", "guards_pass": "gate", "item_guards": "gate", "overridden": "gate",
    "overrides": "gate", "provenance": "gate", "release_reasons": "gate",
    "fix_from_program": "gold_program",
    "CheckSummary": "job", "after_import": "job", "counts": "job", "run_checks": "job",
    "add_override": "storage", "remove_override": "storage",
}


def __getattr__(name: str):
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'reviewer.guards' has no attribute {name!r}")
    return getattr(import_module(f"reviewer.guards.{module}"), name)


__all__ = ["GUARD_NAMES", "LABELS", *_EXPORTS]
