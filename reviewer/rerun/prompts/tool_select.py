"""tool_select: which of a list of tools does a message call for (paper 002, NLT).

Two strategies, as compared in the paper:

- ``nlt``: the tools are listed in the system prompt; the model thinks, then
  writes every tool name followed by ``-- YES/NO`` and ends with
  "Assessment finished." No API tools are sent.
- ``structured``: each tool becomes a parameterless function
  ``check_<snake_name>`` passed through the API's ``tools``; the model calls
  the relevant ones. ``meta["tool_names"]`` maps function names back to the
  item's tool names.

When the item's tool list is one of the paper's two scenarios (Sage, Alex;
Appendix A.1, plain or perturbed), the paper's own system prompt is sent
verbatim (Appendix A.2). Any other tool list gets the paper's non-perturbed
template with that list and a persona taken from option ``persona``.

Options: ``scenario`` ``auto`` (detect by tool names) | ``sage`` | ``alex`` |
``generic``; ``perturbed`` (default False: with ``auto``, taken from the
descriptions); ``persona`` (generic only: the first paragraph, who the
assistant works for).
"""

from __future__ import annotations

import re

from reviewer.errors import InputError
from reviewer.kinds import ItemKind
from reviewer.rerun.prompts.base import (
    ChatRequest,
    RerunItem,
    check_options,
    fill,
    require,
    strategy,
    system,
    user,
)
from reviewer.rerun.prompts.nlt_paper import SYSTEM_PROMPTS, TOOLS

DEFAULT_PERSONA = (
    "You are an assistant to an AI agent. You will be given a message between the agent and a user. "
    "They are texting one another."
)

# Paper 002, A.2.5 (NLT, non-perturbed, Alex) with the persona and tools as placeholders.
NLT_TEMPLATE = """{persona}

Your mission is to identify if any of the following topics have been brought up or if they are relevant. If they have or are, you will append it with “YES”. If they have not, you will append it with “NO”.

Your list of possible topics include the following:

{topics}

Your output should begin by thinking whether or not any of these have been included, then include the name of every topic, followed by either YES or NO. You should end with “Assessment finished.”

It should always be in the following format:

Thinking: (insert_thinking)

{format_lines}

Assessment finished."""

# Paper 002, A.2.6 (structured, non-perturbed, Alex) with the persona and tools as placeholders.
STRUCTURED_TEMPLATE = """{persona}

Your mission is to analyze the message and call the appropriate functions to check if specific topics have been mentioned. You have access to {count} different checking functions, one for each topic category.

For each message, call only the relevant checking functions. Do not include any parameters when calling the functions.

First, output your thoughts on which tool should be called. Then, call any appropriate tools.

Available functions and their exact names:

{functions}

Call only the functions for topics that are clearly mentioned. Use the exact function names listed above. Do not include any parameters. You may call multiple functions in the same response.

Your output should begin with your reasoning about which tools to use, followed by the corresponding function calls."""

OPTIONS = {
    "scenario": ("auto", "sage", "alex", "generic"),
    "perturbed": (None, False, True),
    "persona": (),
}


def function_name(tool_name: str) -> str:
    """The paper's function name for a tool: ``Talk to a Human`` -> ``check_talk_to_a_human``."""
    return "check_" + re.sub(r"[^a-z0-9]+", "_", tool_name.lower()).strip("_")


def _item_tools(item: RerunItem) -> list[tuple[str, str]]:
    tools = require(item, (item.payload or {}).get("tools"), "$.payload.tools")
    out = []
    for index, tool in enumerate(tools):
        if not isinstance(tool, dict) or not isinstance(tool.get("name"), str):
            raise InputError(None, f"record {item.record_id!r}, $.payload.tools[{index}]", "needs a string name")
        out.append((tool["name"], tool.get("description") or ""))
    return out


def _scenario(tools: list[tuple[str, str]], scenario: str, perturbed: bool | None) -> tuple[str, bool] | None:
    """The paper scenario (name, perturbed) whose prompt fits these tools, or None for generic."""
    if scenario == "generic":
        return None
    names = [n for n, _ in tools]
    for (scen, pert), paper_tools in TOOLS.items():
        if scenario not in ("auto", scen) or (perturbed is not None and pert != perturbed):
            continue
        if scenario == "auto" and tools != paper_tools:
            continue
        if names == [n for n, _ in paper_tools]:
            return scen, pert
    if scenario != "auto":
        raise InputError(
            None, "strategy option 'scenario'", f"the item's tools are not the paper's {scenario!r} tool list"
        )
    return None


def _tool_spec(name: str, description: str) -> dict:
    return {
        "type": "function",
        "function": {
            "name": function_name(name),
            "description": description,
            "parameters": {"type": "object", "properties": {}},
        },
    }


def _build(item: RerunItem, options: dict, style: str) -> ChatRequest:
    opts = check_options(item, options, OPTIONS)
    tools = _item_tools(item)
    message = require(item, getattr(item, "question", None), "question (the user message)")
    found = _scenario(tools, opts["scenario"], opts["perturbed"])
    if found is not None:
        prompt = SYSTEM_PROMPTS[(style, found[0], found[1])]
        setup = f"{style}_{found[0]}" + ("_perturbed" if found[1] else "")
    else:
        persona = opts["persona"] or DEFAULT_PERSONA
        if style == "nlt":
            prompt = fill(
                NLT_TEMPLATE,
                {
                    "{persona}": persona,
                    "{topics}": "\n\n".join(f"{n} ({d})" for n, d in tools),
                    "{format_lines}": "\n\n".join(f"{n} -- YES/NO" for n, _ in tools),
                },
            )
        else:
            prompt = fill(
                STRUCTURED_TEMPLATE,
                {
                    "{persona}": persona,
                    "{count}": str(len(tools)),
                    "{functions}": "\n\n".join(f"`{function_name(n)}`: For {n} ({d})" for n, d in tools),
                },
            )
        setup = f"{style}_generic"
    request = ChatRequest(messages=[system(prompt), user(message)], meta={"setup_type": setup})
    if style == "structured":
        request.tools = [_tool_spec(n, d) for n, d in tools]
        request.meta["tool_names"] = {function_name(n): n for n, _ in tools}
    return request


@strategy(ItemKind.TOOL_SELECT, "nlt")
def nlt(item: RerunItem, options: dict) -> ChatRequest:
    return _build(item, options, "nlt")


@strategy(ItemKind.TOOL_SELECT, "structured")
def structured(item: RerunItem, options: dict) -> ChatRequest:
    return _build(item, options, "structured")
