"""schema_gen: generate any valid JSON for a schema (paper 003, SchemaBench).

Prompts are paper 003, Appendix B: the system prompt carries the schema; the
user prompt asks for a JSON object "directly, without ```" (Complex and Custom
subsets) or additionally names the special token to embed (Escape subset,
when ``payload["special_token"]`` is set). The schema is written as the
benchmark's runner writes it: ``json.dumps`` of the parsed schema.

Option ``constrained`` (default False) also sends the schema as
``response_format`` json_schema (constrained decoding, which the paper
compares against).
"""

from __future__ import annotations

import json

from reviewer.kinds import ItemKind
from reviewer.rerun.prompts.base import (
    ChatRequest,
    RerunItem,
    check_options,
    fill,
    json_schema_format,
    parse_json_field,
    require,
    strategy,
    system,
    user,
)

SYSTEM_PROMPT = """You should generate answer with given JSON format.
<Schema> Here are the json-schema of the content format:
{schema}
</Schema>"""

USER_PROMPT = "Please generate a valid JSON object according to the JSON schema. Give your JSON object directly, without ```."

USER_PROMPT_ESCAPE = (
    "Please generate a valid JSON object according to the JSON schema, remember your special token here: "
    "{special_token} Give your JSON object directly, without ```."
)

OPTIONS = {"constrained": (False, True)}


@strategy(ItemKind.SCHEMA_GEN, "schemabench")
def schemabench(item: RerunItem, options: dict) -> ChatRequest:
    opts = check_options(item, options, OPTIONS)
    schema = parse_json_field(item, require(item, item.schema, "schema"), "schema")
    token = (item.payload or {}).get("special_token")
    if token:
        question = fill(USER_PROMPT_ESCAPE, {"{special_token}": token})
    else:
        question = USER_PROMPT
    return ChatRequest(
        messages=[system(fill(SYSTEM_PROMPT, {"{schema}": json.dumps(schema)})), user(question)],
        response_format=json_schema_format(schema) if opts["constrained"] else None,
        meta={"setup_type": "schemabench_escape" if token else "schemabench"},
    )
