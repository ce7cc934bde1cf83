"""A loopback server that speaks the OpenAI chat-completions wire format, scripted by tests.

The everyday test double for reruns (and the target of ``bench/rerun_bench.py``):
the real ``openai`` client talks to it over real HTTP, so the client's
request building, response parsing, errors and connection handling are all
exercised. Standard library only.

    with OpenAIServer(latency=0.2) as server:
        server.script(Reply.rate_limited(retry_after=0.3), Reply(text="42"))
        client = openai.OpenAI(base_url=server.base_url, api_key="x")
        ...
        assert server.request_count == 2

What it answers, in order: the next scripted ``Reply`` (a queue, ``script``),
else ``responder(body)`` (a callable returning a Reply or a string), else
``Reply()`` ("ok"). A Reply can be a normal answer (text and/or tool calls),
an HTTP error (429 with retry-after, 500...), a dropped connection, or a
held answer that waits for an event (for cancellation tests). Parameters
listed in ``reject`` ("json_schema", "tool_choice", "seed") are refused with
a 400 naming the parameter, as servers without those features do. Streaming
(``"stream": true``) is answered as server-sent events.

With ``echo_key=True`` the server plays a hostile or careless endpoint: the
tokens of ``ECHO_TOKENS`` in a reply's text, error message or tool-call arguments
are replaced by the API key the request carried (its bearer token), as is,
URL-encoded, JSON-escaped or base64-encoded; secrets tests script replies with
them and scan everything written for every form of the key.

Every request is logged (``requests``, ``request_count``) with its arrival
and answer times, so tests measure timing from the server's side and wait
on ``wait_for_requests`` instead of sleeping.
"""

from __future__ import annotations

import base64
import json
import threading
import urllib.parse
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Self

REJECTABLE = ("json_schema", "tool_choice", "seed")

# Echo tokens (``echo_key=True``): each becomes the request's API key in one spelling.
ECHO_TOKENS = {
    "<<KEY>>": lambda k: k,
    "<<KEY_URL>>": lambda k: urllib.parse.quote(k, safe=""),
    "<<KEY_URL_PLUS>>": lambda k: urllib.parse.quote_plus(k, safe=""),
    "<<KEY_JSON>>": lambda k: json.dumps(k)[1:-1],
    "<<KEY_B64>>": lambda k: base64.b64encode(k.encode()).decode(),
    "<<BASIC_B64>>": lambda k: base64.b64encode(f"user:{k}".encode()).decode(),
}


def _echo(text: str | None, key: str) -> str | None:
    if not text:
        return text
    for token, spell in ECHO_TOKENS.items():
        text = text.replace(token, spell(key))
    return text


@dataclass
class Reply:
    """One scripted answer. ``status`` other than 200 sends an OpenAI-style error body."""

    text: str | None = "ok"
    tool_calls: list[dict] | None = None  # [{"name": str, "arguments": dict or JSON text}]
    finish_reason: str | None = None  # default: "tool_calls" with tool calls, else "stop"
    status: int = 200
    error: str = ""
    headers: dict[str, str] = field(default_factory=dict)
    delay: float | None = None  # seconds before answering; None: the server's latency
    drop: bool = False  # close the connection without answering
    hold: threading.Event | None = None  # answer only once this is set (or the server closes)
    prompt_tokens: int | None = None  # default: a rough count from the request
    completion_tokens: int | None = None

    @classmethod
    def rate_limited(cls, retry_after: float | None = 1.0) -> Reply:
        headers = {} if retry_after is None else {"retry-after": f"{retry_after:g}"}
        return cls(text=None, status=429, error="rate limit reached, slow down", headers=headers)

    @classmethod
    def server_error(cls, status: int = 500) -> Reply:
        return cls(text=None, status=status, error="internal error (scripted)")

    @classmethod
    def dropped(cls) -> Reply:
        return cls(text=None, drop=True)


@dataclass
class LoggedRequest:
    path: str
    body: dict | None
    headers: dict[str, str]  # lower-case names
    received_at: float  # time.monotonic() when the request was read
    answered_at: float | None = None  # when the answer (or error, or drop) went out
    status: int | None = None  # None for a dropped connection


Responder = Callable[[dict], "Reply | str | None"]


def _rough_tokens(text: str) -> int:
    return max(1, len(text) // 4)


class OpenAIServer:
    """``POST /v1/chat/completions`` and ``GET /v1/models`` on 127.0.0.1, a free port.

    Thread-safe: handlers run in their own threads; ``script``, the log and
    the counters may be used from the test thread at any time.
    """

    def __init__(
        self,
        responder: Responder | None = None,
        *,
        latency: float = 0.0,
        reject: tuple[str, ...] | set[str] = (),
        model: str = "test-model",
        echo_key: bool = False,
    ):
        unknown = set(reject) - set(REJECTABLE)
        if unknown:
            raise ValueError(f"cannot reject {sorted(unknown)}; choose from {REJECTABLE}")
        self.responder = responder
        self.latency = latency
        self.reject = set(reject)
        self.model = model
        self.echo_key = echo_key
        self.requests: list[LoggedRequest] = []
        self._script: deque[Reply] = deque()
        self._lock = threading.Condition()
        self._closing = threading.Event()
        self._httpd: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    # --- lifecycle ---------------------------------------------------------------------

    def start(self) -> OpenAIServer:
        handler = type("Handler", (_Handler,), {"owner": self})
        self._httpd = _Server(("127.0.0.1", 0), handler)
        # A short poll interval: close() waits up to one interval for the serving loop.
        self._thread = threading.Thread(
            target=self._httpd.serve_forever, kwargs={"poll_interval": 0.02}, name="openai-test-server", daemon=True
        )
        self._thread.start()
        return self

    def close(self) -> None:
        """Stop serving; held and sleeping answers are released (their connections dropped)."""
        self._closing.set()
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()
            self._httpd = None

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(self, *exc) -> None:
        self.close()

    @property
    def port(self) -> int:
        assert self._httpd is not None, "server not started"
        return self._httpd.server_address[1]

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    # --- scripting and inspection --------------------------------------------------------

    def script(self, *replies: Reply | str) -> None:
        """Queue answers for the next requests, in order (strings are answer texts)."""
        with self._lock:
            self._script.extend(Reply(text=r) if isinstance(r, str) else r for r in replies)

    @property
    def request_count(self) -> int:
        """Chat-completion requests received so far (``GET /v1/models`` not counted)."""
        with self._lock:
            return sum(1 for r in self.requests if r.path.endswith("/chat/completions"))

    def chat_requests(self) -> list[LoggedRequest]:
        with self._lock:
            return [r for r in self.requests if r.path.endswith("/chat/completions")]

    def wait_for_requests(self, count: int, timeout: float = 10.0) -> bool:
        """Block until ``count`` chat requests have arrived; False on timeout."""
        with self._lock:
            return self._lock.wait_for(lambda: self.request_count >= count, timeout)

    # --- used by the handler -------------------------------------------------------------

    def _log(self, entry: LoggedRequest) -> None:
        with self._lock:
            self.requests.append(entry)
            self._lock.notify_all()

    def _next_reply(self, body: dict) -> Reply:
        with self._lock:
            if self._script:
                return self._script.popleft()
        if self.responder is not None:
            reply = self.responder(body)
            if isinstance(reply, str):
                return Reply(text=reply)
            if reply is not None:
                return reply
        return Reply()

    def _rejection(self, body: dict) -> str | None:
        """The parameter to refuse in ``body``, if any."""
        response_format = body.get("response_format")
        wants_schema = isinstance(response_format, dict) and response_format.get("type") == "json_schema"
        if "json_schema" in self.reject and wants_schema:
            return "response_format"
        for param in ("tool_choice", "seed"):
            if param in self.reject and param in body:
                return param
        return None

    def _wait(self, seconds: float) -> bool:
        """Sleep, waking early when the server closes; True if it is closing."""
        return self._closing.wait(seconds) if seconds > 0 else self._closing.is_set()


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    block_on_close = False  # held answers must not keep close() waiting
    request_queue_size = 128  # many concurrent clients connect at once in the benchmark


class _Handler(BaseHTTPRequestHandler):
    owner: OpenAIServer
    protocol_version = "HTTP/1.1"  # keep-alive, as real servers do
    disable_nagle_algorithm = True  # else ~40 ms of delayed-ACK stall per answer

    def log_message(self, format: str, *args: Any) -> None:  # keep test output quiet
        pass

    # --- routes --------------------------------------------------------------------------

    def do_GET(self) -> None:
        entry = LoggedRequest(self.path, None, _headers(self), time.monotonic())
        self.owner._log(entry)
        if self.path.rstrip("/").endswith("/models"):
            data = {"object": "list", "data": [{"id": self.owner.model, "object": "model", "owned_by": "test"}]}
            self._send_json(entry, 200, data)
        else:
            self._send_json(entry, 404, _error("not found", "not_found"))

    def do_POST(self) -> None:
        length = int(self.headers.get("content-length") or 0)
        raw = self.rfile.read(length) if length else b""
        try:
            body = json.loads(raw or b"{}")
        except json.JSONDecodeError:
            body = None
        entry = LoggedRequest(self.path, body, _headers(self), time.monotonic())
        self.owner._log(entry)
        if not self.path.rstrip("/").endswith("/chat/completions"):
            return self._send_json(entry, 404, _error("not found", "not_found"))
        if not isinstance(body, dict) or "messages" not in body:
            return self._send_json(entry, 400, _error("body must be a JSON object with messages"))
        refused = self.owner._rejection(body)
        if refused:
            return self._send_json(entry, 400, _error(f"{refused} is not supported by this server", param=refused))
        reply = self.owner._next_reply(body)
        if self.owner.echo_key:
            reply = self._echoed(reply)
        if reply.hold is not None:
            while not reply.hold.wait(0.02):
                if self.owner._closing.is_set():
                    return self._drop(entry)
        delay = self.owner.latency if reply.delay is None else reply.delay
        if self.owner._wait(delay):
            return self._drop(entry)
        if reply.drop:
            return self._drop(entry)
        if reply.status != 200:
            return self._send_json(entry, reply.status, _error(reply.error or "error"), reply.headers)
        if body.get("stream"):
            return self._stream(entry, body, reply)
        return self._send_json(entry, 200, self._completion(body, reply), reply.headers)

    def _echoed(self, reply: Reply) -> Reply:
        """A copy of ``reply`` with the echo tokens replaced by this request's API key."""
        from dataclasses import replace

        auth = self.headers.get("authorization") or ""
        key = auth[7:] if auth.lower().startswith("bearer ") else auth
        calls = None
        if reply.tool_calls is not None:
            calls = []
            for c in reply.tool_calls:
                args = c.get("arguments")
                args = _echo(args if isinstance(args, str) else json.dumps(args), key)
                calls.append({**c, "arguments": args})
        return replace(reply, text=_echo(reply.text, key), error=_echo(reply.error, key), tool_calls=calls)

    # --- answers -------------------------------------------------------------------------

    def _completion(self, body: dict, reply: Reply) -> dict:
        message: dict[str, Any] = {"role": "assistant", "content": reply.text}
        if reply.tool_calls:
            message["tool_calls"] = _wire_tool_calls(reply.tool_calls)
        prompt_tokens, completion_tokens = _usage(body, reply)
        return {
            "id": f"chatcmpl-test-{id(reply):x}",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": body.get("model") or self.owner.model,
            "choices": [{"index": 0, "message": message, "finish_reason": _finish(reply), "logprobs": None}],
            "usage": {
                "prompt_tokens": prompt_tokens,
                "completion_tokens": completion_tokens,
                "total_tokens": prompt_tokens + completion_tokens,
            },
        }

    def _stream(self, entry: LoggedRequest, body: dict, reply: Reply) -> None:
        model = body.get("model") or self.owner.model
        base = {"id": "chatcmpl-test-stream", "object": "chat.completion.chunk", "created": int(time.time()), "model": model}
        chunks = [{**base, "choices": [{"index": 0, "delta": {"role": "assistant"}, "finish_reason": None}]}]
        text = reply.text or ""
        for start in range(0, len(text), 8):
            chunks.append({**base, "choices": [{"index": 0, "delta": {"content": text[start : start + 8]}, "finish_reason": None}]})
        if reply.tool_calls:
            calls = [dict(c, index=i) for i, c in enumerate(_wire_tool_calls(reply.tool_calls))]
            chunks.append({**base, "choices": [{"index": 0, "delta": {"tool_calls": calls}, "finish_reason": None}]})
        chunks.append({**base, "choices": [{"index": 0, "delta": {}, "finish_reason": _finish(reply)}]})
        payload = b"".join(f"data: {json.dumps(c)}\n\n".encode() for c in chunks) + b"data: [DONE]\n\n"
        self.send_response(200)
        self.send_header("content-type", "text/event-stream")
        self.send_header("content-length", str(len(payload)))
        self.end_headers()
        entry.status, entry.answered_at = 200, time.monotonic()  # before the body: see _send_json
        self.wfile.write(payload)

    def _send_json(self, entry: LoggedRequest, status: int, data: dict, headers: dict | None = None) -> None:
        payload = json.dumps(data).encode("utf-8")
        self.send_response(status)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(payload)))
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.end_headers()
        # Stamped before the body goes out: the client cannot have read the answer earlier, so
        # "the next request came >= x s after the answer" holds even if this thread is then descheduled.
        entry.status, entry.answered_at = status, time.monotonic()
        self.wfile.write(payload)

    def _drop(self, entry: LoggedRequest) -> None:
        # No response at all: the client sees the connection closed under it.
        self.close_connection = True
        entry.answered_at = time.monotonic()


def _error(message: str, type_: str = "invalid_request_error", param: str | None = None) -> dict:
    return {"error": {"message": message, "type": type_, "param": param, "code": None}}


def _wire_tool_calls(calls: list[dict]) -> list[dict]:
    out = []
    for index, call in enumerate(calls):
        arguments = call.get("arguments", {})
        if not isinstance(arguments, str):
            arguments = json.dumps(arguments)
        out.append({"id": call.get("id", f"call_{index}"), "type": "function", "function": {"name": call["name"], "arguments": arguments}})
    return out


def _finish(reply: Reply) -> str:
    return reply.finish_reason or ("tool_calls" if reply.tool_calls else "stop")


def _usage(body: dict, reply: Reply) -> tuple[int, int]:
    prompt = reply.prompt_tokens
    if prompt is None:
        prompt = sum(_rough_tokens(str(m.get("content") or "")) for m in body.get("messages", []) if isinstance(m, dict))
    completion = reply.completion_tokens
    if completion is None:
        completion = _rough_tokens((reply.text or "") + json.dumps(reply.tool_calls or ""))
    return prompt, completion


def _headers(handler: BaseHTTPRequestHandler) -> dict[str, str]:
    """Request headers with lower-case names (HTTP names are case-insensitive)."""
    return {name.lower(): value for name, value in handler.headers.items()}


def main(argv: list[str] | None = None) -> None:
    """Serve until interrupted: ``python -m reviewer.testing.openai_server --latency 0.2``.

    Prints the base URL as the first line of stdout (flushed), so a parent
    process (the benchmark, a manual ``reviewer run``) can read where to connect.
    """
    import argparse

    parser = argparse.ArgumentParser(description="Loopback OpenAI-compatible server answering 'ok'.")
    parser.add_argument("--latency", type=float, default=0.0, help="seconds before each answer")
    parser.add_argument("--reject", action="append", default=[], choices=REJECTABLE)
    args = parser.parse_args(argv)
    with OpenAIServer(latency=args.latency, reject=set(args.reject)) as server:
        print(server.base_url, flush=True)
        try:
            threading.Event().wait()
        except KeyboardInterrupt:
            pass


if __name__ == "__main__":
    main()
