"""Loading one item for the item view, on a worker thread (Qt-free).

``load_item(ctx, store, item_id)`` reads the item and its outputs and does all
the parsing, pretty-printing, validation and matching a layout needs, so that
the GUI thread only hands ready LineDocuments to widgets. Each kind's
preparation is a function registered in ``PREPARERS``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from reviewer.jobs import JobContext
from reviewer.kinds import ItemKind
from reviewer.scoring.job import item_scores
from reviewer.store.views import ItemDetail, OutputView
from reviewer_ui.textdoc import (
    LineDocument,
    ParsedJsonText,
    json_document,
    json_tokens,
    parse_json,
    plain_tokens,
    prepare_json_text,
    python_tokens,
    value_document,
)

_FENCE = re.compile(r"```(?:json|python|py)?\s*\n(.*?)```", re.DOTALL)


@dataclass
class PreparedOutput:
    """One model output, ready to show and to compare with the gold."""

    output: OutputView
    label: str
    text: LineDocument
    prediction: LineDocument | None
    value: Any  # what the gold is compared with (parsed JSON when the text is JSON)
    value_ok: bool  # False when nothing comparable could be read from the output
    extra: LineDocument | None


@dataclass
class ItemBundle:
    detail: ItemDetail
    outputs: list[PreparedOutput]
    view: dict[str, Any] = field(default_factory=dict)  # the kind's prepared pieces
    scores: list = field(default_factory=list)  # reviewer.scoring.job.ItemScore, every run and mode
    blind: bool = False  # shown to an annotator blind to model identity: runs are "Output N"
    aliases: dict[int, str] = field(default_factory=dict)  # run id -> "Output N" (blind only)

    def output_of_run(self, run_id: int | None) -> PreparedOutput | None:
        """The first replication of a run's output, else None."""
        for p in self.outputs:
            if p.output.run_id == run_id:
                return p
        return None


def looks_like_code(text: str, output: OutputView) -> bool:
    setup = str((output.extra or {}).get("setup_type") or "")
    if "code" in setup:
        return True
    return bool(re.search(r"^\s*(def |import |from \w+ import |for .* in .*:)", text, re.MULTILINE))


def read_json_answer(text: str | None) -> tuple[Any, bool]:
    """The JSON value in a model's text: the whole text, a fenced block, or the
    first complete object/array; ``(text, False)`` when there is none."""
    if text is None:
        return None, False
    candidates = [text.strip()] + [m.group(1).strip() for m in _FENCE.finditer(text)]
    for candidate in candidates:
        try:
            return parse_json(candidate), True
        except ValueError:
            pass
    decoder = json.JSONDecoder()
    for start, ch in enumerate(text):
        if ch in "[{":
            try:
                return decoder.raw_decode(text, start)[0], True
            except ValueError:
                continue
    return text, False


def _text_document(text: str | None, output: OutputView) -> LineDocument:
    if text is None:
        return LineDocument([], banner="no text (the call failed)" if output.status != "ok" else "no text")
    if looks_like_code(text, output):
        return LineDocument(text.split("\n"), python_tokens)
    stripped = text.strip()
    if stripped[:1] in "[{":
        try:
            return json_document(parse_json(stripped))
        except ValueError:
            pass
    return LineDocument(text.split("\n"), plain_tokens)


def comparable_value(kind: str, output: OutputView) -> tuple[Any, bool]:
    """What of an output is compared with the gold, per kind."""
    if kind == ItemKind.CALL_CHAIN:
        from reviewer.scoring.nestools_parse import parse_calls

        parsed = parse_calls(output.text, fixed=True)
        return (parsed.calls, True) if parsed.calls is not None else (output.text, False)
    if kind == ItemKind.TOOL_QA:
        # The gold is an answer string; a code answer's value (8, [1, 2]) is read
        # as text the way the scorer's fixed mode does, so "8" vs 8 is no difference.
        from reviewer.scoring.tooljson_metrics import as_answer_text

        if output.prediction is not None:
            return as_answer_text(output.prediction), True
        return output.text, output.text is not None
    if output.prediction is not None:
        return output.prediction, True
    return read_json_answer(output.text)


def prepare_output(kind: str, output: OutputView) -> PreparedOutput:
    label = f"{output.run}" + (f" ({output.model})" if output.model and output.model != output.run else "")
    if output.replication:
        label += f" · rep {output.replication}"
    if output.status != "ok":
        label += f" · {output.status}"
    value, ok = comparable_value(kind, output)
    prediction = value_document(output.prediction) if output.prediction is not None else None
    extra = json_document(output.extra) if output.extra else None
    return PreparedOutput(output, label, _text_document(output.text, output), prediction, value, ok, extra)


# -- per kind ----------------------------------------------------------------------


def _tool_qa(detail: ItemDetail, outputs: list[PreparedOutput]) -> dict:
    return {"response": prepare_json_text(detail.context, "the tool response"),
            "schema": prepare_json_text(detail.schema, "schema")}


def _leaves(value: Any):
    """(path parts, leaf value) of every scalar inside a JSON value."""
    stack: list[tuple[Any, list]] = [(value, [])]
    while stack:
        node, path = stack.pop()
        if isinstance(node, dict):
            stack.extend((v, path + [k]) for k, v in reversed(list(node.items())))
        elif isinstance(node, list):
            stack.extend((v, path + [i]) for i, v in reversed(list(enumerate(node))))
        else:
            yield path, node


def gold_supports(text: str, gold: Any) -> tuple[list[tuple[int, int, str]], list[str]]:
    """Where the gold's values appear in the source text (case-insensitive).

    Matches are whole words. Returns the character spans ``(start, end, JSON path of the value)`` sorted by
    start, and the paths of the values found nowhere in the text (a reviewer's
    first suspects: invented or normalised values). Booleans and nulls are skipped.
    """
    from reviewer.errors import json_path

    spans: list[tuple[int, int, str]] = []
    missing: list[str] = []
    lowered = text.lower()
    for path, value in _leaves(gold):
        if value is None or isinstance(value, bool):
            continue
        needle = str(value).strip().lower()
        if not needle:
            continue
        # Whole words only, so "cat" does not light up inside "education".
        hits = [m.span() for m in re.finditer(rf"(?<!\w){re.escape(needle)}(?!\w)", lowered)]
        spans.extend((s, e, json_path(path)) for s, e in hits)
        if not hits:
            missing.append(json_path(path))
    spans.sort()
    return spans, missing


def _extraction(detail: ItemDetail, outputs: list[PreparedOutput]) -> dict:
    text = (detail.payload or {}).get("text") or detail.context or ""
    supports, missing = gold_supports(text, detail.gold)
    return {"text": text, "supports": supports, "unsupported": missing,
            "schema": prepare_json_text(detail.schema, "schema"), "gold": value_document(detail.gold)}


def _validator(schema: Any):
    from jsonschema.validators import validator_for

    cls = validator_for(schema)
    cls.check_schema(schema)
    return cls(schema)


@dataclass
class Validation:
    """jsonschema errors of one output, each placed on the line of the offending node."""

    document: LineDocument  # the output pretty-printed, error lines marked
    errors: list[tuple[int | None, str, str]]  # (line, JSON path, message)
    problem: str | None = None  # why nothing could be validated


def validate_output(value: Any, ok: bool, schema: Any) -> Validation:
    from reviewer.errors import json_path
    from reviewer.jsondiff import align

    if not ok:
        return Validation(value_document(value), [], "the output holds no JSON value")
    if schema is None:
        return Validation(json_document(value), [], "no schema to validate against")
    try:
        validator = _validator(schema)
    except Exception as exc:  # noqa: BLE001 - a broken schema is shown, not raised
        return Validation(json_document(value), [], f"the schema itself is invalid: {exc}")
    layout = align(value, value, [])  # the same pretty text, with a path per line
    doc = LineDocument([line or "" for line in layout.left_lines], json_tokens)
    errors = []
    for err in sorted(validator.iter_errors(value), key=lambda e: list(map(str, e.absolute_path))):
        path = tuple(err.absolute_path)
        row = layout.row_of_path(path, "left")
        while row is None and path:
            path = path[:-1]
            row = layout.row_of_path(path, "left")
        if row is not None:
            doc.roles[row] = "error_bg"
        errors.append((row, json_path(list(err.absolute_path)), err.message))
    return Validation(doc, errors)


def _schema_gen(detail: ItemDetail, outputs: list[PreparedOutput]) -> dict:
    payload = detail.payload or {}
    schema_text = prepare_json_text(detail.schema, "schema")
    verify = payload.get("verify_schema") or (schema_text.value if schema_text.ok else None)
    return {"schema": schema_text, "verify_schema": verify,
            "validations": [validate_output(p.value, p.value_ok, verify) for p in outputs]}


def _call_chain(detail: ItemDetail, outputs: list[PreparedOutput]) -> dict:
    from reviewer_ui.callchain import align_calls

    from reviewer.jsondiff.callshape import gold_ids

    payload = detail.payload or {}
    gold = detail.gold if isinstance(detail.gold, list) else []
    # align_calls wants each gold call's api_id, found by name in the API list as the scorer
    # finds it; payload["api_ids"] is per API, and passing it as per-call misaligned the
    # Calls tab whenever an item had as many APIs as gold calls in another order.
    ids = gold_ids([c for c in gold if isinstance(c, dict)], payload.get("apis"), payload.get("api_ids"))
    return {
        "apis": json_document(payload.get("apis") or []),
        "api_names": [a.get("api_name") for a in payload.get("apis") or [] if isinstance(a, dict)],
        "alignments": [align_calls(gold, p.value if p.value_ok else None, ids) for p in outputs],
        "gold_alignment": align_calls(gold, None, ids),
    }


def _tool_select(detail: ItemDetail, outputs: list[PreparedOutput]) -> dict:
    """Expected tools and, per output, the tools it selects as the scorer reads them
    (reviewer.scoring.toolselect, lenient lines) with the reader's notes."""
    from reviewer.scoring.base import ScoringOutput
    from reviewer.scoring.toolselect import selected_tools

    tools = (detail.payload or {}).get("tools") or []
    names = [t["name"] for t in tools if isinstance(t, dict) and "name" in t]
    chosen, notes = [], []
    for p in outputs:
        o = p.output
        picked, why = selected_tools(names, ScoringOutput(o.text, o.prediction, o.extra or {}, o.status), lenient=True)
        chosen.append(picked)
        notes.append(why)
        if picked is not None:
            # Gold vs output compares the tools the scorer read from the answer (a sorted list, as
            # the gold is) element by element, not the gold list against the model's prose.
            p.value, p.value_ok = sorted(picked), True
    return {"tools": tools, "expected": set(detail.gold or []), "chosen": chosen, "notes": notes}


def _function_call(detail: ItemDetail, outputs: list[PreparedOutput]) -> dict:
    payload = detail.payload or {}
    return {"messages": payload.get("messages") or [], "functions": json_document(payload.get("functions") or []),
            "gold": value_document(detail.gold)}


PREPARERS: dict[str, Callable[[ItemDetail, list[PreparedOutput]], dict]] = {
    ItemKind.TOOL_QA: _tool_qa,
    ItemKind.EXTRACTION: _extraction,
    ItemKind.SCHEMA_GEN: _schema_gen,
    ItemKind.CALL_CHAIN: _call_chain,
    ItemKind.TOOL_SELECT: _tool_select,
    ItemKind.FUNCTION_CALL: _function_call,
}


def load_item(ctx: JobContext, store, item_id: int, review=None) -> ItemBundle:
    """Everything the item view shows for one item (a job for reviewer_ui.runtime.jobs).

    ``review`` (a reviewer.review.Review): the person looking. An annotator of a dataset blind
    to model identity gets the outputs and scores as "Output 1, 2, 3" in the item's shuffled
    order (``Review.outputs``), never a run or model name."""
    detail = store.item(item_id)
    ctx.check_cancelled()
    raw = store.outputs(item_id)
    scores = item_scores(store, item_id)
    blind = review is not None and review.blind_models(detail.dataset_id)
    aliases: dict[int, str] = {}
    if blind:
        from dataclasses import replace

        from reviewer.review.core import blind_numbers

        number = blind_numbers(raw, item_id)
        aliases = {run_id: f"Output {n}" for run_id, n in number.items()}
        by_name = {o.run: aliases[o.run_id] for o in raw}
        scores = sorted((replace(s, run=by_name.get(s.run, "Output")) for s in scores),
                        key=lambda s: (s.run, s.replication, s.mode))
        raw = review.outputs(item_id, detail.dataset_id)
    outputs = [prepare_output(detail.kind, o) for o in raw]
    ctx.check_cancelled()
    prepare = PREPARERS.get(detail.kind)
    view = prepare(detail, outputs) if prepare else {}
    return ItemBundle(detail, outputs, view, scores, blind, aliases)


__all__ = ["ItemBundle", "ParsedJsonText", "PreparedOutput", "Validation", "load_item", "read_json_answer"]
