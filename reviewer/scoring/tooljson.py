"""The toolJSONprocessing scorer (paper 000; shared/FORMATS.md section 1).

Per record it reports ``exact_match`` (the metric named by
``payload["exact_match_metric"]``, or the task type's default), ``contains``
(the raw substring test, as stored per record by the official evaluation) and
``contains_or_exact`` (what the official aggregation reports as "contains").

Faithful mode follows the official ``evals.py`` and ``qa_evaluation.py``
(LongFuncEval/toolJSONprocessing @ 2662547b) branch by branch; the metric
functions and their quirks are in reviewer.scoring.tooljson_metrics:

* **str-only**: every metric is False unless gold and prediction are both
  ``str``; a code output ``8`` against gold ``"8"`` fails.
* **signs and exponents**: approx_number_match reads prediction numbers
  without sign and exponent ("-19" matches gold "19"; "0.90e1" is 0.90).
* **comma numbers**: approx_number_match reads "1,234" as the numbers 1 and 234.
* **strict tolerance**: approx_number_match needs ``abs(p - g) < 1``; 1 vs 2 fails.
* **gold without a number**: the original raises (when the prediction has a
  number) and the run stops; here the record scores False with a note saying so.
* **list match side effect**: unordered_list_str_match shortens the prediction
  by one trailing "." before ``contains`` reads it.
* **metric by substring**: the metric is chosen by substring test on its name;
  a name matching none gives exact_match None.
* **stored predictions**: a record of an official prediction file (it carries
  ``code_exec_status``) is scored on its ``predicted_answer`` as stored; a None
  prediction scores False everywhere even when the output holds code.
* **dropping rule**: a record whose predicted_answer and model_output are both
  None is dropped before averaging (``skipped=True``). The string "None" (as
  some qa_pairs files store it) is a string, so it is not dropped.
* **code generation** (outputs of the app's own reruns): the prediction of a
  code setup is the return value of the model's function run on the tool
  response, or the string "Code execution error". The original runs it
  in-process; here it runs in ``reviewer.sandbox``.

Per record, besides the three accuracies: ``code_exec_passed`` (the official
aggregation's test ``code_exec_status != "Code execution error"``, so direct
setups count as passed), ``hallucination`` (reviewer.scoring.tooljson_hallucination;
None where undecidable without the embedding model) and ``context_exceeded``.

Fixed mode changes (named in each score's notes and in
``tooljson_metrics.FIXED_MODE_DIFFERENCES``): signs, exponents and thousands
separators are kept; non-string predictions are read as text (8 -> "8", 8.0 ->
"8", lists joined with ", "); plain numbers compare as numbers; no list-match
side effect; a gold without a number is False; a prediction "None"/"" stored as
a string counts as missing; a prediction file's code is run when it has no
predicted_answer.
"""

from __future__ import annotations

import ast
import functools
import json
import re
from collections import defaultdict
from typing import Any

from reviewer.sandbox import Limits, SandboxResult, run_many, run_python
from reviewer.scoring import tooljson_hallucination as h
from reviewer.scoring import tooljson_metrics as m
from reviewer.scoring.judge import ChatFn, judge
from reviewer.scoring.base import Mode, ScoreResult, ScoringItem, ScoringOutput
from reviewer.scoring.registry import register_scorer

CODE_EXECUTION_ERROR = "Code execution error"
CONTEXT_EXCEEDED = "context length exceeded"  # qa_inference.py's predicted_answer when the prompt is too long
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
    if name is None:  # "" is kept: officially a name that names no metric gives exact_match None
        raw_metrics = item.raw.get("metrics")
        if isinstance(raw_metrics, str):  # some qa_pairs files store a Python repr of the dict
            try:
                raw_metrics = ast.literal_eval(raw_metrics)
            except (ValueError, SyntaxError):
                raw_metrics = None
        if isinstance(raw_metrics, dict):
            name = raw_metrics.get("exact_match_metric")
    return name if name is not None else m.METRIC_BY_TASK_TYPE.get((item.category or "").upper())


def _output_metric(output: ScoringOutput, mode: Mode) -> str | None:
    """Faithful scoring of a prediction file reads the metric its record names (metrics.exact_match_metric),
    as qa_evaluation.py does; None when the record names none."""
    metrics = output.extra.get("metrics")
    if mode == "faithful" and _from_prediction_file(output) and isinstance(metrics, dict):
        return metrics.get("exact_match_metric")
    return None


def _is_code_setup(output: ScoringOutput) -> bool:
    return "code_generation" in str(output.extra.get("setup_type") or "")


def _from_prediction_file(output: ScoringOutput) -> bool:
    """An output read from an official prediction file: inference already ran the code and stored its result."""
    return "code_exec_status" in output.extra


def _stored_prediction_only(output: ScoringOutput, mode: Mode) -> bool:
    """Faithful scoring of a prediction file reads predicted_answer as stored and runs nothing."""
    return mode == "faithful" and _from_prediction_file(output)


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


@functools.lru_cache(maxsize=4)
def _parsed_context(text: str) -> Any:
    """The tool response read once for the records of one item in a row (the hallucination checks only read it);
    None when it is not JSON."""
    try:
        return json.loads(text)
    except ValueError:
        return None


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
            if (output.prediction is not None or output.text is None or not _is_code_setup(output)
                    or _stored_prediction_only(output, mode)):
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
        metric = _output_metric(output, mode)
        if metric is None:
            metric = metric_name(item)
        if _missing(output.prediction, mode) and _missing(output.text, mode):
            return ScoreResult({"exact_match": None, "contains": None, "contains_or_exact": None},
                               "exact_match", None, skipped=True,
                               notes=["dropped: predicted_answer and model_output are both None "
                                      "(the official scorer leaves such records out of every average)"])
        if _stored_prediction_only(output, mode):
            pred, run_notes = output.prediction, []
            if pred is None and output.text is not None and _is_code_setup(output):
                run_notes = ["the prediction file has no predicted_answer: officially every metric is False "
                             "(the code in the output is not run; fixed mode runs it)"]
        elif computed is not None:
            pred, run_notes = computed
        else:
            pred, run_notes = self.prediction_of(item, output)
        notes += run_notes
        if isinstance(pred, NotRun):  # not the model's failure: left out of every average, reason in the notes
            return ScoreResult({"exact_match": None, "contains": None, "contains_or_exact": None},
                               "exact_match", None, skipped=True, notes=notes)
        gold = item.gold
        scored_pred = pred
        if mode == "fixed":
            if metric not in m.EXACT_MATCH:  # a name that contains one, else the task type's metric
                metric = m.official_metric(metric) or m.METRIC_BY_TASK_TYPE.get((item.category or "").upper())
            exact, found = self._fixed(metric, gold, pred, notes)
            scored_pred = m.as_answer_text(pred)
        else:
            exact, found, pred = self._faithful(metric, gold, pred, notes)
        notes.insert(0, f"exact_match_metric: {metric}; scored prediction: {scored_pred!r}"[:500])
        metrics = {"exact_match": exact, "contains": found, "contains_or_exact": bool(exact or found)}
        metrics.update(self._run_flags(item, output, gold, pred))
        if self.judge_fn is not None:
            metrics["llm_as_a_judge"] = judge(self.judge_fn, item.raw.get("question"), gold, scored_pred)
        return ScoreResult(metrics, "exact_match", bool(exact), notes=notes)

    @staticmethod
    def _faithful(metric: str | None, gold: Any, pred: Any, notes: list[str]) -> tuple[bool | None, bool, Any]:
        """calculate_exact_match, then contains on the prediction as the official code leaves it.

        Returns ``(exact_match, contains, prediction as left for the later checks)``."""
        if not (isinstance(gold, str) and isinstance(pred, str)):
            notes.append(f"str-only quirk: the prediction is {type(pred).__name__} and the gold "
                         f"{type(gold).__name__}; every metric is False unless both are str "
                         "(fixed mode reads numbers as text)")
        if m.official_metric(metric) is None:
            notes.append(f"exact_match_metric {metric!r} names no official metric: exact_match is None, as officially")
        try:
            exact, pred_for_contains = m.official_exact_match(metric, gold, pred)
        except m.GoldHasNoNumber as exc:
            notes.append(f"{exc}: the official scorer raises here (IndexError) and stops; scored False")
            exact, pred_for_contains = False, pred
        if pred_for_contains is not pred:
            notes.append("list-match side effect: the official unordered_list_str_match dropped a trailing '.' "
                         "from the prediction before contains read it")
        if isinstance(pred, str) and m.official_metric(metric) == "approx_number_match":
            if re.search(r"\d,\d{3}", pred):
                notes.append("comma-number quirk: a number with a thousands separator was read as several numbers")
            if re.search(r"-\s*\.?\d|\d[eE][-+]?\d", pred):
                notes.append("sign/exponent quirk: prediction numbers are read without their sign and exponent")
        return exact, m.contains(gold, pred_for_contains), pred_for_contains

    @staticmethod
    def _fixed(metric: str | None, gold: Any, pred: Any, notes: list[str]) -> tuple[bool, bool]:
        pred, gold = m.as_answer_text(pred), m.as_answer_text(gold)
        if not (isinstance(gold, str) and isinstance(pred, str)):
            notes.append(f"the prediction is {type(pred).__name__} and the gold {type(gold).__name__}: "
                         "nothing to compare")
            return False, False
        found = m.contains(gold, pred)
        if metric not in m.EXACT_MATCH:
            notes.append(f"unknown exact_match_metric {metric!r}: exact match not computed")
            return False, found
        return m.fixed_exact_match(metric, gold, pred), found

    @staticmethod
    def _run_flags(item: ScoringItem, output: ScoringOutput, gold: Any, pred: Any) -> dict[str, Any]:
        """The per-record inputs of the official aggregation: code execution, hallucination, context."""
        setup = str(output.extra.get("setup_type") or "")
        if _from_prediction_file(output):
            status = output.extra.get("code_exec_status")
        else:
            status = CODE_EXECUTION_ERROR if _is_code_setup(output) and pred == CODE_EXECUTION_ERROR else ""

        def response() -> Any:
            return _parsed_context(item.context) if isinstance(item.context, str) else item.context

        return {
            "code_exec_passed": status != CODE_EXECUTION_ERROR,
            "hallucination": h.hallucination(setup, gold, pred, output.text, response),
            "context_exceeded": pred == CONTEXT_EXCEEDED,
        }

    def aggregate(self, pairs: list[tuple[ScoringItem, ScoreResult]]) -> dict[str, Any]:
        """Every aggregate qa_aggregation.py prints, over records not dropped.

        Keys: ``overall``, ``by_task_type[type]``, ``by_endpoint[endpoint]``,
        ``by_endpoint_task_type[endpoint][type]``, each a ``_summary`` (samples;
        exact_match, contains (= contains OR exact match, as the official
        aggregation counts it), llm_as_a_judge when a judge ran, code_exec_status
        (passed executions) and hallucination: ``*_total`` counts and rates);
        ``dropped`` (records the dropping rule removed); ``count_context_exceeded``;
        ``official``: the rows of the official workbook (sheet per_endpoint: one
        row per endpoint, keyed by endpoint; sheet per_model_setup: one row for the run) with the
        official column names. The official rows count only the task types
        EXTRACTIVE, FILTERING and AGGREGATION and divide by zero where a type has
        no record (the script crashes); here such averages are None.
        ``report_lines`` says the same in a few lines of text.
        """
        groups: dict[tuple, list[ScoreResult]] = defaultdict(list)
        dropped = 0
        for item, res in pairs:
            if res.skipped:
                dropped += 1
                continue
            task_type, endpoint = item.category or "?", _endpoint(item)
            groups[("overall",)].append(res)
            groups[("by_task_type", task_type)].append(res)
            groups[("by_endpoint", endpoint)].append(res)
            groups[("by_endpoint_task_type", endpoint, task_type)].append(res)
        out: dict[str, Any] = {"overall": _summary(groups.get(("overall",), [])), "by_task_type": {},
                               "by_endpoint": {}, "by_endpoint_task_type": {}, "dropped": dropped}
        for key, results in sorted(groups.items()):
            if key[0] == "by_endpoint_task_type":
                out[key[0]].setdefault(key[1], {})[key[2]] = _summary(results)
            elif key[0] != "overall":
                out[key[0]][key[1]] = _summary(results)
        out["count_context_exceeded"] = out["overall"]["context_exceeded_total"]
        judged = out["overall"]["llm_as_a_judge_total"] is not None
        endpoint_rows = {endpoint: _official_endpoint_row(endpoint, by_type, judged)
                         for endpoint, by_type in out["by_endpoint_task_type"].items()}
        out["official"] = {"per_endpoint": endpoint_rows,
                           "per_model_setup": _official_model_setup(list(endpoint_rows.values()), judged)}
        out["report_lines"] = _report_lines(out)
        return out


OFFICIAL_TASK_TYPES = ("EXTRACTIVE", "FILTERING", "AGGREGATION")


def _endpoint(item: ScoringItem) -> str:
    app, endpoint = item.payload.get("app"), item.payload.get("endpoint")
    if app and endpoint:
        return f"{app}_{endpoint}"
    return endpoint or app or "?"


def _ratio(total: int | None, n: int) -> float | None:
    return total / n if total is not None and n else None


def _summary(results: list[ScoreResult]) -> dict[str, Any]:
    n = len(results)

    def count(metric: str, test=bool) -> int | None:
        """How many results have ``metric`` true; None when no result carries it (e.g. no judge ran)."""
        values = [r.metrics.get(metric) for r in results if r.metrics.get(metric) is not None]
        return sum(1 for v in values if test(v)) if values else None

    exact = sum(r.metrics.get("exact_match") is True for r in results)
    found = sum(bool(r.metrics.get("contains_or_exact")) for r in results)
    judged = count("llm_as_a_judge")
    passed = count("code_exec_passed")
    hallucinated = count("hallucination")
    decided = sum(r.metrics.get("hallucination") is not None for r in results)
    return {
        "samples": n,
        "exact_match_total": exact,
        "exact_match": _ratio(exact, n),
        "contains_total": found,
        "contains": _ratio(found, n),
        "llm_as_a_judge_total": judged,
        "llm_as_a_judge": _ratio(judged, n),
        "code_exec_status_total": passed,
        "code_exec_status": _ratio(passed, n),
        "hallucination_total": hallucinated,
        "hallucination_decided": decided,
        "hallucination": _ratio(hallucinated, decided),
        "context_exceeded_total": count("context_exceeded") or 0,
    }


_OFFICIAL_METRICS = (("exact_match", "exact_match_total"), ("contains", "contains_total"),
                     ("llm_as_a_judge", "llm_as_a_judge_total"), ("code_exec_status", "code_exec_status_total"))


def _official_endpoint_row(endpoint: str, by_type: dict[str, dict], judged: bool) -> dict[str, Any]:
    """One row of the official per_endpoint sheet (aggregate_endpoint of qa_aggregation.py)."""
    row: dict[str, Any] = {"task": endpoint,
                           "count_context_exceeded": sum(s["context_exceeded_total"] for s in by_type.values())}
    totals = {"total_samples": 0, "total_exact_match": 0, "total_contains": 0, "total_llm_as_a_judge": 0}
    for tt in OFFICIAL_TASK_TYPES:
        s = by_type.get(tt) or _summary([])
        n = s["samples"]
        totals["total_samples"] += n
        row[f"{tt}_total_samples"] = n
        for metric, key in _OFFICIAL_METRICS:
            if metric == "llm_as_a_judge" and not judged:
                continue
            total = s[key] or 0
            row[f"total_{tt}_{metric}_accuracy"] = total
            row[f"avg_{tt}_{metric}_accuracy"] = _ratio(total, n)
        totals["total_exact_match"] += s["exact_match_total"]
        totals["total_contains"] += s["contains_total"]
        totals["total_llm_as_a_judge"] += s["llm_as_a_judge_total"] or 0
    row.update(totals)
    row["avg_exact_match"] = _ratio(totals["total_exact_match"], totals["total_samples"])
    row["avg_contains"] = _ratio(totals["total_contains"], totals["total_samples"])
    if judged:
        row["avg_llm_as_a_judge"] = _ratio(totals["total_llm_as_a_judge"], totals["total_samples"])
    else:
        del row["total_llm_as_a_judge"]
    return row


def _official_model_setup(rows: list[dict], judged: bool) -> dict[str, Any]:
    """The official per_model_setup row: the endpoint rows summed."""
    metrics = [metric for metric, _ in _OFFICIAL_METRICS if judged or metric != "llm_as_a_judge"]
    out: dict[str, Any] = {"total_samples": sum(r["total_samples"] for r in rows)}
    for tt in OFFICIAL_TASK_TYPES:
        out[f"{tt}_total_samples"] = sum(r[f"{tt}_total_samples"] for r in rows)
    for metric in metrics:
        out[f"total_{metric}_accuracy"] = sum(r[f"total_{tt}_{metric}_accuracy"] for r in rows for tt in OFFICIAL_TASK_TYPES)
        out[f"avg_{metric}_accuracy"] = _ratio(out[f"total_{metric}_accuracy"], out["total_samples"])
        for tt in OFFICIAL_TASK_TYPES:
            total = sum(r[f"total_{tt}_{metric}_accuracy"] for r in rows)
            out[f"total_{tt}_{metric}_accuracy"] = total
            out[f"avg_{tt}_{metric}_accuracy"] = _ratio(total, out[f"{tt}_total_samples"])
    return out


def _pct(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.3f}"


def _line(name: str, s: dict[str, Any]) -> str:
    parts = [f"{name}: {s['samples']} samples", f"exact {s['exact_match_total']} ({_pct(s['exact_match'])})",
             f"contains {s['contains_total']} ({_pct(s['contains'])})"]
    if s["llm_as_a_judge_total"] is not None:
        parts.append(f"judge {s['llm_as_a_judge_total']} ({_pct(s['llm_as_a_judge'])})")
    if s["code_exec_status_total"] is not None:
        parts.append(f"code exec passed {s['code_exec_status_total']} ({_pct(s['code_exec_status'])})")
    if s["hallucination_decided"]:
        parts.append(f"hallucination {s['hallucination_total']} of {s['hallucination_decided']} decided")
    return ", ".join(parts)


def _report_lines(out: dict[str, Any]) -> list[str]:
    """The official aggregates as text, for `reviewer score`."""
    lines = [_line("overall", out["overall"]),
             f"dropped (predicted_answer and model_output None): {out['dropped']}; "
             f"count_context_exceeded: {out['count_context_exceeded']}"]
    lines += [_line(f"task type {tt}", s) for tt, s in out["by_task_type"].items()]
    for endpoint, by_type in out["by_endpoint_task_type"].items():
        lines += [_line(f"{endpoint} x {tt}", s) for tt, s in by_type.items()]
    return lines
