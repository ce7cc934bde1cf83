"""A private on-disk cache of successful completions, so an identical rerun sends nothing.

Built on diskcache, used safely (shared/NOTES.md, CVE-2025-69872: diskcache
unpickles values, so whoever can write the directory can run code): keys and
values are plain strings (values are JSON text, stored by diskcache as text,
never pickled), the directory is created 0700 and refused when others can
write it, and it lives in the user's own cache directory by default.

The key is the sha256 of everything that decides the answer: base URL,
model, messages, tools, tool_choice, response_format, every generation
parameter and the replication index (replications are meant to be separate
samples). The API key is not part of it. Errors are never stored.
"""

from __future__ import annotations

import hashlib
import json
import os
import stat
from pathlib import Path
from typing import Any, Self

import diskcache
import platformdirs
from diskcache.core import MODE_PICKLE

from reviewer.errors import ReviewerError


def default_cache_dir() -> Path:
    return Path(platformdirs.user_cache_dir("reviewer")) / "rerun"


def cache_key(base_url: str, model: str, wire: dict, params: dict, replication: int) -> str:
    """The content address of one call (see the module docstring for what goes in)."""
    material = {
        "base_url": base_url.rstrip("/"),
        "model": model,
        "request": wire,
        "params": params,
        "replication": replication,
    }
    blob = json.dumps(material, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()


class UnsafeCacheDir(ReviewerError):
    """The cache directory is writable by other users (code could be planted through it)."""


def _private_dir(path: Path) -> Path:
    path.mkdir(parents=True, exist_ok=True, mode=0o700)
    info = path.stat()
    if hasattr(os, "getuid") and info.st_uid != os.getuid():
        raise UnsafeCacheDir(f"{path}: the rerun cache directory belongs to another user; choose another cache_dir")
    if info.st_mode & (stat.S_IWGRP | stat.S_IWOTH | stat.S_IRWXO | stat.S_IRWXG):
        # Ours, so tighten it rather than fail: nothing of value is lost.
        os.chmod(path, 0o700)
    return path


class NoPickleDisk(diskcache.Disk):
    """diskcache storage that never unpickles: a pickled value (which we never write) reads as missing."""

    def fetch(self, mode, filename, value, read):
        if mode == MODE_PICKLE:
            return None
        return super().fetch(mode, filename, value, read)


class ResponseCache:
    """``get``/``put`` JSON-able dicts by ``cache_key``. Thread- and process-safe (SQLite)."""

    def __init__(self, directory: str | Path | None = None):
        self.directory = _private_dir(Path(directory) if directory else default_cache_dir())
        self._cache = diskcache.Cache(str(self.directory), disk=NoPickleDisk)

    def get(self, key: str) -> dict[str, Any] | None:
        value = self._cache.get(key)
        if not isinstance(value, str):  # only our JSON text counts; anything else is ignored
            return None
        try:
            data = json.loads(value)
        except json.JSONDecodeError:
            return None
        return data if isinstance(data, dict) else None

    def put(self, key: str, value: dict[str, Any]) -> None:
        self._cache.set(key, json.dumps(value, ensure_ascii=False))

    def __len__(self) -> int:
        return len(self._cache)

    def close(self) -> None:
        self._cache.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc) -> None:
        self.close()
