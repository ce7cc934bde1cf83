"""One chat completion through the official ``openai`` client, errors sorted by what to do next.

The client's own retries are off (``max_retries=0``): the engine retries, so
that every retry is counted and rate limits are shared between workers. Every
error message and every completion (text and tool calls) that leaves this module
has the API key scrubbed from it in every form (a server may echo it back), so
neither the database, the cache nor a log ever receives it.
"""

from __future__ import annotations

import email.utils
import re
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from reviewer.rerun.secrets import scrub, scrub_value

if TYPE_CHECKING:
    import openai

# openai is imported where a call is made, not here: it takes longer to import than the
# whole app window takes to show, and most users of this module (the GUI's Runs panel,
# the CLI) never send a request in a session.

ErrorKind = Literal["transient", "rate_limited", "rejected", "permanent"]

# Parameters a server may refuse while the rest of the request is fine; the engine
# retries once without them. Each maps to the words its rejection messages use.
ADAPTABLE = {
    "response_format": ("response_format", "json_schema", "structured output"),
    "tool_choice": ("tool_choice",),
    "seed": ("seed",),
}


@dataclass
class Completion:
    text: str | None
    tool_calls: list[dict] | None  # [{"id", "name", "arguments" (JSON text as sent)}]
    finish_reason: str | None
    prompt_tokens: int | None
    completion_tokens: int | None


class CallError(Exception):
    """A failed attempt. ``kind`` says what the engine should do:

    transient (retry with backoff), rate_limited (pause everyone, honour
    ``retry_after``), rejected (``param`` was refused: resend without it),
    permanent (give up on this call).
    """

    def __init__(
        self,
        kind: ErrorKind,
        message: str,
        *,
        status: int | None = None,
        retry_after: float | None = None,
        param: str | None = None,
    ):
        super().__init__(message)
        self.kind = kind
        self.status = status
        self.retry_after = retry_after
        self.param = param


def parse_retry_after(headers: Any, now: float | None = None) -> float | None:
    """Seconds to wait from ``retry-after-ms`` or ``retry-after`` (seconds or an HTTP date)."""
    if headers is None:
        return None
    value = headers.get("retry-after-ms")
    if value:
        try:
            return max(0.0, float(value) / 1000.0)
        except ValueError:
            pass
    value = headers.get("retry-after")
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value).timestamp()
    except (TypeError, ValueError):
        return None
    return max(0.0, when - (now if now is not None else time.time()))


def _rejected_param(exc: openai.APIStatusError, sent: dict) -> str | None:
    body = exc.body if isinstance(exc.body, dict) else {}
    detail = body.get("error", body) if isinstance(body.get("error", body), dict) else {}
    named = detail.get("param")
    text = f"{exc.message} {detail.get('message', '')}".lower()
    for param, words in ADAPTABLE.items():
        if param not in sent:
            continue
        if named == param or any(re.search(rf"\b{re.escape(w)}\b", text) for w in words):
            return param
    return None


def _transport_message(exc: Exception) -> str:
    """What went wrong on the wire, with the underlying cause (``Connection refused``, a DNS failure).

    The SDK's own words are only "Connection error." or "Request timed out."; its aiohttp
    transport even reports a refused connection as a connect timeout. The root of the
    exception chain says what happened (``Connection error: ConnectionRefusedError: [Errno
    111] ...``), and only a timeout there is called one.
    """
    root, seen = exc, {id(exc)}
    while (below := root.__cause__ or root.__context__) is not None and id(below) not in seen:
        seen.add(id(below))
        root = below
    if root is exc:
        return f"{type(exc).__name__}: {exc}"
    timed_out = isinstance(root, TimeoutError) or "timeout" in type(root).__name__.lower()
    words = "Request timed out" if timed_out else "Connection error"
    return f"{words}: {type(root).__name__}: {root}"


def classify(exc: Exception, sent: dict, secret: str | None) -> CallError:
    """Turn an openai exception into a CallError (message scrubbed of ``secret``)."""
    import openai

    message = scrub(f"{type(exc).__name__}: {exc}", secret)
    if isinstance(exc, openai.APIConnectionError):  # APITimeoutError included
        return CallError("transient", scrub(_transport_message(exc), secret))
    if isinstance(exc, openai.APIStatusError):
        status = exc.status_code
        retry_after = parse_retry_after(exc.response.headers if exc.response is not None else None)
        if status == 429:
            return CallError("rate_limited", message, status=status, retry_after=retry_after)
        # Refusals come as 400/422, and from some servers as a 500 carrying the validation
        # error (llama-cpp-python answers json_schema that way): look for the parameter's name.
        if status in (400, 422) or status >= 500:
            param = _rejected_param(exc, sent)
            if param:
                return CallError("rejected", message, status=status, param=param)
        if status in (408, 409) or status >= 500:
            return CallError("transient", message, status=status, retry_after=retry_after)
        return CallError("permanent", message, status=status)
    return CallError("permanent", message)


class ChatClient:
    """An ``AsyncOpenAI`` client for one endpoint with retries disabled.

    Use inside one event loop; ``close()`` when done. The key is held only by
    the underlying client and never appears in this object's repr.

    Requests go through the client's generic ``post`` (the SDK's documented way
    to call an endpoint with a body it does not model) rather than
    ``chat.completions.create``: the body the engine built is already plain
    JSON, so the SDK's per-call walk over it (``maybe_transform``) and the
    pydantic ``ChatCompletion`` built from the answer are skipped, and the
    answer is read with orjson. That halves the client's CPU per call
    (bench/rerun_bench.py), which on a busy 2-core machine is what separates
    concurrency 16 from its ideal. Authentication, timeouts, the HTTP
    connection pool and every error class are still the SDK's.
    """

    def __init__(self, base_url: str, api_key: str, timeout: float, max_connections: int = 16):
        import openai

        self._secret = api_key
        self._client = openai.AsyncOpenAI(
            base_url=base_url, api_key=api_key, max_retries=0, timeout=timeout,
            http_client=_http_client(timeout, max_connections),
        )
        self._options = _bearer_options()
        self.base_url = base_url

    def __repr__(self) -> str:
        return f"ChatClient(base_url={self.base_url!r})"

    async def complete(self, body: dict) -> Completion:
        """Send ``body`` (model, messages, parameters) and read the first choice."""
        import openai

        try:
            raw = await self._client.post("/chat/completions", cast_to=bytes, body=body, options=self._options)
        except openai.OpenAIError as exc:
            raise classify(exc, body, self._secret) from None
        return read_completion(raw, self._secret)

    async def close(self) -> None:
        await self._client.close()


def _http_client(timeout: float, max_connections: int):
    """The SDK's aiohttp transport (its documented choice "for improved concurrency"), else its httpx one.

    On the loopback benchmark the aiohttp transport costs ~0.7 ms of CPU per call where
    httpx costs ~1.2 ms (bench/rerun_bench.py): on a busy 2-core machine, at concurrency
    16, that CPU is the gap to the ideal rate. Either keeps at least ``max_connections``
    connections alive: the SDK's default keeps 100, and a run above that would reopen
    connections on every call.
    """
    import openai
    from openai._constants import DEFAULT_CONNECTION_LIMITS as limits

    keep = max(limits.max_keepalive_connections or 0, max_connections)
    pool = type(limits)(max_connections=max(limits.max_connections or 0, keep), max_keepalive_connections=keep)
    try:
        return openai.DefaultAioHttpClient(timeout=timeout, limits=pool)
    except (AttributeError, RuntimeError, ImportError):  # an SDK without it, or aiohttp missing
        return openai.DefaultAsyncHttpxClient(timeout=timeout, limits=pool)


def _bearer_options() -> dict:
    """Request options that send the API key as a bearer token.

    Newer SDKs attach credentials per request (``security``); older ones always send
    the key and do not know the option.
    """
    from openai._base_client import make_request_options

    try:
        return make_request_options(security={"bearer_auth": True})
    except TypeError:
        return {}


def read_completion(raw: bytes, secret: str | None) -> Completion:
    """The first choice of a chat-completion answer (JSON bytes), scrubbed of ``secret``.

    Raises CallError("permanent") naming what is wrong when the answer is not a completion.
    """
    import orjson

    try:
        data = orjson.loads(raw)
    except orjson.JSONDecodeError as exc:
        raise CallError("permanent", scrub(f"the server's answer is not JSON ({exc}): {raw[:200]!r}", secret)) from None
    choices = data.get("choices") if isinstance(data, dict) else None
    if not choices:
        raise CallError("permanent", "the server answered with no choices")
    choice = choices[0] if isinstance(choices[0], dict) else {}
    message = choice.get("message")
    if not isinstance(message, dict):
        raise CallError("permanent", "the server's first choice has no message (choices[0].message)")
    tool_calls = None
    wire_calls = message.get("tool_calls")
    if wire_calls:
        tool_calls = [
            scrub_value({"id": c.get("id"), "name": f.get("name"), "arguments": f.get("arguments")}, secret)
            for c in wire_calls
            if isinstance(c, dict) and isinstance(f := c.get("function"), dict)
        ]
    usage = data.get("usage") if isinstance(data.get("usage"), dict) else {}
    content = message.get("content")
    finish = choice.get("finish_reason")
    return Completion(
        text=scrub(content, secret) if isinstance(content, str) or content is None else scrub(str(content), secret),
        tool_calls=tool_calls,
        finish_reason=scrub(finish, secret) if isinstance(finish, str) or finish is None else str(finish),
        prompt_tokens=_int_or_none(usage.get("prompt_tokens")),
        completion_tokens=_int_or_none(usage.get("completion_tokens")),
    )


def _int_or_none(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None
