"""tool_qa: answer a question about a large tool response (paper 000, toolJSONprocessing).

Templates are Figures 16-23 of paper 000, copied as printed (including the
paper's mix of ``{api_response}`` and ``<<json_schema>>`` placeholders in
Figure 22, and "example usage" vs "example usage data"). ``<<task_prefix>>``
is the question, ``<<json_obj>>`` / ``{api_response}`` the tool response.

Strategies: ``answer`` (the model answers) and ``code`` (the model writes a
Python function that is run on the response). Options:

- ``schema``: include the response's JSON schema (default True);
- ``response``: ``full`` | ``reduced`` (one element per list, Appendix C.1) |
  ``none`` -- code only;
- ``cot``: the chain-of-thought templates (Figures 22-23; schema required);
- ``prune_to_gold_code``: when ``payload["gold_code"]`` exists, keep only the
  response's key paths that code reads (the paper's ``_cfx2`` setups);
  default True.

The paper ran eight setups; each is a combination above, recorded in
``meta["setup_type"]`` with the names its prediction files use. Combinations
the paper has no template for raise InputError instead of inventing one.
Setup names are also accepted as strategy names (``code_generation_schema``...).
"""

from __future__ import annotations

import ast
import json
from typing import Any

from reviewer.errors import InputError
from reviewer.kinds import ItemKind
from reviewer.rerun.prompts.base import (
    ChatRequest,
    RerunItem,
    check_options,
    fill,
    parse_json_field,
    require,
    strategy,
    user,
)

FIG16_ANSWER = """You are given a response from an API call (in JSON format).
Answer the question based on the information provided in the API response.

```json
{api_response}
```

Question: {question}

Only respond with the answer. Do not include any other text or json in the response.
Do not rephrase the answer or write it in complete sentence, return exactly as is from the JSON.

Answer:"""

FIG17_ANSWER_SCHEMA = """You will be given a JSON object as data which is a response from a REST API containing information
returned from the API call.
You are given a response from an API call (in JSON format).
Answer the question based on the information provided in the API response.

```json
{api_response}
```

Question: {question}

Only respond with the answer. Do not include any other text or json in the response.
The JSON schema of the object given as data is as follows: {json_schema}

Answer:"""

# The paper captions Figure 18 "answer, without a schema"; its text is the code prompt
# without a schema (setup code_generation), which is how it is used here.
FIG18_CODE = """You will be given a JSON object as data which is a response from a REST API containing information
returned from the API call.
Your task is to extract and return <<task_prefix>>

Write a Python function that:
Starts the function with "def ".
Takes only the entire api response as input and doesn't have any other input.
Identifies the structure of the input data, ensuring it checks for relevant keys and data types.
When comparing strings, it should always convert both sides of the comparison to lowercase.
Processes the provided data.
Iterates through the data to extract relevant information.
Cleans numeric strings by removing non-numeric characters before converting them to integers.
Performs proper checks to ensure a key exists and is not None before querying its value.
Returns only the requested data as a string and no other extra information or words.
Do not add any extra keys or terms to the output.

Final Check:
The function must be formatted in Python markdown for direct execution.
No explanations, comments, or additional text should be included.
Do not include any example usage.

data = <<json_obj>>

Python Function:"""

FIG19_CODE_SCHEMA = """You will be given a JSON object as data which is a response from a REST API containing information
returned from the API call.
You will be given a JSON schema of the response from the REST API returned from the API call.
Your task is to extract and return information from the JSON object which follows the JSON schema and
answers the user query: <<task_prefix>>

You need to write a Python function that:
Starts the function with "def ".
Takes only the entire api response as input and doesn't have any other input.
Identifies the structure of the input data, ensuring it checks for relevant keys and data types.
When comparing strings, it should always convert both sides of the comparison to lowercase.
Processes the provided data.
Iterates through the data to extract relevant information.
Cleans numeric strings by removing non-numeric characters before converting them to integers.
Performs proper checks to ensure a key exists and is not None before querying its value.
Returns only the requested data as a string and no other extra information or words.
Do not add any extra keys or terms to the output.

Final Check:
The function must be formatted in Python markdown for direct execution.
No explanations, comments, or additional text should be included.
Do not include any example usage data.

The JSON schema of the object given as data is as follows: <<json_schema>>

data = <<json_obj>>

Python Function:"""

FIG20_CODE_SCHEMA_NO_RESPONSE = """Your task is to work with an already-loaded JSON object as a dictionary from a REST API response.
Using the provided JSON schema, you need to extract and return information that directly answers the
user's query:
<<task_prefix>>

You need to write a Python function that:
Starts the function with "def ".
Takes only the entire api response as input and doesn't have any other input.
Identifies the structure of the input data, ensuring it checks for relevant keys and data types.
When comparing strings, it should always convert both sides of the comparison to lowercase.
Processes the provided data.
Iterates through the data to extract relevant information.
Cleans numeric strings by removing non-numeric characters before converting them to integers.
Performs proper checks to ensure a key exists and is not None before querying its value.
Returns only the requested data as a string and no other extra information or words.
Do not add any extra keys or terms to the output.

Final Check:
The function must be formatted in Python markdown for direct execution.
No explanations, comments, or additional text should be included.
Do not include any example usage data.

The JSON schema of the object given as data is as follows: <<json_schema>>

Python Function:"""

FIG21_CODE_SCHEMA_REDUCED = """You will be given a JSON object as data which is an example or compact version of the response from a
REST API containing information returned from the API call.
You will be given a JSON schema of the response from the REST API returned from the API call.
Your task is to take reference and return information from the JSON object which follows the JSON
schema and answers the user query: <<task_prefix>>

You need to write a Python function that:
Starts the function with "def ".
Takes only the entire api response as input and doesn't have any other input.
Identifies the structure of the input data, ensuring it checks for relevant keys and data types.
When comparing strings, it should always convert both sides of the comparison to lowercase. This
is mandatory.
Processes the provided data.
Iterates through the data to extract relevant information.
Cleans numeric strings by removing non-numeric characters before converting them to integers.
Performs proper checks to ensure a key exists and is not None before querying its value.
Returns only the requested data as a string and no other extra information or words.
The data to be returned from the function should be in string.
Do not add any extra keys or terms to the output.

Final Check:
The function must be formatted in Python markdown for direct execution.
There should be ```python in the beginning and the ending should be ```
No explanations, comments, or additional text should be included.
Do not include any example usage data.

The JSON schema of the object given as data is as follows: <<json_schema>>

data = <<json_obj>>

Python Function:"""

FIG22_COT_ANSWER_SCHEMA = """You will be given a JSON object as data which is a response from a REST API containing information
returned from the API call.
You are given a response from an API call (in JSON format).
Answer the question based on the information provided in the API response.

```json
{api_response}
```

Question: {question}

Think step-by-step about how the data relates to the question being asked.
Analyze the structure and contents of the JSON response.
Identify which fields are relevant to the question.
Then, reason through the data logically to derive the answer.

Finally, provide the answer accurately.

Only respond with the answer. Do not include any other text or json in the response.

The JSON schema of the object given as data is as follows: <<json_schema>>

Answer:"""

FIG23_COT_CODE_SCHEMA = """You will be given a JSON object as data which is a response from a REST API containing information
returned from the API call.
You will be given a JSON schema of the response from the REST API returned from the API call.
Your task is to extract and return information from the JSON object which follows the JSON schema and
answers the user query: <<task_prefix>>

Think step-by-step:
- First, analyze the structure of the JSON data using the schema.
- Identify which fields are relevant to the task and understand their data types.
- Consider edge cases like missing keys, null values, or unexpected types.
- When comparing strings, normalize them to lowercase.
- When handling numeric strings, remove non-numeric characters before converting to integers.
- Use logical iteration and condition checks to extract the required information.
- Ensure that only the expected value is returned, formatted strictly as a string.

You need to write a Python function that:
Starts the function with "def ".
Takes only the entire api response as input and doesn't have any other input.
Identifies the structure of the input data, ensuring it checks for relevant keys and data types.
Processes the provided data.
Iterates through the data to extract relevant information.
Cleans numeric strings by removing non-numeric characters before converting them to integers.
Performs proper checks to ensure a key exists and is not None before querying its value.
Returns only the requested data as a string and no other extra information or words.
Do not add any extra keys or terms to the output.

Final Check:
The function must be formatted in Python markdown for direct execution.
No explanations, comments, or additional text should be included.
Do not include any example usage data.

The JSON schema of the object given as data is as follows: <<json_schema>>

data = <<json_obj>>

Python Function:"""

# (output, schema, response, cot) -> (template, setup_type as in the paper's prediction files)
TEMPLATES: dict[tuple[str, bool, str, bool], tuple[str, str]] = {
    ("answer", False, "full", False): (FIG16_ANSWER, "direct_prompting"),
    ("answer", True, "full", False): (FIG17_ANSWER_SCHEMA, "direct_prompting_schema"),
    ("code", False, "full", False): (FIG18_CODE, "code_generation"),
    ("code", True, "full", False): (FIG19_CODE_SCHEMA, "code_generation_schema"),
    ("code", True, "none", False): (FIG20_CODE_SCHEMA_NO_RESPONSE, "code_generation_schema_no_resp"),
    ("code", True, "reduced", False): (FIG21_CODE_SCHEMA_REDUCED, "code_generation_schema_compact_response"),
    ("answer", True, "full", True): (FIG22_COT_ANSWER_SCHEMA, "cot_direct_prompting_schema"),
    ("code", True, "full", True): (FIG23_COT_CODE_SCHEMA, "cot_code_generation_schema"),
}
SETUPS = {setup: key for key, (_, setup) in TEMPLATES.items()}
PRUNED_SUFFIX = "_cfx2"

OPTIONS = {
    "schema": (True, False),
    "response": ("full", "reduced", "none"),
    "cot": (False, True),
    "prune_to_gold_code": (True, False),
}


def reduce_response(value: Any) -> Any:
    """Paper 000, Appendix C.1: keep one element of every list, recursively.

    Every key survives (with one sample value), so the structure and the key
    dependencies stay visible while the length collapses.
    """
    if isinstance(value, dict):
        return {k: reduce_response(v) for k, v in value.items()}
    if isinstance(value, list):
        return [reduce_response(value[0])] if value else []
    return value


def gold_code_keys(code: str) -> set[str]:
    """The string keys a piece of Python code reads: ``x["k"]``, ``x.get("k")``, ``"k" in x``.

    Raises SyntaxError when the code does not parse.
    """
    keys: set[str] = set()
    for node in ast.walk(ast.parse(code)):
        key = None
        if isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Constant):
            key = node.slice.value
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "get":
            first = node.args[0] if node.args else None
            key = first.value if isinstance(first, ast.Constant) else None
        elif isinstance(node, ast.Compare) and isinstance(node.left, ast.Constant):
            key = node.left.value if any(isinstance(op, (ast.In, ast.NotIn)) for op in node.ops) else None
        if isinstance(key, str):
            keys.add(key)
    return keys


def prune_to_keys(value: Any, keys: set[str]) -> Any:
    """Keep the dict entries whose key is in ``keys`` or lead to one; lists keep every element.

    A kept key keeps its whole value when nothing below it is named (the code
    reads the value as a whole); otherwise its value is pruned the same way.
    Returns None for a subtree with nothing kept.
    """
    if isinstance(value, dict):
        out = {}
        for k, v in value.items():
            below = prune_to_keys(v, keys)
            if below is not None:
                out[k] = below
            elif k in keys:
                out[k] = v
        return out or None
    if isinstance(value, list):
        kept = [p for p in (prune_to_keys(v, keys) for v in value) if p is not None]
        return kept or None
    return None


def _render_response(item: RerunItem, response: Any) -> str:
    # The paper's runs embed the response as JSON text; keep non-ASCII as is.
    return json.dumps(response, ensure_ascii=False)


def build(item: RerunItem, output: str, options: dict) -> ChatRequest:
    opts = check_options(item, options, OPTIONS)
    key = (output, opts["schema"], opts["response"], opts["cot"])
    if key not in TEMPLATES:
        raise InputError(
            None,
            f"record {item.record_id!r}",
            f"paper 000 has no {output} prompt with schema={opts['schema']}, response={opts['response']!r}, "
            f"cot={opts['cot']}; its setups are {', '.join(SETUPS)}",
        )
    template, setup = TEMPLATES[key]
    question = require(item, getattr(item, "question", None), "question")
    meta: dict[str, Any] = {}
    response_text = ""
    if opts["response"] != "none":
        response = parse_json_field(item, require(item, item.context, "context (the tool response)"), "context")
        gold_code = (item.payload or {}).get("gold_code")
        if gold_code and opts["prune_to_gold_code"]:
            try:
                keys = gold_code_keys(gold_code)
            except SyntaxError as exc:
                raise InputError(
                    None, f"record {item.record_id!r}, $.payload.gold_code, line {exc.lineno}", f"not Python: {exc.msg}"
                ) from None
            pruned = prune_to_keys(response, keys)
            response = pruned if pruned is not None else {}
            setup += PRUNED_SUFFIX
            meta["pruned_to_keys"] = sorted(keys)
        if opts["response"] == "reduced":
            response = reduce_response(response)
        response_text = _render_response(item, response)
    schema_text = require(item, item.schema, "schema") if opts["schema"] else ""
    prompt = fill(
        template,
        {
            "{api_response}": response_text,
            "<<json_obj>>": response_text,
            "{question}": question,
            "<<task_prefix>>": question,
            "{json_schema}": schema_text,
            "<<json_schema>>": schema_text,
        },
    )
    meta["setup_type"] = setup
    return ChatRequest(messages=[user(prompt)], meta=meta)


@strategy(ItemKind.TOOL_QA, "answer")
def answer(item: RerunItem, options: dict) -> ChatRequest:
    """Answer generation (Figures 16, 17, 22)."""
    return build(item, "answer", options)


@strategy(ItemKind.TOOL_QA, "code")
def code(item: RerunItem, options: dict) -> ChatRequest:
    """Code generation (Figures 18-21, 23); the scorer runs the code, sandboxed."""
    return build(item, "code", options)


def _register_setup_aliases() -> None:
    for setup, (output, schema, response, cot) in SETUPS.items():
        fixed = {"schema": schema, "response": response, "cot": cot}

        def builder(item: RerunItem, options: dict, _output=output, _fixed=fixed) -> ChatRequest:
            clash = {k for k in _fixed if k in options and options[k] != _fixed[k]}
            if clash:
                raise InputError(None, f"record {item.record_id!r}", f"options {sorted(clash)} contradict the setup")
            return build(item, _output, {**options, **_fixed})

        strategy(ItemKind.TOOL_QA, setup)(builder)


_register_setup_aliases()
