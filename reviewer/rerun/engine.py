"""Run planned chat calls against an OpenAI-compatible endpoint: bounded, retried, cancellable.

Two functions make the store-independent API:

- ``plan(items, config, done, retry_errors_only, failed)`` builds the calls
  still to make (resume is the caller's job: it says what is done);
- ``execute(calls, config, ctx, on_result)`` makes them and hands each
  ``CallResult`` to ``on_result``.

Threading: ``execute`` runs an asyncio event loop in the calling thread and
calls ``on_result`` and ``ctx.progress`` from that same thread, one result at
a time, so the callback needs no locking (a slow callback delays the other
calls, so keep it to a store write). Call ``execute`` from a worker thread,
never from inside a running event loop. ``ctx.cancel()`` from any thread
abandons the calls in flight within ~20 ms; ``execute`` then raises
``Cancelled`` and no further request is sent.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass, field

from reviewer.errors import InputError, ReviewerError
from reviewer.jobs import Cancelled, JobContext
from reviewer.rerun.cache import ResponseCache, cache_key
from reviewer.rerun.client import CallError, ChatClient, Completion
from reviewer.rerun.config import RunConfig
from reviewer.rerun.prompts.base import ChatRequest, RerunItem, build_request
from reviewer.rerun.ratelimit import RateLimiter
from reviewer.rerun.secrets import resolve_api_key, scrub

log = logging.getLogger(__name__)

CANCEL_POLL_SECONDS = 0.02
# Calls in a row that got no answer at all (refused, unreachable, timed out) after
# their retries: then the endpoint is down and the run stops, saying why.
UNREACHABLE_CALLS_TO_STOP = 3
UNREACHABLE_PREFIX = "cannot reach "  # starts the progress message of an attempt that got no answer


class EndpointUnreachable(ReviewerError):
    """The endpoint did not answer several calls in a row; the run stopped.
    What was received before is kept (each result is saved as it arrives)."""


@dataclass(frozen=True)
class PlannedCall:
    record_id: str
    replication: int
    request: ChatRequest


@dataclass
class CallResult:
    """The outcome of one planned call.

    ``latency_ms`` is the duration of the attempt that produced the answer (of
    the original call for a cached result). ``retries`` counts extra attempts
    after transient failures; resending without a rejected parameter is an
    adaptation, not a retry. ``adaptations`` are notes a reviewer can read on
    what was changed from the planned request.
    """

    record_id: str
    replication: int
    text: str | None = None
    tool_calls: list[dict] | None = None
    status: str = "ok"  # ok | error
    error: str | None = None
    latency_ms: float | None = None
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    retries: int = 0
    finish_reason: str | None = None
    cached: bool = False
    adaptations: list[str] = field(default_factory=list)
    meta: dict = field(default_factory=dict)  # the request's meta (setup type, tool-name map)

    def to_dict(self) -> dict:
        return asdict(self)


@dataclass
class RunSummary:
    total: int = 0
    ok: int = 0
    errors: int = 0
    cached: int = 0
    retries: int = 0
    rate_limit_pauses: int = 0
    adaptations: list[str] = field(default_factory=list)  # distinct notes, in order of first use


def plan(
    items: Iterable[RerunItem],
    config: RunConfig,
    done: set[tuple[str, int]] = frozenset(),
    retry_errors_only: bool = False,
    failed: set[tuple[str, int]] = frozenset(),
) -> list[PlannedCall]:
    """The calls still to make: one per item and replication ``0..config.replications-1``.

    ``done`` holds the (record_id, replication) pairs that already have a good
    result; they are skipped. With ``retry_errors_only`` only the pairs in
    ``failed`` (those whose result is an error) are planned, so a resume that
    should not start new items can retry just the failures. Raises InputError
    (naming the record) when an item cannot be turned into a request, before
    anything is sent.
    """
    calls = []
    for item in items:
        request = None
        for replication in range(config.replications):
            key = (item.record_id, replication)
            if key in done or (retry_errors_only and key not in failed):
                continue
            if request is None:
                request = build_request(item, config.strategy, config.strategy_options)
            calls.append(PlannedCall(item.record_id, replication, request))
    return calls


def rejection_note(param: str) -> str:
    return f"server rejected {param}; sent without it"


class _EndpointQuirks:
    """Parameters this endpoint refused during the run; later calls leave them out."""

    def __init__(self) -> None:
        self.dropped: set[str] = set()

    def shape(self, body: dict, notes: list[str]) -> dict:
        out = dict(body)
        for param in sorted(self.dropped):
            if param in out:
                del out[param]
                note = f"sent without {param} (the server rejected it earlier in this run)"
                if note not in notes and rejection_note(param) not in notes:
                    notes.append(note)
        return out


def _open_cache(config: RunConfig, cache: ResponseCache | None) -> tuple[ResponseCache | None, bool]:
    """(cache to use, whether we opened it and must close it)."""
    if not config.cache:
        return None, False
    if cache is not None:
        return cache, False
    return ResponseCache(config.cache_dir), True


def execute(
    calls: list[PlannedCall],
    config: RunConfig,
    ctx: JobContext,
    on_result: Callable[[CallResult], None],
    *,
    cache: ResponseCache | None = None,
) -> RunSummary:
    """Make ``calls`` with at most ``config.concurrency`` in flight; see the module docstring.

    Every call ends in exactly one ``on_result`` (ok or error) unless the run
    is cancelled first. Transient failures (429, 5xx, 408/409, dropped
    connections, timeouts) are retried up to ``config.retries`` times; a 429
    pauses all workers for its retry-after. A parameter the server rejects
    (response_format, tool_choice, seed) is dropped for the rest of the run
    and the call resent once, noted in ``adaptations``. With ``config.cache``
    an identical earlier success is returned without a request. Raises
    ``Cancelled`` when ``ctx`` was cancelled, ``MissingKey`` when the key
    cannot be found, ``EndpointUnreachable`` after ``UNREACHABLE_CALLS_TO_STOP``
    calls in a row got no answer at all (each is delivered as an error first),
    and re-raises whatever ``on_result`` raises (after abandoning the other calls).
    Every attempt that cannot reach the endpoint is reported at once through
    ``ctx.progress``'s message, so a user sees the connection error in seconds.
    """
    ctx.check_cancelled()
    return execute_with_key(calls, config, ctx, on_result, resolve_api_key(config), cache=cache)


def execute_with_key(
    calls: list[PlannedCall],
    config: RunConfig,
    ctx: JobContext,
    on_result: Callable[[CallResult], None],
    api_key: str,
    *,
    cache: ResponseCache | None = None,
) -> RunSummary:
    """``execute`` with the API key already found (reviewer.rerun.isolated hands it to its process)."""
    ctx.check_cancelled()
    store, owned = _open_cache(config, cache)
    try:
        return asyncio.run(_Run(calls, config, ctx, on_result, store, api_key).run())
    finally:
        if owned and store is not None:
            store.close()


class _Run:
    def __init__(self, calls, config: RunConfig, ctx: JobContext, on_result, cache, api_key: str):
        self.calls = calls
        self.config = config
        self.ctx = ctx
        self.on_result = on_result
        self.cache = cache
        self.api_key = api_key
        self.quirks = _EndpointQuirks()
        self.limiter = RateLimiter(config.backoff, config.max_backoff)
        self.summary = RunSummary(total=len(calls))
        self.done = 0
        self.unreachable: set[tuple[str, int]] = set()  # calls whose final attempt got no answer
        self.unreachable_in_a_row = 0

    async def run(self) -> RunSummary:
        self.ctx.progress(0, len(self.calls), "rerun")
        if not self.calls:
            return self.summary
        queue: asyncio.Queue[PlannedCall] = asyncio.Queue()
        for call in self.calls:
            queue.put_nowait(call)
        self.client = ChatClient(self.config.base_url, self.api_key, self.config.timeout,
                                 max_connections=self.config.concurrency)
        workers = [
            asyncio.create_task(self._worker(queue)) for _ in range(min(self.config.concurrency, len(self.calls)))
        ]
        watcher = asyncio.create_task(self._watch_cancel(workers))
        try:
            await asyncio.gather(*workers)
        except asyncio.CancelledError:
            # The watcher cancelled the workers; wait until each has let go of its request.
            await asyncio.gather(*workers, return_exceptions=True)
        except BaseException:
            for task in workers:
                task.cancel()
            await asyncio.gather(*workers, return_exceptions=True)
            raise
        finally:
            watcher.cancel()
            await asyncio.gather(watcher, return_exceptions=True)
            await self.client.close()
        self.ctx.check_cancelled()
        self.summary.rate_limit_pauses = self.limiter.pauses
        return self.summary

    async def _watch_cancel(self, workers: list[asyncio.Task]) -> None:
        # JobContext offers a thread-safe flag, not an awaitable: poll it.
        while not self.ctx.cancelled:
            await asyncio.sleep(CANCEL_POLL_SECONDS)
        for task in workers:
            task.cancel()

    async def _worker(self, queue: asyncio.Queue[PlannedCall]) -> None:
        while not self.ctx.cancelled:
            try:
                call = queue.get_nowait()
            except asyncio.QueueEmpty:
                return
            result = await self._one(call)
            if self.ctx.cancelled:
                return  # cancelled while this call finished: deliver nothing more
            self._deliver(result)

    def _deliver(self, result: CallResult) -> None:
        s = self.summary
        s.ok += result.status == "ok"
        s.errors += result.status == "error"
        s.cached += result.cached
        s.retries += result.retries
        for note in result.adaptations:
            if note not in s.adaptations:
                s.adaptations.append(note)
        self.on_result(result)
        self.done += 1
        if (result.record_id, result.replication) in self.unreachable:
            self.unreachable_in_a_row += 1
            if self.unreachable_in_a_row >= UNREACHABLE_CALLS_TO_STOP:
                raise EndpointUnreachable(
                    f"stopped: {self.unreachable_in_a_row} calls in a row could not reach "
                    f"{self.config.base_url} ({result.error}). Check that the server is running and the "
                    "base URL is right, then continue the run: what was received is kept.")
        else:
            self.unreachable_in_a_row = 0
        self.ctx.progress(self.done, len(self.calls), "rerun")

    def _body(self, request: ChatRequest) -> dict:
        return {"model": self.config.model, **request.wire_fields(), **self.config.generation_params()}

    async def _one(self, call: PlannedCall) -> CallResult:
        base = {"record_id": call.record_id, "replication": call.replication, "meta": dict(call.request.meta)}
        key = None
        if self.cache is not None:
            key = cache_key(
                self.config.base_url,
                self.config.model,
                call.request.wire_fields(),
                self.config.generation_params(),
                call.replication,
            )
            hit = self.cache.get(key)
            if hit is not None:
                restored = {name: hit.get(name) for name in CACHED_FIELDS}
                restored["adaptations"] = list(restored["adaptations"] or [])
                return CallResult(**base, **restored, cached=True)
        notes: list[str] = []
        retries = 0
        planned = self._body(call.request)
        while True:
            body = self.quirks.shape(planned, notes)
            await self.limiter.wait_turn()
            started = time.monotonic()
            try:
                completion = await self.client.complete(body)
            except CallError as exc:
                if exc.kind == "rejected" and exc.param in body and exc.param not in self.quirks.dropped:
                    self.quirks.dropped.add(exc.param)
                    notes.append(rejection_note(exc.param))
                    log.info("%s rejected %s; continuing without it", self.config.base_url, exc.param)
                    continue
                if exc.kind == "rejected" and exc.param in self.quirks.dropped and exc.param in body:
                    # Another worker dropped it meanwhile; resend shaped by the new quirks.
                    continue
                no_answer = exc.kind == "transient" and exc.status is None  # refused, unreachable, timed out
                if no_answer:
                    left = self.config.retries - retries
                    self.ctx.progress(self.done, len(self.calls),
                                      f"{UNREACHABLE_PREFIX}{self.config.base_url}: {exc}"
                                      + (f" (retrying, {left} attempt{'s' if left != 1 else ''} left)" if left > 0
                                         else ""))
                if exc.kind in ("transient", "rate_limited") and retries < self.config.retries:
                    if exc.kind == "rate_limited":
                        delay = self.limiter.rate_limited(exc.retry_after, retries)
                    else:
                        delay = self.limiter.transient(exc.retry_after, retries)
                        await asyncio.sleep(delay)
                    retries += 1
                    log.info("retry %d of %s/%d in %.2fs: %s", retries, call.record_id, call.replication, delay, exc)
                    continue
                if no_answer:
                    self.unreachable.add((call.record_id, call.replication))
                return CallResult(**base, status="error", error=str(exc), retries=retries, adaptations=notes)
            except Exception as exc:  # noqa: BLE001 - a bug or an unexpected library error fails one call, not the run
                message = scrub(f"{type(exc).__name__}: {exc}", self.api_key)
                return CallResult(**base, status="error", error=message, retries=retries, adaptations=notes)
            latency_ms = (time.monotonic() - started) * 1000.0
            result = self._ok(base, completion, latency_ms, retries, notes)
            if key is not None:
                self.cache.put(key, _cached_fields(result))
            return result

    @staticmethod
    def _ok(base: dict, completion: Completion, latency_ms: float, retries: int, notes: list[str]) -> CallResult:
        return CallResult(
            **base,
            text=completion.text,
            tool_calls=completion.tool_calls,
            finish_reason=completion.finish_reason,
            prompt_tokens=completion.prompt_tokens,
            completion_tokens=completion.completion_tokens,
            latency_ms=latency_ms,
            retries=retries,
            adaptations=notes,
        )


# What a cache hit restores: the answer and how it was obtained, not the per-call bookkeeping.
CACHED_FIELDS = ("text", "tool_calls", "finish_reason", "prompt_tokens", "completion_tokens", "latency_ms", "adaptations")


def _cached_fields(result: CallResult) -> dict:
    return {name: getattr(result, name) for name in CACHED_FIELDS}


__all__ = [
    "CallResult",
    "Cancelled",
    "EndpointUnreachable",
    "InputError",
    "PlannedCall",
    "RunSummary",
    "execute",
    "execute_with_key",
    "plan",
]
