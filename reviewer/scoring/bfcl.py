"""BFCL scorer (kind ``function_call``), v3 and v4 categories, as bfcl-eval scores them.

Item fields read: ``gold`` (the possible answers: one ``{function: {param:
[allowed values]}}`` per expected call; for memory and web_search the list of
accepted answer strings), ``payload["functions"]`` (the function schemas),
``category`` (the BFCL test category without its version prefix; a stored
"BFCL_v4_simple_python" is read as "simple_python").

How each category is scored (faithful = bfcl-eval's ``eval_runner``):

- AST categories (simple/simple_python, simple_java, simple_javascript,
  multiple, parallel, parallel_multiple, live_simple, live_multiple,
  live_parallel, live_parallel_multiple): the answer is decoded (tool calls
  from ``extra["tool_calls"]`` as a function-calling model gives them, else the
  text by BFCL's ``default_decode_ast_prompting``, reviewer.scoring.bfcl_decode);
  a failure is ``ast_decoder:decoder_failed``, a result that is not a list of
  ``{name: {params}}`` is ``ast_decoder:decoder_wrong_output_format``; then
  the AST checker (reviewer.scoring.bfcl_checker) with the Java or JavaScript
  conversions where the category names the language. Java and JavaScript
  answers given as text are parsed with BFCL's tree-sitter parsers
  (reviewer.scoring.bfcl_treesitter) when tree-sitter is installed.
- irrelevance, live_irrelevance: passes when the answer does not decode to a
  call (``irrelevance_error:decoder_success`` otherwise); live_relevance:
  passes when it does (``relevance_error:decoder_failed``).
- memory, web_search (v4 agentic): the answer text is the model's last
  message; it fails with ``agentic:no_last_message`` when it decodes to a
  function call, else passes when one of the gold strings occurs in it on word
  boundaries after BFCL's agentic normalisation (``,./-_*^()`` removed,
  lowercase, ' as "; whitespace kept), ``agentic:answer_not_found`` otherwise.
- function names: for answers given as tool calls the expected name
  "math.hypot" is looked up as "math_hypot", as bfcl-eval does for the models
  whose APIs forbid "." (``underscore_to_dot``); ``extra["underscore_to_dot"]``
  overrides it per output.
- format_sensitivity: each item is its referenced question with its possible
  answers, checked like its own category with Python rules; the answer is
  decoded in the return format it was asked for (``extra["format_sensitivity_config"]``
  as BFCL writes it, "ret_fmt=json&tool_call_tag=True&...", or
  ``extra["return_format"]`` / ``extra["tool_call_tag"]``; default Python, no tag).

Not scored (skipped, with the reason in the notes): multi_turn_* (BFCL runs
each turn's calls in its simulated API classes and compares states; an output
here is one answer, not the per-turn call lists), exec_*, rest, sql, chatable
(execution or no checker in the current release), Java and JavaScript answers
given as text when tree-sitter is not installed, parameter types the
official checker cannot convert (it stops there too), and format_sensitivity
items whose referenced question was not imported.

A failed model call (status "error") is scored faithfully as bfcl-eval scores
the text "Error during inference: ..." it records (an AST item fails with
``ast_decoder:decoder_failed``, an irrelevance item passes; memory and
web_search fail with ``agentic:inference_error``); in fixed mode it fails
everywhere (``model_error``): a model that never answered did not abstain.

Fixed mode, every difference from faithful named (details in bfcl_decode and
bfcl_checker):
1. decoding Python-format text: the lenient decoder; fenced answers with a
   language tag and JSON calls are read; tuples become lists (so they pass
   array parameters); ``+5`` is 5 and ``not True`` False; ``f(**{"a": 1})`` is
   ``f(a=1)``; lambdas and comparisons become source text instead of failures.
   This applies to AST and relevance categories alike (a JSON call counts as a
   call for irrelevance);
2. function names: "math_factorial" and "math.factorial" both match, whatever
   the model's ``underscore_to_dot``;
3. parallel calls: a maximum matching instead of BFCL's greedy one;
4. a failed model call fails every category (``model_error``).
Unchanged in fixed mode: the Java / JavaScript conversions and tree-sitter
parsing, the JSON / XML return formats of format_sensitivity, the agentic
check, and every type and value rule.

Per output: ``accuracy`` (1 or 0, primary), ``calls``; the first note is
``error_type: <BFCL's error type>`` for a failure. ``aggregate`` gives the
accuracy over scored outputs, per category, and the unweighted category mean.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from reviewer.scoring.base import Mode, ScoreResult, ScoringItem, ScoringOutput
from reviewer.scoring import bfcl_treesitter
from reviewer.scoring.bfcl_checker import check_calls, undot_names
from reviewer.scoring.bfcl_decode import (
    DecodeError,
    decode,
    decode_ast_prompting,
    decode_structured,
    decode_tool_calls,
    is_empty_output,
    is_function_call_list,
)
from reviewer.scoring.bfcl_types import UnsupportedConversion
from reviewer.scoring.registry import register_scorer

_VERSION_PREFIX = re.compile(r"^BFCL_v\d+_")

# Categories scored by other means than the AST checker, or not at all, and why.
NOT_SCORED = {
    "multi_turn": "BFCL scores multi-turn items by running each turn's calls in its simulated API classes and "
    "comparing the resulting states; an output here is one answer, not the per-turn call lists",
    "exec": "BFCL's executable categories run the calls (not part of the current release's checker)",
    "rest": "BFCL scores REST items by calling live APIs",
    "sql": "BFCL has no checker for the sql category",
    "chatable": "BFCL has no checker for the chatable category",
}
AGENTIC = ("memory", "web_search")


def plain_category(category: str | None) -> str:
    """The category without a version prefix: "BFCL_v4_simple_python" -> "simple_python"."""
    return _VERSION_PREFIX.sub("", (category or "simple").strip()).lower()


def language_of(category: str) -> str:
    """BFCL's ``is_js`` / ``is_java``: "javascript" or "java" in the name, else Python."""
    if "javascript" in category:
        return "javascript"
    if "java" in category:
        return "java"
    return "python"


@dataclass
class Verdict:
    """One output's BFCL verdict: ``scored`` False means "not scored", with ``reason``."""

    scored: bool
    valid: bool = False
    error_type: str | None = None
    errors: list[str] = field(default_factory=list)
    calls: int | None = None
    reason: str | None = None


def _not_scored(reason: str) -> Verdict:
    return Verdict(False, reason=reason)


def _failure(error_type: str, message: str, calls: int | None = None) -> Verdict:
    return Verdict(True, False, error_type, [message], calls)


_CONFIG = re.compile(r"ret_fmt=(python|json|verbose_xml|concise_xml)&tool_call_tag=(True|False)")


def prompt_format(output: ScoringOutput) -> tuple[str, bool]:
    """The return format and tool-call tag a format_sensitivity answer was asked for: from
    ``extra["format_sensitivity_config"]`` (BFCL's "ret_fmt=json&tool_call_tag=True&..."),
    else ``extra["return_format"]`` / ``extra["tool_call_tag"]``, else Python without a tag."""
    extra = output.extra or {}
    config = extra.get("format_sensitivity_config")
    if isinstance(config, str) and (match := _CONFIG.search(config)):
        return match.group(1), match.group(2) == "True"
    return str(extra.get("return_format") or "python"), bool(extra.get("tool_call_tag"))


def _decode(output: ScoringOutput, fixed: bool, prompt: tuple[str, bool] = ("python", False)) -> list:
    """The decoded answer (any shape the decoder gives); DecodeError when it does not decode."""
    tool_calls = (output.extra or {}).get("tool_calls")
    if tool_calls:
        return decode_structured(tool_calls) if fixed else decode_tool_calls(tool_calls)
    if fixed and prompt == ("python", False):
        return decode(output.text, output.extra)
    return decode_ast_prompting(output.text if output.text is not None else "", *prompt)


def _relevance(category: str, output: ScoringOutput, fixed: bool) -> Verdict:
    try:
        decoded = _decode(output, fixed)
        has_call, problem = not is_empty_output(decoded), None
    except DecodeError as exc:
        decoded, has_call, problem = None, False, str(exc)
    calls = len(decoded) if has_call else 0
    if "irrelevance" in category:
        if has_call:
            return _failure("irrelevance_error:decoder_success",
                            "Valid syntax. Successfully decode AST when it should not.", calls)
        return Verdict(True, True, calls=0)
    if not has_call:
        return _failure("relevance_error:decoder_failed",
                        f"Invalid syntax. Failed to decode AST when it should have. {problem or ''}".strip(), 0)
    return Verdict(True, True, calls=calls)


_AGENTIC_STRIP = re.compile(r"[\,\.\/\-\_\*\^\(\)]")


def agentic_standardise(text: str) -> str:
    """BFCL's agentic ``standardize_string``: no ``,./-_*^()``, lowercase, ' as " (spaces kept)."""
    return _AGENTIC_STRIP.sub("", text).lower().replace("'", '"')


def _agentic(item: ScoringItem, output: ScoringOutput) -> Verdict:
    gold = item.gold if isinstance(item.gold, list) else []
    if not all(isinstance(g, str) for g in gold) or not gold:
        return _not_scored("the item has no list of accepted answer strings")
    text = output.text
    if (output.extra or {}).get("tool_calls") and not (text or "").strip():
        return _failure("agentic:no_last_message", "Cannot find the last chat message that is not a function call.")
    if not text:  # bfcl-eval: an empty last message does not count as one
        return _failure("agentic:no_last_message", "Cannot find the last chat message that is not a function call.")
    try:
        decoded = decode_ast_prompting(text)
        is_call = not (len(decoded) == 0 or (len(decoded) == 1 and len(decoded[0]) == 0))
    except DecodeError:
        is_call = False
    if is_call:
        return _failure("agentic:no_last_message", "Cannot find the last chat message that is not a function call.")
    response = agentic_standardise(text)
    for answer in gold:
        if re.search(rf"\b{re.escape(agentic_standardise(answer))}\b", response):
            return Verdict(True, True, calls=0)
    return _failure("agentic:answer_not_found", "None of the expected answers were found in the model response.", 0)


def _underscore_to_dot(output: ScoringOutput) -> bool:
    """BFCL's per-model ``underscore_to_dot``: ``extra["underscore_to_dot"]`` when the run says,
    else True for answers given as tool calls (the APIs BFCL sets it for forbid "." in names)."""
    extra = output.extra or {}
    if "underscore_to_dot" in extra:
        return bool(extra["underscore_to_dot"])
    return bool(extra.get("tool_calls"))


def _ast(item: ScoringItem, output: ScoringOutput, category: str, dispatch: str, fixed: bool,
         prompt: tuple[str, bool] = ("python", False)) -> Verdict:
    language = language_of(category)
    try:
        if language != "python" and not (output.extra or {}).get("tool_calls"):
            if not bfcl_treesitter.available():
                return _not_scored(
                    f"a {language} answer given as text: BFCL decodes it with its tree-sitter {language} parser, "
                    f"and {bfcl_treesitter.MISSING_REASON} (answers given as tool calls are scored)"
                )
            calls = bfcl_treesitter.decode_prompting(output.text if output.text is not None else "", language)
        else:
            calls = _decode(output, fixed, prompt)
    except DecodeError as exc:
        return _failure("ast_decoder:decoder_failed", f"Invalid syntax. Failed to decode AST. {exc}")
    if not is_function_call_list(calls):
        return _failure("ast_decoder:decoder_wrong_output_format", "Did not output in the specified format.")
    functions = (item.payload or {}).get("functions") or []
    if fixed:
        calls = undot_names(calls, functions)
    answers = item.gold if isinstance(item.gold, list) else []
    try:
        check = check_calls(functions, calls, answers, dispatch, fixed=fixed, language=language,
                            underscore_to_dot=not fixed and _underscore_to_dot(output))
    except UnsupportedConversion as exc:
        return _not_scored(f"the official checker cannot check this item: {exc}")
    return Verdict(True, check.valid, None if check.valid else check.error_type, [str(e) for e in check.errors], len(calls))


def evaluate(item: ScoringItem, output: ScoringOutput, mode: Mode = "faithful") -> Verdict:
    """The BFCL verdict of one output (see the module docstring for every category)."""
    fixed = mode == "fixed"
    category = plain_category(item.category)
    for prefix, reason in NOT_SCORED.items():
        if category == prefix or category.startswith(prefix + "_"):
            return _not_scored(f"category {category!r}: {reason}")
    if output.status == "error":
        if fixed:
            return _failure("model_error", "the model call failed")
        if category.startswith(AGENTIC):
            return _failure("agentic:inference_error",
                            "Error during inference phase. Model did not output a list of model responses.")
        # bfcl-eval writes "Error during inference: <message>" as the result and scores that text,
        # so it fails to decode: an AST item fails, an irrelevance item passes.
        output = ScoringOutput(f"Error during inference: {output.text or ''}", status="error")
    if category == "format_sensitivity" or category.startswith("format_sensitivity"):
        original = (item.payload or {}).get("original_id")
        if not original or not (item.payload or {}).get("functions"):
            return _not_scored("format_sensitivity: the question it refers to was not imported with it")
        # As bfcl-eval: checked with Python rules, dispatched on the original id ("parallel"/"multiple" in it).
        return _ast(item, output, "format_sensitivity", original, fixed, prompt_format(output))
    if category.startswith(AGENTIC):
        return _agentic(item, output)
    if "relevance" in category:  # irrelevance, live_irrelevance, live_relevance
        return _relevance(category, output, fixed)
    return _ast(item, output, category, category, fixed)


def _result(verdict: Verdict, mode: Mode) -> ScoreResult:
    if not verdict.scored:
        return ScoreResult({}, "accuracy", None, skipped=True, notes=[f"not scored: {verdict.reason}"])
    notes = []
    if not verdict.valid:
        notes.append(f"error_type: {verdict.error_type}")
        if verdict.errors:
            notes.append(" ".join(verdict.errors))
    notes.append(f"mode: {mode}")
    return ScoreResult(
        metrics={"accuracy": 1 if verdict.valid else 0, "calls": verdict.calls},
        primary="accuracy",
        passed=verdict.valid,
        notes=notes,
    )


@register_scorer
class BfclScorer:
    name = "bfcl"
    kind = "function_call"

    def score(self, item: ScoringItem, output: ScoringOutput, mode: Mode = "faithful") -> ScoreResult:
        return _result(evaluate(item, output, mode), mode)

    def aggregate(self, pairs: list[tuple[ScoringItem, ScoreResult]]) -> dict[str, Any]:
        """``accuracy`` over scored outputs, ``by_category`` {category: {accuracy, items}},
        ``category_mean`` (unweighted mean over categories) and ``skipped``."""
        by_category: dict[str, list[int]] = {}
        skipped = 0
        for item, result in pairs:
            if result.skipped:
                skipped += 1
                continue
            by_category.setdefault(plain_category(item.category), []).append(result.metrics["accuracy"])
        scores = [s for values in by_category.values() for s in values]
        categories = {
            c: {"accuracy": sum(v) / len(v), "items": len(v)} for c, v in sorted(by_category.items())
        }
        return {
            "items": len(scores),
            "skipped": skipped,
            "accuracy": sum(scores) / len(scores) if scores else None,
            "by_category": categories,
            "category_mean": (
                sum(c["accuracy"] for c in categories.values()) / len(categories) if categories else None
            ),
        }


SCORER = BfclScorer()
