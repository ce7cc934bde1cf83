"""The toolJSONprocessing scorer (paper 000; shared/FORMATS.md section 1).

Per record it reports ``exact_match`` (the metric named by
``payload["exact_match_metric"]``, or the task type's default), ``contains``
(the raw substring test, as stored per record by the official evaluation) and
``contains_or_exact`` (what the official aggregation reports as "contains").

Faithful-mode quirks, reproduced on purpose:

* **str-only**: every metric is False unless gold and prediction are both
  ``str``; a code output ``8`` against gold ``"8"`` fails.
* **comma numbers**: approx_number_match reads "1,234" as the numbers 1 and 234.
* **strict tolerance**: approx_number_match needs ``abs(p - g) < 1``; 1 vs 2 fails.
* **gold without a number**: the original raises and the run stops; here the
  record scores False with a note saying so.
* **dropping rule**: a record whose predicted_answer and model_output are both
  None is dropped before averaging (``skipped=True``). The string "None" (as
  some qa_pairs files store it) is a string, so it is not dropped.
* **code generation**: the prediction of a code setup is the return value of
  the model's function run on the tool response, or the string
  "Code execution error". The original runs it in-process; here it runs in
  ``reviewer.sandbox``.

Fixed mode changes: non-string predictions are read as text (8 -> "8",
8.0 -> "8", lists joined with ", "); numbers may carry thousands separators;
a prediction "None"/"" stored as a string counts as missing for the dropping rule.
"""

from __future__ import annotations

import ast
import json
import re
from collections import defaultdict
from typing import Any

from reviewer.sandbox import Limits, SandboxResult, run_many, run_python
from reviewer.scoring import tooljson_metrics as m
from reviewer.scoring.judge import ChatFn, judge
from reviewer.scoring.base import Mode, ScoreResult, ScoringItem, ScoringOutput
from reviewer.scoring.registry import register_scorer

CODE_EXECUTION_ERROR = "Code execution error"
_PYTHON_FENCE = re.compile(r"```python\s*\n?(.*?)(?:```|$)", re.DOTALL)
_FIRST_DEF = re.compile(r"^def\s+([A-Za-z_]\w*)\s*\(", re.MULTILINE)


def extract_code(text: str) -> str | None:
    """The model's code: after the first ```python fence up to the next ```, else from the first ``def ``."""
    fenced = _PYTHON_FENCE.search(text)
    if fenced:
        return fenced.group(1)
    start = text.find("def ")
    return text[start:] if start >= 0 else None


def _code_job(text: str) -> tuple[str, str] | str:
    """``(code, entry function)`` of a model output, or the reason there is none."""
    code = extract_code(text)
    if code is None:
        return "the output contains no ```python block and no 'def '"
    entry = _FIRST_DEF.search(code)
    if entry is None:
        return "the extracted code defines no function"
    return code, entry.group(1)


class NotRun:
    """The code of a record was not run (no isolation available); its metrics are not computed."""


def _prediction_from(result: SandboxResult) -> tuple[Any, list[str]]:
    if result.status == "not_run":
        return NotRun(), [result.error or "not run: no isolation available"]
    if not result.ok:
        return CODE_EXECUTION_ERROR, [f"code execution error: {result.error}"]
    notes = [f"code ran in the sandbox ({', '.join(result.isolation)}) in {result.duration:.2f} s"]
    if result.value_is_repr:
        notes.append("the function returned a value JSON cannot carry; its repr is the prediction")
    return result.value, notes


def run_generated_code(text: str, response: Any, limits: Limits | None = None) -> tuple[Any, list[str]]:
    """Run the model's function on the tool response in the sandbox.

    Returns ``(prediction, notes)``: the function's return value, or
    "Code execution error" with the reason in the notes. The function called
    is the first one the code defines (the prompts ask for exactly one that
    takes the whole response).
    """
    job = _code_job(text)
    if isinstance(job, str):
        return CODE_EXECUTION_ERROR, [f"code execution error: {job}"]
    return _prediction_from(run_python(job[0], job[1], [response], limits))


def metric_name(item: ScoringItem) -> str | None:
    """The record's exact-match metric: payload, then the raw record's metrics, then the task type."""
    name = item.payload.get("exact_match_metric")
    if not name:
        raw_metrics = item.raw.get("metrics")
        if isinstance(raw_metrics, str):  # some qa_pairs files store a Python repr of the dict
            try:
                raw_metrics = ast.literal_eval(raw_metrics)
            except (ValueError, SyntaxError):
                raw_metrics = None
        if isinstance(raw_metrics, dict):
            name = raw_metrics.get("exact_match_metric")
    return name or m.METRIC_BY_TASK_TYPE.get((item.category or "").upper())


def _is_code_setup(output: ScoringOutput) -> bool:
    return "code_generation" in str(output.extra.get("setup_type") or "")


def _missing(value: Any, mode: Mode) -> bool:
    if value is None:
        return True
    return mode == "fixed" and isinstance(value, str) and value.strip() in ("", "None")


class _BadResponse:
    def __init__(self, reason: str):
        self.reason = reason


def _response_of(item: ScoringItem) -> Any:
    """The parsed tool response the model's code runs on (a _BadResponse when it is not JSON)."""
    if not isinstance(item.context, str):
        return item.context
    try:
        return json.loads(item.context)
    except ValueError as exc:
        return _BadResponse(f"the item's tool response is not JSON ({exc}); the code was not run")


@register_scorer
class ToolJsonScorer:
    name = "tooljson"
    kind = "tool_qa"

    def __init__(self, limits: Limits | None = None, judge_fn: ChatFn | None = None):
        """``limits`` bound the sandboxed code runs; with ``judge_fn`` (see
        reviewer.scoring.judge) every record also gets ``llm_as_a_judge``."""
        self.limits = limits or Limits()
        self.judge_fn = judge_fn

    def prediction_of(self, item: ScoringItem, output: ScoringOutput) -> tuple[Any, list[str]]:
        """What gets scored: the stored prediction, else the code's result (code setups), else the text."""
        if output.prediction is not None or output.text is None:
            return output.prediction, []
        if _is_code_setup(output):
            response = _response_of(item)
            if isinstance(response, _BadResponse):
                return CODE_EXECUTION_ERROR, [f"code execution error: {response.reason}"]
            return run_generated_code(output.text, response, self.limits)
        return output.text, ["no stored prediction: the model output is scored as the answer"]

    def score_many(self, pairs: list[tuple[ScoringItem, ScoringOutput]], mode: Mode = "faithful",
                   workers: int | None = None) -> list[ScoreResult]:
        """Score many outputs, running the code of code setups in parallel sandboxes.

        Same results as calling ``score`` on each pair, in the same order;
        only faster when many outputs need their code run.
        """
        computed: dict[int, tuple[Any, list[str]]] = {}
        jobs, slots = [], []
        for n, (item, output) in enumerate(pairs):
            if output.prediction is not None or output.text is None or not _is_code_setup(output):
                continue
            if _missing(output.text, mode) and _missing(output.prediction, mode):
                continue
            job, response = _code_job(output.text), _response_of(item)
            if isinstance(job, str) or isinstance(response, _BadResponse):
                reason = job if isinstance(job, str) else response.reason
                computed[n] = (CODE_EXECUTION_ERROR, [f"code execution error: {reason}"])
            else:
                jobs.append((job[0], job[1], [response]))
                slots.append(n)
        for n, result in zip(slots, run_many(jobs, self.limits, workers)):
            computed[n] = _prediction_from(result)
        return [self.score(item, output, mode, computed.get(n)) for n, (item, output) in enumerate(pairs)]

    def score(self, item: ScoringItem, output: ScoringOutput, mode: Mode = "faithful",
              computed: tuple[Any, list[str]] | None = None) -> ScoreResult:
        """Score one output; ``computed`` is a prediction already obtained by ``score_many``."""
        notes: list[str] = []
        metric = metric_name(item)
        if _missing(output.prediction, mode) and _missing(output.text, mode):
            return ScoreResult({"exact_match": None, "contains": None, "contains_or_exact": None},
                               "exact_match", None, skipped=True,
                               notes=["dropped: predicted_answer and model_output are both None "
                                      "(the official scorer leaves such records out of every average)"])
        pred, run_notes = computed if computed is not None else self.prediction_of(item, output)
        notes += run_notes
        if isinstance(pred, NotRun):  # not the model's failure: left out of every average, reason in the notes
            return ScoreResult({"exact_match": None, "contains": None, "contains_or_exact": None},
                               "exact_match", None, skipped=True, notes=notes)
        gold = item.gold
        if mode == "fixed":
            pred, gold = m.as_answer_text(pred), m.as_answer_text(gold)
        exact = found = False
        if not (isinstance(gold, str) and isinstance(pred, str)):
            notes.append(f"str-only quirk: the prediction is {type(pred).__name__} and the gold "
                         f"{type(gold).__name__}; every metric is False unless both are str"
                         + (" (fixed mode reads numbers as text)" if mode == "faithful" else ""))
        elif metric not in m.EXACT_MATCH:
            notes.append(f"unknown exact_match_metric {metric!r}: exact match not computed")
            found = m.contains(gold, pred)
        else:
            try:
                exact = (m.fixed_exact_match(metric, gold, pred) if mode == "fixed"
                         else m.EXACT_MATCH[metric](gold, pred))
            except m.GoldHasNoNumber as exc:
                notes.append(f"{exc}: the official scorer raises here and stops; scored False")
            found = m.contains(gold, pred)
            if metric == "approx_number_match" and mode == "faithful" and re.search(r"\d,\d{3}", pred):
                notes.append("comma-number quirk: a number with a thousands separator was read as several numbers")
        notes.insert(0, f"exact_match_metric: {metric}; scored prediction: {pred!r}"[:500])
        metrics = {"exact_match": exact, "contains": found, "contains_or_exact": exact or found}
        if self.judge_fn is not None:
            metrics["llm_as_a_judge"] = judge(self.judge_fn, item.raw.get("question"), gold, pred)
        return ScoreResult(metrics, "exact_match", exact, notes=notes)

    def aggregate(self, pairs: list[tuple[ScoringItem, ScoreResult]]) -> dict[str, Any]:
        """Accuracy overall, per task type and per endpoint, over records not dropped.

        Keys: ``overall``, ``by_task_type[type]``, ``by_endpoint[endpoint]``,
        each ``{"samples", "exact_match", "contains", "llm_as_a_judge"}`` where
        the metrics are accuracies (contains = contains OR exact match, as the
        official aggregation reports it) and ``*_total`` the counts; plus
        ``dropped`` (how many records the dropping rule removed).
        """
        groups: dict[tuple[str, str], list[ScoreResult]] = defaultdict(list)
        dropped = 0
        for item, res in pairs:
            if res.skipped:
                dropped += 1
                continue
            groups[("overall", "")].append(res)
            groups[("by_task_type", item.category or "?")].append(res)
            groups[("by_endpoint", _endpoint(item))].append(res)
        out: dict[str, Any] = {"overall": _summary([]), "by_task_type": {}, "by_endpoint": {}, "dropped": dropped}
        for (level, key), results in groups.items():
            summary = _summary(results)
            if level == "overall":
                out["overall"] = summary
            else:
                out[level][key] = summary
        return out


def _endpoint(item: ScoringItem) -> str:
    app, endpoint = item.payload.get("app"), item.payload.get("endpoint")
    if app and endpoint:
        return f"{app}_{endpoint}"
    return endpoint or app or "?"


def _summary(results: list[ScoreResult]) -> dict[str, Any]:
    n = len(results)
    exact = sum(bool(r.metrics.get("exact_match")) for r in results)
    found = sum(bool(r.metrics.get("contains_or_exact")) for r in results)
    judged = [r.metrics.get("llm_as_a_judge") for r in results if r.metrics.get("llm_as_a_judge") is not None]
    return {
        "samples": n,
        "exact_match_total": exact,
        "exact_match": exact / n if n else None,
        "contains_total": found,
        "contains": found / n if n else None,
        "llm_as_a_judge_total": sum(judged) if judged else None,
        "llm_as_a_judge": sum(judged) / n if judged and n else None,
    }
