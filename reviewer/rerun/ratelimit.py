"""Shared backoff for the workers of one run: a 429 pauses everyone, not just the caller.

Servers rate-limit per key, so when one request is told to wait, the others
would be refused too. ``RateLimiter`` keeps a "not before" time that every
worker awaits before sending; a 429 pushes it to now + retry-after (or an
exponential backoff when the server gives no retry-after).
"""

from __future__ import annotations

import asyncio
import random
import time

# Longer retry-after values are treated as a refusal to serve soon; like the openai
# client, fall back to our own backoff instead of stalling the run for an hour.
MAX_RETRY_AFTER = 120.0


def backoff_delay(attempt: int, base: float, cap: float, rng: random.Random | None = None) -> float:
    """Exponential backoff with jitter: ``base * 2**attempt`` capped, times a factor in [0.5, 1]."""
    rng = rng or random
    return min(cap, base * (2**attempt)) * (0.5 + rng.random() / 2)


class RateLimiter:
    def __init__(self, base: float, cap: float, clock=time.monotonic):
        self._base = base
        self._cap = cap
        self._clock = clock
        self._not_before = 0.0
        self.pauses = 0  # how many times a 429 paused the run

    async def wait_turn(self) -> None:
        """Return once the shared pause (if any) is over. Cancellable."""
        while True:
            delay = self._not_before - self._clock()
            if delay <= 0:
                return
            await asyncio.sleep(delay)

    def rate_limited(self, retry_after: float | None, attempt: int) -> float:
        """Pause every worker after a 429; returns the pause in seconds.

        ``retry_after`` wins when the server sent one (it knows its window);
        otherwise the backoff for ``attempt`` (0-based) applies.
        """
        delay = self._delay(retry_after, attempt)
        self._not_before = max(self._not_before, self._clock() + delay)
        self.pauses += 1
        return delay

    def transient(self, retry_after: float | None, attempt: int) -> float:
        """The wait before retrying one call after a 5xx or a dropped connection (not shared)."""
        return self._delay(retry_after, attempt)

    def _delay(self, retry_after: float | None, attempt: int) -> float:
        if retry_after is not None and retry_after <= MAX_RETRY_AFTER:
            return retry_after
        return backoff_delay(attempt, self._base, self._cap)
