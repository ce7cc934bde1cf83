"""``raw``'s values stored in the row's question or original gold column instead (see
reviewer.store.item_json for the whole storage rule). Plain functions with no database
import: the import's reading process (reviewer.store.import_feed) uses them.

Stored form: such a key of ``raw`` keeps its place, its value the column's name as a
placeholder, and ``raw_refs`` maps the key to the column:
``{"task": "question", "call": "original_gold"}``; ``raw_refs`` None: raw is whole.
"""

from __future__ import annotations

from typing import Any

# The shortest string worth a reference (a placeholder must be shorter than what it stands for).
MIN_REF_CHARS = 24


def compact_raw(raw: Any, question: Any, gold: Any) -> tuple[Any, dict | None]:
    """``(raw to store, raw_refs)`` for an item imported with ``question`` and ``gold``.

    Identity, not equality: cheap, and exact (the very value the reader took from
    the record). Only strings of ``MIN_REF_CHARS`` or more and non-empty lists and
    dicts are referenced (a placeholder must be shorter than what it stands for).
    Returns ``(raw, None)`` when nothing is shared.
    """
    if not isinstance(raw, dict):
        return raw, None
    refs = None
    for key, value in raw.items():
        # identity first: two pointer comparisons for every value that is neither
        if value is question and isinstance(value, str):  # the question column holds text only
            column = "question"
        elif value is gold:
            column = "original_gold"
        else:
            continue
        if not (len(value) >= MIN_REF_CHARS if isinstance(value, str) else isinstance(value, (list, dict)) and value):
            continue
        if refs is None:
            refs, raw = {}, dict(raw)
        refs[key] = column
        raw[key] = column
    return raw, refs


def expand_raw(raw: Any, refs: Any, question: Any, original_gold: Any) -> Any:
    """``raw`` as the reader made it, from its stored form, the row's ``raw_refs``, its
    question and its original gold (``ORIGINAL_GOLD``'s value). Same keys, same order."""
    if not refs or not isinstance(raw, dict) or not isinstance(refs, dict):
        return raw
    columns = {"question": question, "original_gold": original_gold}
    return {key: columns.get(refs[key]) if key in refs else value for key, value in raw.items()}
