"""NesTools outputs read in the gold's shape for the diff (reviewer.jsondiff.callshape)."""

from reviewer.jsondiff.callshape import read_chains

APIS = [{"api_name": "get_weather"}, {"api_name": "get_air_quality"}]
GOLD = [{"api_name": "get_weather", "parameters": {"city": "Lisbon"}, "responses": ["API_call_0", "API_call_1"]}]


def _out(**extra):
    call = {"api_name": "get_weather", "api_id": 501, "parameters": {"city": "Lisbon"},
            "responses": {"temperature": "API_call_0", "condition": "API_call_1"}}
    call.update(extra)
    return [call]


def test_a_perfect_output_reads_like_the_gold():
    pair = read_chains(GOLD, _out(), APIS, [501, 502])
    assert pair.left == pair.right
    assert pair.left[0]["api_id"] == 501 and list(pair.left[0]) == ["api_name", "api_id", "parameters", "responses"]
    assert "api_id" not in GOLD[0]  # the stored gold is not touched


def test_a_wrong_id_and_unread_keys():
    pair = read_chains(GOLD, _out(api_id=502, note="x"), APIS, [501, 502])
    assert pair.right[0]["api_id"] == 502 and "note" not in pair.right[0]
    assert "never reads them: note" in pair.right_note


def test_unknown_ids_hide_the_outputs_id_and_say_so():
    pair = read_chains(GOLD, _out(), APIS, None)
    assert pair.left == pair.right and pair.left_note is None
    assert "api_id not shown" in pair.right_note


def test_responses_that_are_not_an_object_are_read_as_none():
    pair = read_chains(GOLD, _out(responses=["API_call_0", "API_call_1"]), APIS, [501, 502])
    assert pair.right[0]["responses"] == []
    assert "read as none" in pair.right_note


def test_not_calls_is_left_alone():
    assert read_chains(GOLD, "no list here", APIS, [501, 502]) is None
    assert read_chains("text", _out(), APIS, [501, 502]) is None
