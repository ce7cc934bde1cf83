"""Rerun a model on benchmark items against any OpenAI-compatible endpoint.

Store-independent: the caller turns items into calls with ``plan``, runs
them with ``execute`` and saves each ``CallResult`` handed to its callback.

    config = RunConfig(base_url="http://127.0.0.1:8080/v1", model="m", strategy="nlt")
    calls = plan(items, config, done=already_done_pairs)
    summary = execute(calls, config, ctx, on_result=save)

Modules: ``config`` (RunConfig), ``prompts`` (strategies per item kind),
``engine`` (plan/execute), ``client`` (one call, errors sorted), ``ratelimit``,
``cache`` (private diskcache of successes), ``secrets`` (the API key).
"""

from reviewer.rerun.cache import ResponseCache, default_cache_dir
from reviewer.rerun.config import RunConfig
from reviewer.rerun.engine import CallResult, PlannedCall, RunSummary, execute, plan
from reviewer.rerun.prompts import ChatRequest, RerunItem, build_request, strategies_for
from reviewer.rerun.secrets import MissingKey, resolve_api_key

__all__ = [
    "CallResult",
    "ChatRequest",
    "MissingKey",
    "PlannedCall",
    "RerunItem",
    "ResponseCache",
    "RunConfig",
    "RunSummary",
    "build_request",
    "default_cache_dir",
    "execute",
    "plan",
    "resolve_api_key",
    "strategies_for",
]
