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


def classify(exc: Exception, sent: dict, secret: str | None) -> CallError:
    """Turn an openai exception into a CallError (message scrubbed of ``secret``)."""
    import openai

    message = scrub(f"{type(exc).__name__}: {exc}", secret)
    if isinstance(exc, openai.APITimeoutError):
        return CallError("transient", message)
    if isinstance(exc, openai.APIConnectionError):
        return CallError("transient", message)
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
    """

    def __init__(self, base_url: str, api_key: str, timeout: float):
        import openai

        self._secret = api_key
        self._client = openai.AsyncOpenAI(base_url=base_url, api_key=api_key, max_retries=0, timeout=timeout)
        self.base_url = base_url

    def __repr__(self) -> str:
        return f"ChatClient(base_url={self.base_url!r})"

    async def complete(self, body: dict) -> Completion:
        """Send ``body`` (model, messages, parameters) and read the first choice."""
        import openai

        try:
            response = await self._client.chat.completions.create(**body)
        except openai.OpenAIError as exc:
            raise classify(exc, body, self._secret) from None
        if not response.choices:
            raise CallError("permanent", "the server answered with no choices")
        secret = self._secret
        choice = response.choices[0]
        message = choice.message
        tool_calls = None
        if message.tool_calls:
            tool_calls = [
                scrub_value({"id": c.id, "name": c.function.name, "arguments": c.function.arguments}, secret)
                for c in message.tool_calls
                if getattr(c, "function", None) is not None
            ]
        usage = response.usage
        return Completion(
            text=scrub(message.content, secret),
            tool_calls=tool_calls,
            finish_reason=scrub(choice.finish_reason, secret),
            prompt_tokens=usage.prompt_tokens if usage else None,
            completion_tokens=usage.completion_tokens if usage else None,
        )

    async def close(self) -> None:
        await self._client.close()
