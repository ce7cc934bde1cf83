"""NesTools call chains in one shape, for the diff display only.

A NesTools gold call lists its response placeholders (``"responses":
["API_call_0", "API_call_1"]``) and names no ``api_id``; a model is asked
(paper 004, the prompt's answer format) for ``"responses": {"temperature":
"API_call_0", ...}`` and an ``api_id``. The official evaluation reads a
predicted call's responses as the dict's values in order (the names are never
looked at) and matches calls by api_id, the gold's being looked up by api name
in the item's API list (reviewer.scoring.nestools_match / nestools). Diffed
as stored, every correct output shows "type changed responses" and "added
api_id".

``read_chains(gold, predicted, apis, api_ids)`` gives the pair as the scorer
compares it:

- the output's ``responses`` object becomes the list of its values (a
  ``responses`` that is not an object becomes ``[]``: the scorer reads no
  placeholder from it);
- the gold gets each call's ``api_id`` from the API list, so a wrong id is a
  difference; when the ids are unknown the output's ``api_id`` is left out;
- keys the scorer never reads (anything but api_name, api_id, parameters and
  responses) are left out of the output.

Each side says what was done (``left_note`` / ``right_note``) for the titles.
Scoring never uses this.
"""

from __future__ import annotations

from typing import Any

from reviewer.jsondiff.listlike import ListPair

READ_KEYS = ("api_name", "api_id", "parameters", "responses")


def _calls(value: Any) -> bool:
    return isinstance(value, list) and all(isinstance(c, dict) for c in value)


def gold_ids(gold: list[dict], apis: Any, api_ids: Any) -> list[Any] | None:
    """The api_id of each gold call, looked up by name in the API list as the scorer
    does (the last listing of a name wins); None when any cannot be found."""
    if not isinstance(apis, list) or not isinstance(api_ids, list):
        return None
    by_name = {}
    for index, api in enumerate(apis):
        if isinstance(api, dict) and "api_name" in api and index < len(api_ids):
            by_name[api["api_name"]] = api_ids[index]
    names = [c.get("api_name") for c in gold]
    if any(n not in by_name or by_name[n] is None for n in names):
        return None
    return [by_name[n] for n in names]


def _with_id(call: dict, api_id: Any) -> dict:
    """``call`` with ``api_id`` placed after ``api_name``, where outputs put it."""
    out = {}
    for k, v in call.items():
        if k != "api_id":
            out[k] = v
        if k == "api_name":
            out["api_id"] = api_id
    if "api_id" not in out:
        out = {"api_id": api_id, **out}
    return out


def read_chains(gold: Any, predicted: Any, apis: Any = None, api_ids: Any = None) -> ListPair | None:
    """The gold and a parsed output in one shape (see the module), or None when either
    is not a list of calls (then the diff shows them as they are)."""
    if not _calls(gold) or not _calls(predicted):
        return None
    ids = gold_ids(gold, apis, api_ids)
    left = [_with_id(c, i) for c, i in zip(gold, ids)] if ids is not None else gold
    right, dropped, unread, id_hidden = [], set(), False, False
    for call in predicted:
        shaped = {}
        for k, v in call.items():
            if k == "api_id" and ids is None:
                id_hidden = True
                continue
            if k not in READ_KEYS:
                dropped.add(str(k))
                continue
            if k == "responses":
                if isinstance(v, dict):
                    v = list(v.values())
                else:
                    unread, v = True, []
            shaped[k] = v
        right.append(shaped)
    notes = ["responses read as lists, as the scorer reads them"]
    if unread:
        notes.append("a responses that is not an object is read as none")
    if id_hidden:
        notes.append("api_id not shown: the item's API list gives no ids for the gold")
    if dropped:
        notes.append(f"not shown, the scorer never reads them: {', '.join(sorted(dropped))}")
    left_note = "api_id from the API list, as the scorer matches calls" if ids is not None else None
    return ListPair(left, right, left_note, "; ".join(notes))
