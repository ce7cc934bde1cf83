"""Prompt strategies per item kind; see ``base`` for the request and registry."""

from reviewer.rerun.prompts.base import (
    ChatRequest,
    RerunItem,
    build_request,
    strategies_for,
)

__all__ = ["ChatRequest", "RerunItem", "build_request", "strategies_for"]
