"""Sandboxed execution of model-written Python (see runner.py for the layers)."""

from reviewer.sandbox.runner import Limits, SandboxResult, run_many, run_python

__all__ = ["Limits", "SandboxResult", "run_many", "run_python"]
