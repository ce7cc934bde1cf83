"""extraction: text -> nested JSON under a schema (paper 001, DeepJSONEval).

The prompt is DeepJSONEval's meta prompt (the benchmark's
``JSON_Output_meta_prompt.txt``, trailing spaces included) followed by the
schema and the text, one user message, exactly as its inference script joins
them. The answer comes back in a ```json fence, which the official scorer
cuts out (the text after the last "```json").

Option ``constrained`` (default False) also sends the item's schema as
``response_format`` json_schema, for servers with structured outputs; the
engine drops it (and says so) when the server rejects it.
"""

from __future__ import annotations

from reviewer.kinds import ItemKind
from reviewer.rerun.prompts.base import (
    ChatRequest,
    RerunItem,
    check_options,
    json_schema_format,
    parse_json_field,
    require,
    strategy,
    user,
)

META_PROMPT = (
    "*** Task Scenario  \n"
    "This is a text information extraction scenario. You need to map relevant content from the user's natural "
    "language text description to the given JSON Schema and finally output a JSON Object.  \n"
    "\n"
    "*** Summary of Input Information:  \n"
    "1. JSON Schema  \n"
    "2. Text Description  \n"
    "\n"
    "*** Task Rules  \n"
    "1. Strictly follow JSON format for mapping.  \n"
    "2. Strictly adhere to the hierarchical relationships in the JSON Schema.  \n"
    "3. Understand the requirements of each property in the JSON Schema and correctly match content from the "
    "text description.  \n"
    "4. All output content in the mapped JSON must be strictly extracted from the user's input information.  \n"
    "5. If the field description does not explicitly specify a language type, string-type fields must match the "
    "language type of the text description.  \n"
    "6. The final JSON Object must be output in Markdown format, i.e., ```json\\n{JSON Object}\\n```.\n"
)

OPTIONS = {"constrained": (False, True)}


@strategy(ItemKind.EXTRACTION, "deepjsoneval")
def deepjsoneval(item: RerunItem, options: dict) -> ChatRequest:
    opts = check_options(item, options, OPTIONS)
    schema = require(item, item.schema, "schema")
    text = require(item, (item.payload or {}).get("text"), "$.payload.text")
    prompt = META_PROMPT + "\n" + f"*** JSON Schema\n{schema}\n\n*** Text Description\n{text}"
    response_format = None
    if opts["constrained"]:
        response_format = json_schema_format(parse_json_field(item, schema, "schema"))
    return ChatRequest(messages=[user(prompt)], response_format=response_format, meta={"setup_type": "deepjsoneval"})
