"""function_call: BFCL v3 function calling, the functions sent as API tools.

BFCL's own "FC" mode for OpenAI-style models: the question's messages as the
chat, each function converted to an OpenAI tool, no system prompt added. The
conversion follows BFCL's: parameter type ``dict`` -> ``object``, ``float``
-> ``number``, ``tuple`` -> ``array``, ``any`` -> ``string`` (recursively),
and dots in names (``math.factorial``) become underscores, since the API
allows only ``[a-zA-Z0-9_-]``; ``meta["tool_names"]`` maps them back.

Only single-turn items are supported: multi-turn categories need the tool
results fed back, which a one-shot rerun cannot do.

Option ``tool_choice``: ``auto`` (default, BFCL's setting; not sent, being the API
default), ``required``, ``none``, or ``first`` (force a call of the first function:
for single-function categories with servers or models that ignore ``required``).
"""

from __future__ import annotations

import copy
import re
from typing import Any

from reviewer.errors import InputError
from reviewer.kinds import ItemKind
from reviewer.rerun.prompts.base import (
    ChatRequest,
    RerunItem,
    check_options,
    require,
    strategy,
    user,
)

TYPE_MAP = {"dict": "object", "float": "number", "tuple": "array", "any": "string"}

OPTIONS = {"tool_choice": ("auto", "required", "none", "first")}


def _convert_types(schema: Any) -> Any:
    if isinstance(schema, dict):
        out = {k: _convert_types(v) for k, v in schema.items()}
        if isinstance(out.get("type"), str):
            out["type"] = TYPE_MAP.get(out["type"], out["type"])
        return out
    if isinstance(schema, list):
        return [_convert_types(v) for v in schema]
    return schema


def api_name(name: str) -> str:
    """A BFCL function name in the characters the API accepts."""
    return re.sub(r"[^a-zA-Z0-9_-]", "_", name)


def to_tool(item: RerunItem, index: int, function: dict) -> dict:
    if not isinstance(function, dict) or not isinstance(function.get("name"), str):
        raise InputError(None, f"record {item.record_id!r}, $.payload.functions[{index}]", "needs a string name")
    parameters = _convert_types(copy.deepcopy(function.get("parameters") or {"type": "object", "properties": {}}))
    return {
        "type": "function",
        "function": {
            "name": api_name(function["name"]),
            "description": function.get("description", ""),
            "parameters": parameters,
        },
    }


def _messages(item: RerunItem) -> list[dict]:
    payload = item.payload or {}
    messages = payload.get("messages")
    if messages is None and getattr(item, "question", None):
        return [user(item.question)]
    messages = require(item, messages, "$.payload.messages")
    if messages and isinstance(messages[0], list):  # BFCL nests messages per turn
        if len(messages) > 1:
            raise InputError(
                None,
                f"record {item.record_id!r}, $.payload.messages",
                f"has {len(messages)} turns; multi-turn items need tool results fed back and cannot be rerun",
            )
        messages = messages[0]
    for index, message in enumerate(messages):
        if not isinstance(message, dict) or "role" not in message or "content" not in message:
            raise InputError(
                None, f"record {item.record_id!r}, $.payload.messages[{index}]", "needs a role and a content"
            )
    return [{"role": m["role"], "content": m["content"]} for m in messages]


@strategy(ItemKind.FUNCTION_CALL, "bfcl_fc")
def bfcl_fc(item: RerunItem, options: dict) -> ChatRequest:
    opts = check_options(item, options, OPTIONS)
    functions = require(item, (item.payload or {}).get("functions"), "$.payload.functions")
    tools = [to_tool(item, i, f) for i, f in enumerate(functions)]
    choice = opts["tool_choice"]
    if choice == "auto":
        choice = None  # the API default whenever tools are sent; leaving it out spares servers that reject it
    elif choice == "first":
        choice = {"type": "function", "function": {"name": tools[0]["function"]["name"]}}
    return ChatRequest(
        messages=_messages(item),
        tools=tools,
        tool_choice=choice,
        meta={"setup_type": "bfcl_fc", "tool_names": {api_name(f["name"]): f["name"] for f in functions}},
    )
