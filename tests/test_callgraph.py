"""Call-chain data flow: edges, depths and nesting-structure labels."""

from reviewer.callgraph import (
    Edge,
    call_depths,
    chain_depth,
    dangling,
    edges,
    nesting_structure,
    placeholders_in,
    structure_links,
)


def call(name, params, responses):
    return {"api_name": name, "parameters": params, "responses": responses}


# The first item of the NesTools test set: scan → locate → AR, with 1's second output into 3.
LIBRARY = [
    call("scan_isbn", {"isbn": "978-3-16-148410-0"}, ["API_call_0", "API_call_1"]),
    call("locate_book", {"book_info": "API_call_0"}, ["API_call_2"]),
    call("engage_ar", {"availability": "API_call_1", "exact_location": "API_call_2"}, ["API_call_3"]),
]


def test_edges_name_producer_response_and_consumer_parameter():
    assert edges(LIBRARY) == [
        Edge(0, "API_call_0", 0, 1, "book_info"),
        Edge(0, "API_call_1", 1, 2, "availability"),
        Edge(1, "API_call_2", 0, 2, "exact_location"),
    ]


def test_depths_follow_the_longest_chain():
    assert call_depths(LIBRARY) == [1, 2, 3]
    assert chain_depth(LIBRARY) == 3
    assert nesting_structure(LIBRARY) == "1→2, 1→3, 2→3"
    assert structure_links(LIBRARY) == frozenset({1, (1, 2), (1, 3), (2, 3)})


def test_independent_calls_have_depth_one_and_list_every_call():
    calls = [call("a", {"x": 1}, ["API_call_0"]), call("b", {"y": "text"}, ["API_call_1"])]
    assert call_depths(calls) == [1, 1]
    assert chain_depth(calls) == 1
    assert nesting_structure(calls) == "1, 2"
    assert chain_depth([]) == 0
    assert nesting_structure([]) == "empty"


def test_placeholder_is_a_whole_token_not_a_prefix():
    # "API_call_1" must not be read inside "API_call_10".
    calls = [call(f"c{i}", {}, [f"API_call_{i}"]) for i in range(11)]
    calls.append(call("last", {"p": "API_call_10"}, []))
    assert [(e.producer, e.consumer) for e in edges(calls)] == [(10, 11)]
    assert list(placeholders_in("see API_call_1 and API_call_10, not XAPI_call_2")) == [
        "API_call_1",
        "API_call_10",
    ]


def test_references_inside_lists_dicts_and_text_count():
    calls = [
        call("a", {}, ["API_call_0"]),
        call("b", {}, ["API_call_1"]),
        call("c", {"ids": ["API_call_0", "API_call_1"], "note": {"k": "use API_call_1"}}, []),
    ]
    assert [(e.producer, e.parameter) for e in edges(calls)] == [(0, "ids"), (1, "ids"), (1, "note")]
    assert nesting_structure(calls) == "1→3, 2→3"


def test_predicted_calls_with_response_dicts_are_understood():
    predicted = [
        {"api_name": "a", "api_id": 1, "parameters": {}, "responses": {"out": "API_call_7"}},
        {"api_name": "b", "api_id": 2, "parameters": {"x": "API_call_7"}, "responses": {}},
    ]
    assert edges(predicted) == [Edge(0, "API_call_7", 0, 1, "x")]
    assert call_depths(predicted) == [1, 2]


def test_unknown_and_self_references_make_no_edge_but_are_reported():
    calls = [call("a", {"x": "API_call_0"}, ["API_call_0"]), call("b", {"y": "API_call_9"}, [])]
    assert edges(calls) == []
    assert chain_depth(calls) == 1
    assert dangling(calls) == [(0, "x", "API_call_0"), (1, "y", "API_call_9")]


def test_malformed_calls_do_not_raise():
    assert chain_depth([None, {"parameters": "oops"}, {"responses": 3}]) == 1


def test_the_nestools_readers_one_pass_depth_is_chain_depth():
    """reviewer.formats.nestools computes the depth of every imported item in one pass
    (skipping texts without a placeholder): the same number as chain_depth."""
    from reviewer.formats.nestools import _chain_depth

    cases = [
        [],
        LIBRARY,
        [call("a", {"x": "API_call_0"}, ["API_call_0"]), call("b", {"y": "API_call_9"}, [])],  # self, unknown
        [call("a", {}, ["API_call_0"]), call("b", {"l": ["x", {"k": "API_call_0"}], "n": 3}, ["API_call_1"]),
         call("c", {"s": "from API_call_1 and API_call_0", "b": True, "f": 1.5}, [])],  # nested values
        [call("a", {}, ["API_call_1"]), call("b", {"p": "API_call_10"}, []),  # a prefix is not the token
         call("c", {"p": "XAPI_call_1"}, [])],
        [call("a", {"p": "API_call_1"}, []), call("b", {}, ["API_call_1"])],  # used before it is produced
    ]
    assert [_chain_depth(c) for c in cases] == [chain_depth(c) for c in cases]
    assert [_chain_depth(c) for c in cases] == [0, 3, 1, 3, 1, 1]
