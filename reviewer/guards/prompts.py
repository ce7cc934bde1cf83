"""The fixed text of the prompts the app sends for reruns, for the leakage audit's set (b).

A rerun prompt holds the item's own source; compared with the items it would match
itself. What may leak into a benchmark's sources is the prompt's fixed part
(instructions, schema wording, few-shot examples): that is what is kept, by building
each strategy's request for one item and cutting that item's own texts out.
"""

from __future__ import annotations

import json

from reviewer.errors import ReviewerError
from reviewer.guards.base import GuardItem


class _RerunItem:
    def __init__(self, item: GuardItem, context: str | None):
        self.record_id, self.kind, self.gold = item.record_id, item.kind, item.gold
        self.payload, self.context, self.schema, self.question = item.payload, context, item.schema, item.question


def _strip(text: str, parts: list[str]) -> str:
    for p in sorted((p for p in parts if p and len(p) > 20), key=len, reverse=True):
        text = text.replace(p, " ")
    return text


def prompt_documents(item: GuardItem, context: str | None, strategies: list[tuple[str, dict]]) -> list[tuple[str, str]]:
    """(name, fixed text) of each strategy's prompt, built for ``item`` minus ``item``'s own texts."""
    from reviewer.rerun.prompts.base import build_request, strategies_for

    wanted = strategies or [(s, {}) for s in strategies_for(item.kind)]
    own = [item.source, context or "", item.schema or "", item.question or "",
           json.dumps(item.gold, ensure_ascii=False) if item.gold is not None else ""]
    if item.schema:
        try:
            own.append(json.dumps(json.loads(item.schema), ensure_ascii=False, indent=2))
            own.append(json.dumps(json.loads(item.schema), ensure_ascii=False))
        except ValueError:
            pass
    docs = []
    for name, options in wanted:
        try:
            request = build_request(_RerunItem(item, context), name, options)
        except (ReviewerError, KeyError, TypeError, ValueError):
            continue  # the strategy does not apply to this item: no prompt of its own to compare
        texts = []
        for m in request.messages:
            content = m.get("content")
            if isinstance(content, list):
                content = " ".join(str(c.get("text", "")) for c in content if isinstance(c, dict))
            if isinstance(content, str):
                texts.append(_strip(content, own))
        docs.append((f"prompt {name}", "\n".join(texts)))
    return docs
