"""The loopback server speaks the wire format the real openai client expects."""

from __future__ import annotations

import openai
import pytest

from reviewer.testing.openai_server import OpenAIServer, Reply


def client(server: OpenAIServer) -> openai.OpenAI:
    return openai.OpenAI(base_url=server.base_url, api_key="test", max_retries=0)


def test_models_and_scripted_answers_in_order(server):
    assert [m.id for m in client(server).models.list()] == ["test-model"]
    server.script("first", Reply(text=None, tool_calls=[{"name": "f", "arguments": {"x": 1}}]))
    c = client(server)
    ask = lambda: c.chat.completions.create(model="m", messages=[{"role": "user", "content": "hello there"}])
    one, two, three = ask(), ask(), ask()
    assert one.choices[0].message.content == "first" and one.usage.prompt_tokens > 0
    assert two.choices[0].message.tool_calls[0].function.arguments == '{"x": 1}'
    assert two.choices[0].finish_reason == "tool_calls"
    assert three.choices[0].message.content == "ok"  # script exhausted: the default answer
    assert server.request_count == 3 and server.chat_requests()[0].body["messages"][0]["content"] == "hello there"


def test_streaming_answers_arrive_as_chunks(server):
    server.script("a streamed answer that spans several chunks")
    stream = client(server).chat.completions.create(model="m", messages=[{"role": "user", "content": "x"}], stream=True)
    pieces = [chunk.choices[0].delta.content or "" for chunk in stream if chunk.choices]
    assert len(pieces) > 3 and "".join(pieces) == "a streamed answer that spans several chunks"


def test_errors_and_rejections_look_like_openai_errors():
    with OpenAIServer(reject={"tool_choice"}) as server:
        server.script(Reply.rate_limited(retry_after=7))
        c = client(server)
        with pytest.raises(openai.RateLimitError) as limited:
            c.chat.completions.create(model="m", messages=[{"role": "user", "content": "x"}])
        assert limited.value.response.headers["retry-after"] == "7"
        with pytest.raises(openai.BadRequestError) as refused:
            c.chat.completions.create(
                model="m", messages=[{"role": "user", "content": "x"}], tool_choice="none",
                tools=[{"type": "function", "function": {"name": "f", "parameters": {"type": "object", "properties": {}}}}],
            )
        assert refused.value.body["param"] == "tool_choice"
        server.script(Reply.dropped())
        with pytest.raises(openai.APIConnectionError):
            c.chat.completions.create(model="m", messages=[{"role": "user", "content": "x"}])


def test_a_responder_answers_from_the_request():
    with OpenAIServer(responder=lambda body: body["messages"][-1]["content"].upper()) as server:
        answer = client(server).chat.completions.create(model="m", messages=[{"role": "user", "content": "shout"}])
    assert answer.choices[0].message.content == "SHOUT"
