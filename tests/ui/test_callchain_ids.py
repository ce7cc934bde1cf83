"""The Calls tab pairs a NesTools output's calls with gold as the scorer does: by api_id, each
gold call's id found by name in the item's API list (payload["api_ids"] is per API, not per call)."""

from __future__ import annotations

from types import SimpleNamespace

from reviewer_ui.itemprep import _call_chain

APIS = [{"api_name": "get_weather", "parameters": {}}, {"api_name": "send_mail", "parameters": {}}]
GOLD = [  # the second API is called first: the gold calls are not in API-list order
    {"api_name": "send_mail", "parameters": {"to": "ann"}, "responses": ["API_call_0"]},
    {"api_name": "get_weather", "parameters": {"city": "Oslo"}, "responses": ["API_call_1"]},
]


def _alignment(prediction):
    detail = SimpleNamespace(payload={"apis": APIS, "api_ids": [501, 502]}, gold=GOLD)
    output = SimpleNamespace(value=prediction, value_ok=True)
    return _call_chain(detail, [output])["alignments"][0]


def test_a_correct_output_matches_call_for_call_when_apis_and_calls_are_in_other_orders():
    prediction = [
        {"api_name": "send_mail", "api_id": 502, "parameters": {"to": "ann"}, "responses": {"ok": "API_call_0"}},
        {"api_name": "get_weather", "api_id": 501, "parameters": {"city": "Oslo"}, "responses": {"t": "API_call_1"}},
    ]
    rows = _alignment(prediction).rows
    assert [(r.gold, r.pred, r.status) for r in rows] == [(0, 0, "match"), (1, 1, "match")]


def test_a_call_with_the_wrong_api_id_leaves_its_gold_call_missing_as_the_scorer_counts_it():
    prediction = [  # send_mail given get_weather's id: no predicted call carries 502
        {"api_name": "send_mail", "api_id": 501, "parameters": {"to": "ann"}, "responses": {"ok": "API_call_0"}},
        {"api_name": "get_weather", "api_id": 501, "parameters": {"city": "Oslo"}, "responses": {"t": "API_call_1"}},
    ]
    rows = [(r.gold, r.pred, r.status) for r in _alignment(prediction).rows]
    assert (0, None, "missing") in rows
