"""Find the API key of a run at call time, and keep it out of everything else.

The key comes from the environment variable named by ``RunConfig.api_key_env``
or, when ``keyring_service`` is set, from the system keyring (the optional
``keyring`` package). It is never stored in the config, the cache, the
results or a log line; ``scrub`` removes it from any text that leaves the
client (error messages may quote request headers, and a server may echo the
key back in a completion or an error body).

A server can echo the key in another spelling, so ``scrub`` removes every form
in which it can travel inside text: as is, URL-encoded (upper- and lower-case
hex, ``+`` or ``%20`` for spaces), JSON-escaped (ASCII or not), and base64
(standard and URL-safe alphabets, at each of the three alignments it can have
inside a longer encoded text such as ``Basic base64(user:key)``).
"""

from __future__ import annotations

import base64
import functools
import json
import os
import re
from typing import Any
from urllib.parse import quote, quote_plus, urlsplit

from reviewer.errors import ReviewerError
from reviewer.rerun.config import RunConfig

# Local servers (llama.cpp, vLLM without --api-key, the test server) accept any
# key, but the openai client refuses to start without one.
NO_KEY = "no-key-configured"


class MissingKey(ReviewerError):
    """The configured key source has no key."""


def resolve_api_key(config: RunConfig) -> str:
    """The key for ``config``: keyring first when configured, else the environment variable.

    With neither source configured, returns a placeholder (for local servers
    that need no key). Raises MissingKey naming the source, never a value.
    """
    if config.keyring_service:
        try:
            import keyring  # optional dependency
        except ImportError:
            raise MissingKey(
                f"keyring_service {config.keyring_service!r} is set but the 'keyring' package is not installed"
            ) from None
        username = config.keyring_username or urlsplit(config.base_url).hostname or config.base_url
        try:
            key = keyring.get_password(config.keyring_service, username)
        except Exception as exc:  # noqa: BLE001 - keyring backends raise their own types
            raise MissingKey(f"the system keyring could not be read ({type(exc).__name__})") from None
        if not key:
            raise MissingKey(f"no key in the keyring for service {config.keyring_service!r}, user {username!r}")
        return key
    if config.api_key_env:
        key = os.environ.get(config.api_key_env)
        if key:
            return key
        raise MissingKey(f"environment variable {config.api_key_env} is not set (it should hold the API key)")
    return NO_KEY


MASK = "***"
_MIN_BASE64_CORE = 8  # shorter base64 fragments could match ordinary text


def _base64_cores(raw: bytes) -> set[str]:
    """The part of base64(prefix + raw + suffix) decided by ``raw`` alone, for prefix lengths 0-2.

    A base64 character encodes 6 bits; the characters whose bits all come from ``raw``
    are the same whatever surrounds it, so they are what can be found and masked.
    """
    cores = set()
    for k in range(3):
        encoded = base64.b64encode(b"\0" * k + raw + b"\0\0\0").decode("ascii")
        start = -(-8 * k // 6)  # first character starting inside raw
        end = (8 * (k + len(raw))) // 6  # characters ending inside raw
        core = encoded[start:end]
        if len(core) >= _MIN_BASE64_CORE:
            cores.add(core)
            cores.add(core.replace("+", "-").replace("/", "_"))  # URL-safe alphabet
    full = base64.b64encode(raw).decode("ascii")
    cores.update({full, full.rstrip("="), base64.urlsafe_b64encode(raw).decode("ascii")})
    return cores


@functools.lru_cache(maxsize=8)
def secret_forms(secret: str) -> tuple[str, ...]:
    """Every spelling of ``secret`` that ``scrub`` removes, longest first."""
    raw = secret.encode("utf-8")
    forms = {secret, quote(secret, safe=""), quote_plus(secret, safe=""), quote(secret)}
    forms |= {re.sub(r"%[0-9A-F]{2}", lambda m: m.group().lower(), f) for f in list(forms)}
    forms |= {json.dumps(secret)[1:-1], json.dumps(secret, ensure_ascii=False)[1:-1]}
    forms |= {json.dumps(f)[1:-1] for f in list(forms)}  # escaped twice (JSON inside a JSON string)
    forms |= _base64_cores(raw)
    return tuple(sorted((f for f in forms if f), key=len, reverse=True))


def scrub(text: str, secret: str | None) -> str:
    """``text`` with every form of ``secret`` (see the module docstring) replaced by ``***``."""
    if not text or not secret or secret == NO_KEY or not isinstance(text, str):
        return text
    for form in secret_forms(secret):
        if form in text:
            text = text.replace(form, MASK)
    return text


def scrub_value(value: Any, secret: str | None) -> Any:
    """``value`` (a JSON-like structure) with ``scrub`` applied to every string in it, keys included."""
    if not secret or secret == NO_KEY:
        return value
    if isinstance(value, str):
        return scrub(value, secret)
    if isinstance(value, dict):
        return {scrub_value(k, secret): scrub_value(v, secret) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [scrub_value(v, secret) for v in value]
    return value
