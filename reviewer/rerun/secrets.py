"""Find the API key of a run at call time, and keep it out of everything else.

The key comes from the environment variable named by ``RunConfig.api_key_env``
or, when ``keyring_service`` is set, from the system keyring (the optional
``keyring`` package). It is never stored in the config, the cache, the
results or a log line; ``scrub`` removes it from any text that leaves the
client (error messages may quote request headers).
"""

from __future__ import annotations

import os
from urllib.parse import urlsplit

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


def scrub(text: str, secret: str | None) -> str:
    """``text`` with every occurrence of ``secret`` replaced by ``***``."""
    if not text or not secret or secret == NO_KEY:
        return text
    return text.replace(secret, "***")
