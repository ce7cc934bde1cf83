"""LLM-as-judge: Figure 24's prompt, the verdict rule, and a real openai client round trip.

The server is a tiny stdlib loopback double of /v1/chat/completions that
records what it was sent and answers from a script.
"""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from reviewer.scoring.base import ScoringItem, ScoringOutput
from reviewer.scoring.judge import JUDGE_PROMPT, judge, judge_prompt, parse_verdict
from reviewer.scoring.tooljson import ToolJsonScorer

openai = pytest.importorskip("openai")


class _ChatServer(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, replies):
        super().__init__(("127.0.0.1", 0), _Handler)
        self.replies = list(replies)
        self.requests: list[dict] = []


class _Handler(BaseHTTPRequestHandler):
    disable_nagle_algorithm = True

    def do_POST(self):  # noqa: N802 - http.server's naming
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        assert self.path == "/v1/chat/completions"
        self.server.requests.append(body)
        reply = self.server.replies.pop(0)
        data = json.dumps({
            "id": "x", "object": "chat.completion", "created": 0, "model": body["model"],
            "choices": [{"index": 0, "finish_reason": "stop",
                         "message": {"role": "assistant", "content": reply}}],
            "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
        }).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args):
        pass


@pytest.fixture
def chat_server():
    servers = []

    def start(replies):
        server = _ChatServer(replies)
        threading.Thread(target=server.serve_forever, daemon=True).start()
        servers.append(server)
        client = openai.OpenAI(base_url=f"http://127.0.0.1:{server.server_port}/v1", api_key="test", max_retries=0)

        def send(messages):
            out = client.chat.completions.create(model="judge", messages=messages, temperature=0)
            return out.choices[0].message.content

        return server, send

    yield start
    for server in servers:
        server.shutdown()
        server.server_close()


def test_prompt_is_figure_24():
    text = judge_prompt("ARS", "The ARS report")
    assert text.startswith("You are given two inputs, one is the ground truth and one is predicted answer.\n")
    assert "3. Please output only \"True\" or \"False\".\n\nground_truth:ARS\npredicted_answer:The ARS report\n\n" in text
    assert text.endswith("Does the predicted_answer match the ground_truth?:")
    assert JUDGE_PROMPT.count("\n") == 11  # lines 5-16 of the figure


def test_prompt_as_the_original_code_builds_it():
    text = judge_prompt("ARS", "x", variant="code")
    lines = text.split("\n")
    assert lines[0] == JUDGE_PROMPT.split("\n")[0]
    assert lines[1].startswith("    These are two strings.")
    assert lines[7] == ""  # blank lines stay blank
    assert text.endswith("    Does the predicted_answer match the ground_truth?: ")


@pytest.mark.parametrize("reply,verdict", [
    ("True", True), ("true.", True), ("  TRUE because...", True),
    ("False", False), ("It is true", False), ("", False), (None, None),
])
def test_verdict_rule(reply, verdict):
    assert parse_verdict(reply) is verdict


def test_judge_through_the_openai_client(chat_server):
    server, send = chat_server(["True", "False, they differ"])
    assert judge(send, "What form?", "ARS", "ars report") is True
    assert judge(send, "What form?", "ARS", "10-K") is False
    sent = server.requests[0]["messages"]
    assert sent == [{"role": "user", "content": judge_prompt("ARS", "ars report")}]


def test_scorer_adds_the_judge_metric(chat_server):
    _, send = chat_server(["True"])
    scorer = ToolJsonScorer(judge_fn=send)
    it = ScoringItem("u", "tool_qa", "Women's", raw={"question": "Which department?"}, category="EXTRACTIVE")
    res = scorer.score(it, ScoringOutput(None, "for women"))
    assert res.metrics["exact_match"] is False
    assert res.metrics["llm_as_a_judge"] is True
    agg = scorer.aggregate([(it, res)])
    assert agg["overall"]["llm_as_a_judge"] == 1.0
