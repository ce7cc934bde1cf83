"""Record-by-record equality with bfcl-eval itself, on its shipped BFCL_v4 data.

bfcl-eval (the official package, a test dependency) is installed without its
model-client dependencies (torch, vLLM, provider SDKs); its checker module
imports the table of model handlers only to read one per-model flag
(``underscore_to_dot``), so the tests put a table answering that flag in its
place before importing. Everything else is bfcl-eval's own code: the AST
checker with its Java/JavaScript converters, ``default_decode_ast_prompting``,
``default_decode_execute_prompting``, ``is_empty_output``,
``is_function_calling_format_output``, ``is_empty_execute_response`` and the
agentic checker, composed as ``eval_runner`` composes them.

For every item of every category a seeded set of answers is built from its
possible answers: correct ones, and perturbations of every kind (types,
tuples, arithmetic, unary operators, ``**kwargs``, fenced and JSON text, Java
and JavaScript source strings, relevance outputs, agentic answers). Ours and
the official verdict must be equal per record: same pass/fail, same error type;
where the official code raises, ours says "not scored".
"""

from __future__ import annotations

import itertools
import json
import random
import sys
import types
from collections import Counter, defaultdict
from pathlib import Path

import pytest

from reviewer.formats.bfcl import BfclFormat
from reviewer.jobs import silent
from reviewer.scoring.base import ScoringItem, ScoringOutput
from reviewer.scoring.bfcl import evaluate, plain_category

bfcl_eval = pytest.importorskip("bfcl_eval", reason="bfcl-eval (test extra) is not installed")


class _ModelTable(dict):
    """Stands in for bfcl-eval's model table: only ``underscore_to_dot`` is read by the checker."""

    def __missing__(self, name):
        return types.SimpleNamespace(underscore_to_dot=name.startswith("fc"))


if "bfcl_eval.constants.model_config" not in sys.modules:
    _shim = types.ModuleType("bfcl_eval.constants.model_config")
    _shim.MODEL_CONFIG_MAPPING = _ModelTable()
    sys.modules["bfcl_eval.constants.model_config"] = _shim

from bfcl_eval.constants.enums import Language, ReturnFormat  # noqa: E402
from bfcl_eval.eval_checker.agentic_eval.agentic_checker import agentic_checker  # noqa: E402
from bfcl_eval.eval_checker.ast_eval.ast_checker import ast_checker  # noqa: E402
from bfcl_eval.eval_checker.multi_turn_eval.multi_turn_utils import is_empty_execute_response  # noqa: E402
from bfcl_eval.model_handler.utils import (  # noqa: E402
    default_decode_ast_prompting,
    default_decode_execute_prompting,
    parse_prompt_variation_params,
)
from bfcl_eval.utils import is_empty_output, is_function_calling_format_output  # noqa: E402

DATA = Path(bfcl_eval.__file__).parent / "data"
SEED = 13


# ------------------------------------------------------------------ the official pipeline


def official_ast(item: ScoringItem, output: ScoringOutput, category: str, fc: bool):
    """``_evaluate_single_ast_entry``: (valid, error_type), or ("raised", exception name)."""
    dispatch = item.payload.get("original_id") or category
    language = Language.JAVA if "java" in category and "javascript" not in category else (
        Language.JAVASCRIPT if "javascript" in category else Language.PYTHON)
    try:
        if fc:  # an FC handler's decode_ast: [{name: json.loads(arguments)}]
            decoded = [{c["function"]["name"]: json.loads(c["function"]["arguments"])} for c in output.extra["tool_calls"]]
        else:
            return_format = {Language.JAVA: ReturnFormat.JAVA, Language.JAVASCRIPT: ReturnFormat.JAVASCRIPT}.get(
                language, ReturnFormat.PYTHON)
            config = (output.extra or {}).get("format_sensitivity_config")
            if config:  # as format_sensitivity_runner reads it
                fmt, tag, *_ = parse_prompt_variation_params(config)
                decoded = default_decode_ast_prompting(output.text, ReturnFormat(fmt), tag)
            else:
                decoded = default_decode_ast_prompting(output.text, return_format)
    except Exception:
        return False, "ast_decoder:decoder_failed"
    if not is_function_calling_format_output(decoded):
        return False, "ast_decoder:decoder_wrong_output_format"
    try:
        result = ast_checker(item.payload["functions"], decoded, item.gold, language, dispatch,
                             "fc_model" if fc else "prompt_model")
    except Exception as exc:
        return "raised", type(exc).__name__
    return result["valid"], None if result["valid"] else result["error_type"]


def official_relevance(output: ScoringOutput, category: str):
    """``_evaluate_single_relevance_entry`` for a prompting model."""
    try:
        decoded = default_decode_ast_prompting(output.text)
        has_call = not is_empty_output(decoded)
    except Exception:
        has_call = False
    if "irrelevance" in category:
        return (True, None) if not has_call else (False, "irrelevance_error:decoder_success")
    return (True, None) if has_call else (False, "relevance_error:decoder_failed")


def official_agentic(output: ScoringOutput, gold: list):
    """``_evaluate_single_agentic_entry`` for one step (the answer text)."""
    step = output.text
    try:
        decoded = default_decode_execute_prompting(step)
        last = step if is_empty_execute_response(decoded) else None
    except Exception:
        last = step
    if not last:
        return False, "agentic:no_last_message"
    result = agentic_checker(last, gold)
    return result["valid"], None if result["valid"] else result["error_type"]


# ------------------------------------------------------------------ answers built from the gold


def first_values(answer: dict) -> dict:
    """One correct call: the first allowed value of each parameter, optional ones left out."""
    (name, params), = answer.items()
    if not isinstance(params, dict):  # a malformed possible answer (v3 parallel_multiple_179)
        return {name: {}}
    return {name: {p: next(v for v in allowed if v != "") for p, allowed in params.items()
                   if any(v != "" for v in allowed)}}


def py(value, tuples=False) -> str:
    if isinstance(value, dict):
        return "{" + ", ".join(f"{py(k)}: {py(v, tuples)}" for k, v in value.items()) + "}"
    if isinstance(value, list):
        inner = ", ".join(py(v, tuples) for v in value)
        return f"({inner}{',' if len(value) == 1 else ''})" if tuples else f"[{inner}]"
    return repr(value)


def call_text(calls: list, render=None) -> str:
    render = render or {}
    parts = []
    for call in calls:
        (name, args), = call.items()
        items = [f"{k}={render.get((id(call), k), py(v))}" for k, v in args.items()]
        if (id(call), "**") in render:
            items.append(render[(id(call), "**")])
        parts.append(f"{name}({', '.join(items)})")
    return "[" + ", ".join(parts) + "]"


def tool_calls(calls: list, underscore: bool) -> list:
    out = []
    for call in calls:
        (name, args), = call.items()
        out.append({"type": "function", "function": {
            "name": name.replace(".", "_") if underscore else name, "arguments": json.dumps(args)}})
    return out


def ast_answers(item: ScoringItem, rng: random.Random):
    """(kind, ScoringOutput, fc) for one Python AST item."""
    gold = item.gold
    calls = [first_values(a) for a in gold]
    if "parallel" in (item.payload.get("original_id") or item.category):
        rng.shuffle(calls)
    text = lambda render=None: call_text(calls, render)  # noqa: E731
    yield "correct", ScoringOutput(text()), False
    yield "model_error", ScoringOutput("HTTP 500 from the endpoint", status="error"), False
    yield "correct_bare", ScoringOutput(text()[1:-1]), False
    yield "fc_correct", ScoringOutput(None, extra={"tool_calls": tool_calls(calls, True)}), True
    yield "fc_dotted", ScoringOutput(None, extra={"tool_calls": tool_calls(calls, False), "underscore_to_dot": True}), True
    broken = tool_calls(calls, True)
    broken[0]["function"]["arguments"] = rng.choice(["[1, 2]", "not json", '"text"', "null", "{"])
    yield "fc_bad_arguments", ScoringOutput(None, extra={"tool_calls": broken}), True
    yield "fenced_python", ScoringOutput(f"```python\n{text()}\n```"), False
    yield "fenced_bare", ScoringOutput(f"```\n{text()}\n```"), False
    yield "json_text", ScoringOutput(json.dumps(calls)), False
    yield "json_named", ScoringOutput(json.dumps([{"name": n, "arguments": a} for c in calls for n, a in c.items()])), False
    yield "prose", ScoringOutput(f"Sure! {text()}"), False
    yield "empty_list", ScoringOutput("[]"), False
    yield "extra_call", ScoringOutput(call_text(calls + calls[:1])), False
    yield "wrong_name", ScoringOutput(call_text([{next(iter(c)) + "_x": next(iter(c.values()))} for c in calls])), False
    yield "underscored_name", ScoringOutput(call_text([{next(iter(c)).replace(".", "_"): next(iter(c.values()))} for c in calls])), False
    for call in calls:
        (name, args), = call.items()
        if not args:
            continue
        keys = sorted(args, key=str)
        key = rng.choice(keys)
        value = args[key]
        r = lambda text_: text(render={(id(call), key): text_})  # noqa: E731
        yield "positional", ScoringOutput(text().replace(f"{name}(", f"{name}(0, ", 1)), False
        yield "kwargs", ScoringOutput(text(render={(id(call), key): None, (id(call), "**"): f"**{{{key!r}: {py(value)}}}"}).replace(f"{key}=None, ", "").replace(f", {key}=None", "").replace(f"{key}=None", "")), False
        yield "variable", ScoringOutput(r("some_variable")), False
        yield "subscript", ScoringOutput(r("values[0]")), False
        yield "nested_call", ScoringOutput(r("helper(x=1)")), False
        yield "call_no_kw", ScoringOutput(r("helper(1)")), False
        yield "lambda", ScoringOutput(r("lambda: 1")), False
        yield "set", ScoringOutput(r("{1, 2}")), False
        yield "unexpected_param", ScoringOutput(text().replace(f"{name}(", f"{name}(zz_unexpected=1, ", 1)), False
        rest = {k: v for k, v in args.items() if k != key}
        yield "dropped_param", ScoringOutput(call_text([{name: rest} if c is call else c for c in calls])), False
        yield "fc_dropped_param", ScoringOutput(None, extra={"tool_calls": tool_calls([{name: rest} if c is call else c for c in calls], True)}), True
        if isinstance(value, bool):
            yield "bool_as_int", ScoringOutput(r(str(int(value)))), False
            yield "unary_not", ScoringOutput(r(f"not {value}")), False
            yield "bool_flipped", ScoringOutput(r(repr(not value))), False
        elif isinstance(value, int):
            yield "int_as_float", ScoringOutput(r(repr(float(value)))), False
            yield "int_as_str", ScoringOutput(r(repr(str(value)))), False
            yield "int_plus_one", ScoringOutput(r(repr(value + 1))), False
            yield "arith_equal", ScoringOutput(r(f"({value} + 3) - 3")), False
            yield "arith_mult", ScoringOutput(r(f"{value} * 2")), False
            yield "arith_pow", ScoringOutput(r(f"{abs(value) % 7} ** 2")), False
            yield "arith_div", ScoringOutput(r(f"{value} / 1")), False
            yield "arith_zero_div", ScoringOutput(r(f"{value} // 0")), False
            yield "unary_plus", ScoringOutput(r(f"+{abs(value)}")), False
            yield "unary_minus", ScoringOutput(r(f"-{abs(value)}")), False
            yield "unary_name", ScoringOutput(r("-offset")), False
            yield "fc_int_as_str", ScoringOutput(None, extra={"tool_calls": tool_calls([{name: {**args, key: str(value)}} if c is call else c for c in calls], True)}), True
        elif isinstance(value, float):
            yield "float_as_int", ScoringOutput(r(str(int(value)))), False
            yield "float_as_str", ScoringOutput(r(repr(str(value)))), False
            yield "arith_float", ScoringOutput(r(f"{value} * 1.0")), False
            yield "unary_plus", ScoringOutput(r(f"+{abs(value)}")), False
            yield "unary_minus", ScoringOutput(r(f"-{abs(value)}")), False
        elif isinstance(value, str):
            cut = len(value) // 2
            yield "str_concat", ScoringOutput(r(f"{value[:cut]!r} + {value[cut:]!r}")), False
            yield "str_case", ScoringOutput(r(repr(value.upper() + " ,"))), False
            yield "str_changed", ScoringOutput(r(repr(value + "zz"))), False
            yield "str_as_list", ScoringOutput(r(py([value]))), False
            yield "unary_str", ScoringOutput(r(f"-{value!r}")), False
        elif isinstance(value, list):
            yield "tuple", ScoringOutput(r(py(value, tuples=True))), False
            yield "list_reversed", ScoringOutput(r(py(value[::-1]))), False
            yield "list_empty", ScoringOutput(r("[]")), False
            yield "list_concat", ScoringOutput(r(f"{py(value[:1])} + {py(value[1:])}")), False
            if value and isinstance(value[0], (int, float)) and not isinstance(value[0], bool):
                yield "list_item_str", ScoringOutput(r(py([str(value[0])] + value[1:]))), False
        elif isinstance(value, dict):
            yield "dict_extra_key", ScoringOutput(r(py({**value, "zz": 1}))), False
            yield "dict_missing_key", ScoringOutput(r(py(dict(list(value.items())[1:])))), False
            yield "dict_as_str", ScoringOutput(r(repr(json.dumps(value)))), False


XML_TYPES = {str: "string", bool: "boolean", int: "integer", float: "float", list: "array", dict: "dict", type(None): "null"}


def in_format(calls: list, fmt: str, rng: random.Random, wrong_type: bool = False) -> str:
    """The calls as a format_sensitivity prompt asks for them."""
    if fmt == "python":
        return call_text(calls)
    if fmt == "json":
        return json.dumps([{"function": n, "parameters": a} for c in calls for n, a in c.items()])
    out = []
    for call in calls:
        (name, args), = call.items()
        params = []
        for k, v in args.items():
            kind = "string" if wrong_type and rng.random() < 0.5 else XML_TYPES.get(type(v), "string")
            raw = repr(v) if isinstance(v, (list, dict)) else ("true" if v is True else "false" if v is False else str(v))
            raw = raw.replace("&", "&amp;").replace('"', "&quot;").replace("<", "&lt;")
            if fmt == "verbose_xml":
                params.append(f'<param name="{k}" value="{raw}" type="{kind}"/>')
            else:
                params.append(f'<param name="{k}" type="{kind}">{raw}</param>')
        inner = "".join(params)
        out.append(f'<function name="{name}">' + (f"<params>{inner}</params>" if fmt == "verbose_xml" else inner) + "</function>")
    return "<functions>" + "".join(out) + "</functions>"


def format_answers(item: ScoringItem, rng: random.Random):
    """format_sensitivity: answers in each of BFCL's return formats, with and without the tool-call tag."""
    calls = [first_values(a) for a in item.gold]
    for fmt in ("python", "json", "verbose_xml", "concise_xml"):
        for tag in (False, True):
            config = f"ret_fmt={fmt}&tool_call_tag={tag}&func_doc_fmt=json&prompt_fmt=plaintext&style=classic"
            body = in_format(calls, fmt, rng)
            texts = {
                "fmt_correct": f"<TOOLCALL>{body}</TOOLCALL>" if tag else body,
                "fmt_untagged": body,
                "fmt_prose": f"Here you go: <TOOLCALL>{body}</TOOLCALL> done" if tag else f"Here you go: {body}",
                "fmt_wrong_type": in_format(calls, fmt, rng, wrong_type=True),
                "fmt_other": in_format(calls, rng.choice(["python", "json", "verbose_xml", "concise_xml"]), rng),
                "fmt_broken": body[: max(1, len(body) // 2)],
            }
            for kind, text in texts.items():
                yield kind, ScoringOutput(text, extra={"format_sensitivity_config": config}), False


# ------------------------------------------------------------------ Java and JavaScript source strings


def java_source(value, schema: dict) -> str:
    kind = schema.get("type")
    if isinstance(value, bool):
        return "true" if value else "false"
    if kind == "long" and isinstance(value, int):
        return f"{value}L"
    if kind == "float" and isinstance(value, (int, float)):
        return f"{float(value)}f"
    if kind in ("Array", "ArrayList") and isinstance(value, list):
        item_type = (schema.get("items") or {}).get("type", "String")
        parts = ", ".join(f'"{v}"' if isinstance(v, str) else java_source(v, {"type": item_type}) for v in value)
        return f"new ArrayList<>(Arrays.asList({parts}))" if kind == "ArrayList" else f"new {item_type}[]{{{parts}}}"
    if kind == "HashMap" and isinstance(value, dict):
        puts = " ".join(f'put("{k}", {json.dumps(v[0] if isinstance(v, list) else v)});' for k, v in value.items())
        return f"new HashMap<String, String>() {{{{ {puts} }}}}"
    return str(value)


def js_source(value, schema: dict) -> str:
    kind = schema.get("type")
    if isinstance(value, bool):
        return "true" if value else "false"
    if kind == "Bigint" and isinstance(value, int):
        return f"{value}n"
    if kind == "array" and isinstance(value, list):
        return "[" + ", ".join(f"'{v}'" if isinstance(v, str) else js_source(v, {}) for v in value) + "]"
    if kind == "dict" and isinstance(value, dict):
        return "{" + ", ".join(f"{k}: {json.dumps(v[0] if isinstance(v, list) else v)}" for k, v in value.items()) + "}"
    return str(value)


def typed_answers(item: ScoringItem, language: str, rng: random.Random):
    """FC answers whose arguments are source strings, and perturbations of them."""
    source = java_source if language == "java" else js_source
    (name, params), = first_values(item.gold[0]).items()
    by_name = {f["name"]: f for f in item.payload["functions"]}
    schema = (by_name.get(name) or item.payload["functions"][0])["parameters"]["properties"]
    args = {k: source(v, schema.get(k, {})) for k, v in params.items()}

    def out(a, underscore=True):
        return ScoringOutput(None, extra={"tool_calls": tool_calls([{name: a}], underscore)})

    yield "correct", out(args), True
    quoted = {k: (json.dumps(v) if schema.get(k, {}).get("type") in ("String", "char", "any") else v) for k, v in args.items()}
    source_text = f"{name}(" + ", ".join(f"{k}={v}" for k, v in quoted.items()) + ")"
    yield "text_source", ScoringOutput(source_text), False
    yield "text_listed", ScoringOutput(f"[{source_text}]"), False
    yield "text_fenced", ScoringOutput(f"```{language}\n{source_text}\n```"), False
    yield "text_bare_fence", ScoringOutput(f"```\n{source_text}\n```"), False
    yield "text_python_repr", ScoringOutput(call_text([{name: args}])), False
    yield "text_positional", ScoringOutput(f"{name}(" + ", ".join(quoted.values()) + ")"), False
    yield "text_prose", ScoringOutput(f"I would call {source_text} here."), False
    yield "text_no_call", ScoringOutput("No function fits."), False
    yield "text_twice", ScoringOutput(f"{source_text}; {source_text}"), False
    if not args:
        return
    key = rng.choice(sorted(args))
    value, kind = params[key], schema.get(key, {}).get("type")
    yield "python_typed", out({**args, key: value}), True
    yield "quoted", out({**args, key: f'"{args[key]}"'}), True
    yield "single_quoted", out({**args, key: f"'{args[key]}'"}), True
    yield "capitalised", out({**args, key: args[key].capitalize()}), True
    yield "changed", out({**args, key: args[key] + "1"}), True
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        yield "suffix_L", out({**args, key: f"{value}L"}), True
        yield "suffix_f", out({**args, key: f"{value}f"}), True
        yield "suffix_n", out({**args, key: f"{value}n"}), True
        yield "exponent", out({**args, key: f"{float(value):e}"}), True
        yield "decimal", out({**args, key: f"{float(value)}"}), True
    if isinstance(value, list):
        yield "array_forms", out({**args, key: "new ArrayList<>() {{ " + " ".join(f"add({json.dumps(v)});" for v in value) + " }}"}), True
        yield "array_new", out({**args, key: "new Array(" + ", ".join(json.dumps(v) for v in value) + ")"}), True
        yield "array_2d", out({**args, key: "[[1, 2], [3, 4]]"}), True
        yield "array_empty", out({**args, key: "[]" if language != "java" else "new ArrayList<>()"}), True
    if isinstance(value, dict):
        yield "dict_json", out({**args, key: json.dumps(value)}), True
        yield "dict_empty", out({**args, key: "{}" if language != "java" else "new HashMap<>()"}), True
    if kind in ("boolean", "Boolean"):
        yield "bool_title", out({**args, key: "True"}), True


# ------------------------------------------------------------------ relevance and agentic answers


def relevance_answers(item: ScoringItem, rng: random.Random):
    functions = item.payload.get("functions") or []
    name = functions[0]["name"] if functions else "lookup"
    params = list(((functions[0].get("parameters") or {}).get("properties") or {}) if functions else [])
    arg = params[0] if params else "query"
    for text in (
        "I cannot help with that using the given functions.",
        "[]", "[{}]", "None", "``` ```", f"{name}()", f"[{name}({arg}='x')]",
        f"```python\n[{name}({arg}='x')]\n```", f"```\n{name}({arg}=1)\n```",
        json.dumps([{name: {arg: "x"}}]), f"[{name}({arg}='x')] hope this helps",
        f"[{name}({arg}=-x)]", f"{name}(1, 2)", f"[{name}(**{{'{arg}': 1}})]",
        f"[{name}({arg}=(1, 2))]", f"[{name}({arg}=2*3)]", "print('hello')", "[1, 2]",
    ):
        yield "relevance", ScoringOutput(text), False
    yield "model_error", ScoringOutput("connection refused", status="error"), False


def agentic_answers(item: ScoringItem, rng: random.Random):
    gold = item.gold
    answer = rng.choice(gold)
    for text in (
        f"The answer is {answer}.", f"the answer is {answer.upper()}!", f"({answer})", f"x{answer}x",
        f"It's {answer.replace(' ', '  ')}", "I do not know.", "", f"[archival_memory_key_search(query='{answer}')]",
        f"search_engine_query(keywords='{answer}')", f"Answer: '{answer}'", f"{answer.replace('.', '')}",
        f"{answer}-{answer}", "[]",
    ):
        yield "agentic", ScoringOutput(text), False
    yield "model_error", ScoringOutput("timeout", status="error"), False


# ------------------------------------------------------------------ the comparison


@pytest.fixture(scope="module")
def shipped_items():
    parsed = BfclFormat().read(DATA, silent())
    items = list(parsed.items)
    return parsed.dataset, items


def scoring_item(record) -> ScoringItem:
    return ScoringItem(record.record_id, record.kind, record.gold, raw=record.raw, payload=record.payload,
                       category=record.category)


def compare_all(items):
    rng = random.Random(SEED)
    counts = defaultdict(Counter)
    differences = []
    for record in items:
        item = scoring_item(record)
        category = plain_category(item.category)
        if category.startswith("multi_turn"):
            for text in ("[cd(folder='x')]", "", "done"):
                verdict = evaluate(item, ScoringOutput(text))
                assert not verdict.scored and "multi-turn" in verdict.reason
                counts[category]["not_scored"] += 1
            continue
        if category in ("irrelevance", "live_irrelevance", "live_relevance"):
            answers = relevance_answers(item, rng)
        elif category in ("memory", "web_search"):
            answers = agentic_answers(item, rng)
        elif "java" in category:
            answers = typed_answers(item, "javascript" if "javascript" in category else "java", rng)
        elif category == "format_sensitivity":
            answers = itertools.chain(ast_answers(item, rng), format_answers(item, rng))
        else:
            answers = ast_answers(item, rng)
        for kind, output, fc in answers:
            ours = evaluate(item, output, "faithful")
            if output.status == "error":  # bfcl-eval records the error text as the model's result
                if category in ("memory", "web_search"):  # the result is a string, not a list of steps
                    official = (False, "agentic:inference_error")
                    counts[category]["compared"] += 1
                    same = ours.scored and not ours.valid and ours.error_type == official[1]
                    counts[category]["equal" if same else "unequal"] += 1
                    counts[category]["failed"] += same
                    if not same:
                        differences.append((record.record_id, kind, output.text, {}, official, ours))
                    continue
                output = ScoringOutput(f"Error during inference: {output.text}")
            if category in ("irrelevance", "live_irrelevance", "live_relevance"):
                official = official_relevance(output, category)
            elif category in ("memory", "web_search"):
                official = official_agentic(output, item.gold)
            else:
                official = official_ast(item, output, category, fc)
            counts[category]["compared"] += 1
            if official[0] == "raised":
                same = not ours.scored
            else:
                same = ours.scored and ours.valid == official[0] and ours.error_type == official[1]
            if kind == "correct" or kind == "fc_correct":
                counts[category][f"{kind}_total"] += 1
                counts[category][f"{kind}_official_pass"] += official[0] is True
                counts[category][f"{kind}_ours_pass"] += bool(ours.scored and ours.valid)
            if same:
                counts[category]["equal"] += 1
                counts[category]["passed" if official[0] is True else ("raised" if official[0] == "raised" else "failed")] += 1
            else:
                differences.append((record.record_id, kind, output.text, output.extra, official,
                                    (ours.scored, ours.valid, ours.error_type, ours.reason)))
    return counts, differences


def test_every_shipped_file_is_detected_and_imported_whole(shipped_items):
    from reviewer.formats.registry import find_dataset_format

    dataset, items = shipped_items
    files = sorted(DATA.glob("BFCL_v4_*.json"))
    assert len(files) == 20
    assert find_dataset_format(DATA).name == "bfcl"
    for f in files:
        assert find_dataset_format(f).name == "bfcl", f
    expected = {}
    for f in files:
        category = f.stem.removeprefix("BFCL_v4_")
        if category == "format_sensitivity":
            expected[category] = sum(len(v) for v in json.loads(f.read_text()).values())
        else:
            expected[category] = sum(1 for line in f.read_text(encoding="utf-8").splitlines() if line.strip())
    assert Counter(r.category for r in items) == expected
    assert dataset.meta["bfcl_versions"] == ["v4"]
    assert all(m["version"] == "v4" for m in dataset.meta["files"])
    by_category = {r.category: r for r in items}
    assert by_category["memory"].gold and all(isinstance(g, str) for g in by_category["memory"].gold)
    assert by_category["web_search"].payload["functions"][0]["name"] == "search_engine_query"
    fs = by_category["format_sensitivity"]
    assert fs.gold and fs.payload["functions"] and fs.payload["original_id"] in fs.record_id


def test_export_gives_every_shipped_file_back(shipped_items, tmp_path):
    from reviewer.formats.base import ExportItem

    dataset, items = shipped_items
    export = [ExportItem(record_id=r.record_id, raw=r.raw, gold=r.gold, original_gold=r.gold, payload=r.payload)
              for r in items]
    BfclFormat().write(dataset, export, tmp_path, silent())
    for f in sorted(DATA.glob("BFCL_v4_*.json")) + sorted((DATA / "possible_answer").glob("BFCL_v4_*.json")):
        out = tmp_path / f.relative_to(DATA)
        if f.name.endswith("format_sensitivity.json"):
            assert json.loads(out.read_text()) == json.loads(f.read_text())
            continue
        original = [json.loads(line) for line in f.read_text(encoding="utf-8").splitlines() if line.strip()]
        written = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines() if line.strip()]
        assert written == original, f


def test_equal_verdict_and_error_type_per_record(shipped_items, capsys):
    _, items = shipped_items
    counts, differences = compare_all(items)
    total = Counter()
    for c in counts.values():
        total.update(c)
    with capsys.disabled():
        print(f"\nbfcl_official_records_compared: {total['compared']}")
        print(f"bfcl_official_records_equal: {total['equal']}")
        print(f"bfcl_not_scored_records: {total['not_scored']}")
        for category in sorted(counts):
            c = counts[category]
            print(f"  {category}: compared {c['compared']}, equal {c['equal']}, official pass {c['passed']}, "
                  f"fail {c['failed']}, official raised {c['raised']}, not scored {c['not_scored']}")
        for category in sorted(counts):
            c = counts[category]
            for kind in ("correct", "fc_correct"):
                if c[f"{kind}_total"]:
                    print(f"  {category} {kind} answers pass: ours {c[f'{kind}_ours_pass']}/{c[f'{kind}_total']}, "
                          f"official {c[f'{kind}_official_pass']}/{c[f'{kind}_total']}")
    assert not differences, differences[:20]
    assert total["compared"] > 20000
    for category, c in counts.items():
        if not category.startswith("multi_turn"):
            assert c["compared"] > 0 and c["passed"] > 0 and c["failed"] > 0, category


def test_cli_scores_the_whole_shipped_release_without_a_crash(tmp_path):
    """`reviewer score` on every v4 category (it raised AttributeError on multi_turn_base before)."""
    import os
    import subprocess

    def reviewer(*args):
        env = dict(os.environ)
        env.pop("REVIEWER_DB", None)
        cmd = [sys.executable, "-m", "reviewer.cli", *args, "--db", str(tmp_path / "bfcl.sqlite3")]
        return subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=600)

    proc = reviewer("import", "dataset", str(DATA), "--name", "bfcl-v4")
    assert proc.returncode == 0, proc.stderr
    items = list(BfclFormat().read(DATA, silent()).items)
    run = tmp_path / "run.jsonl"
    rng = random.Random(SEED)
    lines = [json.dumps({"run": {"name": "mixed", "model": "mixed"}})]
    for record in items:
        gold = record.gold if isinstance(record.gold, list) else []
        if gold and all(isinstance(a, dict) and len(a) == 1 for a in gold):
            text = call_text([first_values(a) for a in gold])
        elif gold and all(isinstance(a, str) for a in gold):
            text = f"It is {gold[0]}."
        else:
            text = rng.choice(["[]", "I cannot do that.", "[cd(folder='x')]"])
        lines.append(json.dumps({"id": record.record_id, "text": text}))
    run.write_text("\n".join(lines) + "\n", encoding="utf-8")
    proc = reviewer("import", "run", "bfcl-v4", str(run))
    assert proc.returncode == 0, proc.stderr
    proc = reviewer("score", "bfcl-v4", "--mode", "both", "--json")
    assert proc.returncode == 0 and "Traceback" not in proc.stderr, proc.stderr[-2000:]
    results = json.loads(proc.stdout)
    assert {r["mode"] for r in results} == {"faithful", "fixed"}
    faithful = next(r for r in results if r["mode"] == "faithful")
    categories = set(faithful["by_category"])
    assert {"simple_python", "simple_java", "memory", "web_search", "irrelevance", "format_sensitivity"} <= categories
    assert not any(c.startswith("BFCL_v") for c in categories)
    assert faithful["summary"]["skipped"] >= 800  # the four multi_turn categories, not scored


@pytest.mark.parametrize(
    "language, category, schema, answer, value",
    [
        ("java", "simple_java", {"type": "Set"}, ["x"], "new HashSet<>()"),  # NotImplementedError officially
        ("java", "simple_java", {"type": "Queue"}, ["x"], "q"),
        ("java", "simple_java", {"type": "Short"}, [1], "1"),  # a type the table lacks: KeyError
        ("python", "simple_python", {"type": "number"}, [1.5], 1.5),
        ("python", "simple_python", {"type": "array"}, [[1]], [1]),  # array without items: KeyError
        ("javascript", "simple_javascript", {"type": "object"}, [{}], "{}"),
    ],
)
def test_where_the_official_checker_raises_ours_says_not_scored(language, category, schema, answer, value):
    fn = {"name": "f", "parameters": {"type": "dict", "properties": {"p": schema}, "required": ["p"]}}
    gold = [{"f": {"p": answer}}]
    item = ScoringItem("x", "function_call", gold, payload={"functions": [fn]}, category=category)
    output = ScoringOutput(None, extra={"tool_calls": [{"function": {"name": "f", "arguments": json.dumps({"p": value})}}]})
    lang = {"java": Language.JAVA, "javascript": Language.JAVASCRIPT}.get(language, Language.PYTHON)
    with pytest.raises(Exception):
        ast_checker([fn], [{"f": {"p": value}}], gold, lang, category, "fc_model")
    verdict = evaluate(item, output)
    assert not verdict.scored and "official checker cannot check" in verdict.reason


REFDATA_V3 = (Path(__file__).resolve().parents[2].parent / "shared" / "refdata" / "SchemaReinforcementLearning"
              / "schemabench" / "berkeley-function-call-leaderboard" / "data")


@pytest.mark.refdata
def test_v3_release_is_scored_like_the_current_official_checker(capsys):
    """The previous release (v3 names: simple, java, javascript, ...), data bfcl-eval does not ship."""
    if not REFDATA_V3.is_dir():
        pytest.skip(f"{REFDATA_V3} not found: the BFCL v3 reference data is not beside the project")
    not_scored = ("exec", "rest", "sql", "chatable", "multi_turn")
    items = [r for r in BfclFormat().read(REFDATA_V3, silent()).items
             if not r.category.startswith(not_scored)]
    counts, differences = compare_all(items)
    total = Counter()
    for c in counts.values():
        total.update(c)
    with capsys.disabled():
        print(f"\nbfcl_v3_records_compared: {total['compared']}")
        print(f"bfcl_v3_records_equal: {total['equal']}")
    assert not differences, differences[:20]
    assert {"simple", "java", "javascript", "parallel_multiple", "live_irrelevance"} <= set(counts)
    assert total["compared"] > 20000
