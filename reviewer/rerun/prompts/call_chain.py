"""call_chain: plan a nested chain of API calls (paper 004, NesTools).

The prompt is paper 004's Table 9 ("Prompt of evaluation"). The paper prints
it as running text; the line breaks here are where NesTools' own prompt
builder puts them, and the API list is rendered as that builder does: each
API dict with ``api_id`` inserted right after ``api_name``, the list written
with Python's ``str()`` (so single quotes, True/False), one user message.

The benchmark also adds five retrieved distractor APIs per item and shuffles;
the distractors are not in the public data, so only the item's own APIs are
listed. Option ``shuffle_seed`` (default None = paper order) shuffles them
reproducibly.
"""

from __future__ import annotations

import random

from reviewer.errors import InputError
from reviewer.kinds import ItemKind
from reviewer.rerun.prompts.base import (
    ChatRequest,
    RerunItem,
    check_options,
    fill,
    require,
    strategy,
    user,
)

TABLE9_PROMPT = (
    "You have access to a list of APIs and the task description.You need to follow the given task description "
    "and determine which API to call in sequence according to the order required by the task description. API "
    "can be retrieved from the APIs list. Finally, you only need to return the API call result without any other "
    "content.\n"
    'The final result should be in the format of [{"api_name":__,"api_id":__,"parameters":{"arg0":"value0",'
    '"arg1":"value1",...},"responses":{"arg0":"API_call_0", ... ,"argn":"API_call_n"}},{"api_name":__,'
    '"api_id":__,"parameters":{"arg0":"value0","arg1":"value1",...},"responses":{"arg0":"API_call_{n+1}",...}}, '
    "...]. You don't need to know the actual return value of the API call, just assign each return value as a "
    'string "API_call_{number}" in "responses", such as "API_call_0","API_call_1","API_call_2" and so on. The '
    '"number" in "API_call_{number}" should increase by one from 0 globally. \n'
    "Please first determine which APIs to call in sequence based on the task, and then determine the parameter "
    "values of each API depending on the specific details of the task. If you decide to call the API, you need "
    "to fill in all this API's required parameters which can be found in this API's \"required\" list. If you "
    "think the task does not include the actual value of a necessary parameter in API's \"required\" list, you "
    'can assign the necessary parameter a value of "UNK". The remaining parameters are optional parameters, '
    "determine whether to fill them in according to the task. If you think the parameter value to be filled in "
    'is the return value of a previous API call, set it as "API_call_x", then the parameter value can be filled '
    'in with "API_call_x".\n\n'
    "Now it is your turn to generate the API call result based on the APIs and task description below. Remember "
    "that you only need to generate the API call result, not any additional explanations.\n"
    "APIs:\n"
    "{tools}"
    "\n\nTask description:\n"
    "{task}"
    "\n\nAPI call result:\n"
)

OPTIONS = {"shuffle_seed": ()}


def apis_with_ids(item: RerunItem) -> list[dict]:
    """The item's APIs, each with its ``api_id`` placed right after ``api_name``."""
    payload = item.payload or {}
    apis = require(item, payload.get("apis"), "$.payload.apis")
    ids = payload.get("api_ids") or [None] * len(apis)
    if len(ids) != len(apis):
        raise InputError(
            None,
            f"record {item.record_id!r}, $.payload.api_ids",
            f"has {len(ids)} ids for {len(apis)} APIs; they pair by position",
        )
    out = []
    for index, (api, api_id) in enumerate(zip(apis, ids)):
        if not isinstance(api, dict) or "api_name" not in api:
            raise InputError(None, f"record {item.record_id!r}, $.payload.apis[{index}]", "needs an api_name")
        entry = {}
        for key, value in api.items():
            entry[key] = value
            if key == "api_name":
                entry["api_id"] = api_id
        out.append(entry)
    return out


@strategy(ItemKind.CALL_CHAIN, "nestools")
def nestools(item: RerunItem, options: dict) -> ChatRequest:
    """Table 9 of paper 004 with the item's APIs and their ids."""
    opts = check_options(item, options, OPTIONS)
    apis = apis_with_ids(item)
    if opts["shuffle_seed"] is not None:
        random.Random(opts["shuffle_seed"]).shuffle(apis)
    task = require(item, getattr(item, "question", None), "question (the task)")
    prompt = fill(TABLE9_PROMPT, {"{tools}": str(apis), "{task}": task})
    return ChatRequest(
        messages=[user(prompt)],
        meta={"setup_type": "nestools", "api_ids": [a["api_id"] for a in apis]},
    )
