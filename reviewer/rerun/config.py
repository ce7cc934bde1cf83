"""What a rerun sends where: the endpoint, the model, generation and run parameters.

A ``RunConfig`` never holds the API key, only where to find it (an
environment variable name or a keyring service), so ``to_dict``/``to_json``
and ``repr`` are safe to store, log and show. ``reviewer.rerun.secrets``
resolves the key when the run starts.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field, fields
from typing import Any

from reviewer.errors import InputError


@dataclass
class RunConfig:
    base_url: str  # e.g. "http://127.0.0.1:8080/v1"
    model: str
    api_key_env: str | None = None  # name of the variable holding the key, never the key; None: no key
    keyring_service: str | None = None  # used when set (needs the optional `keyring` package)
    keyring_username: str | None = None  # defaults to the host of base_url
    temperature: float | None = 0.0
    max_tokens: int | None = 1000
    seed: int | None = None
    concurrency: int = 4
    timeout: float = 120.0  # seconds for one HTTP request
    retries: int = 3  # extra attempts after a transient failure (429, 5xx, dropped connection)
    backoff: float = 0.5  # first wait between attempts without a retry-after, doubling
    max_backoff: float = 30.0
    replications: int = 1
    strategy: str = "default"
    strategy_options: dict = field(default_factory=dict)
    cache: bool = True
    cache_dir: str | None = None  # None: the per-user cache directory

    def __post_init__(self) -> None:
        problems = []
        if not self.base_url or not self.base_url.startswith(("http://", "https://")):
            problems.append(f"base_url {self.base_url!r} must start with http:// or https://")
        if not self.model:
            problems.append("model is empty")
        if self.concurrency < 1:
            problems.append(f"concurrency {self.concurrency} must be at least 1")
        if self.replications < 1:
            problems.append(f"replications {self.replications} must be at least 1")
        if self.retries < 0:
            problems.append(f"retries {self.retries} must be 0 or more")
        if self.timeout <= 0:
            problems.append(f"timeout {self.timeout} must be positive")
        if problems:
            raise InputError(None, "run configuration", "; ".join(problems))

    def generation_params(self) -> dict[str, Any]:
        """The sampling parameters sent with every request (None values are left out)."""
        params = {"temperature": self.temperature, "max_tokens": self.max_tokens, "seed": self.seed}
        return {k: v for k, v in params.items() if v is not None}

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), sort_keys=True)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> RunConfig:
        known = {f.name for f in fields(cls)}
        unknown = set(data) - known
        if unknown:
            raise InputError(None, "run configuration", f"unknown field(s): {', '.join(sorted(unknown))}")
        return cls(**data)

    @classmethod
    def from_json(cls, text: str) -> RunConfig:
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise InputError(None, f"run configuration, line {exc.lineno}", f"invalid JSON: {exc.msg}") from None
        if not isinstance(data, dict):
            raise InputError(None, "run configuration", "must be a JSON object")
        return cls.from_dict(data)
