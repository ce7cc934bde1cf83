"""reviewer's own run format: model outputs for any kind of item, one JSON object a line.

Benchmarks without a native prediction file (BFCL, schema generation, tool
selection) and reruns made in reviewer use it. Each line::

    {"id": "simple_3", "text": "<what the model said>",
     "replication": 0, "prediction": <optional JSON>, "status": "ok" | "error",
     "error": null, "tool_calls": [...], "prompt_tokens": 12, "completion_tokens": 40}

Only ``id`` and ``text`` are required. The first line may instead be a header
``{"run": {"name": ..., "model": ..., "setup": ...}}`` naming the run.
"""

from __future__ import annotations

import json
from itertools import chain
from pathlib import Path

from reviewer.errors import InputError
from reviewer.formats._jsonio import expect, iter_jsonl
from reviewer.formats.base import OutputRecord, ParsedRun, RunRecord
from reviewer.formats.registry import run_format
from reviewer.jobs import JobContext

KNOWN = {"id", "text", "replication", "prediction", "status", "error", "prompt_tokens", "completion_tokens"}


@run_format
class OutputsJsonl:
    name = "outputs-jsonl"
    label = "reviewer outputs (JSONL, any kind)"
    dataset_format = "*"

    def detect(self, path: Path) -> bool:
        if not (path.is_file() and path.suffix == ".jsonl"):
            return False
        with path.open(encoding="utf-8-sig", errors="replace") as fh:  # a bad byte further on is the reader's to report
            first = fh.readline()
        try:
            obj = json.loads(first)
        except ValueError:
            return False
        return isinstance(obj, dict) and ("run" in obj or {"id", "text"} <= obj.keys())

    def read(self, path: Path, ctx: JobContext) -> ParsedRun:
        lines = iter_jsonl(path)
        first = next(lines, None)
        header = {}
        if first is not None and isinstance(first[1], dict) and set(first[1]) == {"run"}:
            header = expect(first[1]["run"], dict, path, ["run"], f"line {first[0]}")
            first = None
        run = RunRecord(
            name=str(header.get("name") or path.stem), format=self.name, source=str(path),
            model=header.get("model"), setup=header.get("setup"),
            meta={k: v for k, v in header.items() if k not in ("name", "model", "setup")},
        )
        rest = chain([first], lines) if first is not None else lines
        return ParsedRun(run, (self._output(path, n, obj) for n, obj in rest))

    @staticmethod
    def _output(path: Path, line: int, obj) -> OutputRecord:
        where = f"line {line}"
        expect(obj, dict, path, [], where)
        if "id" not in obj:
            raise InputError(path, where, "missing \"id\"")
        text = obj.get("text")
        if text is not None:
            expect(text, str, path, ["text"], where)
        replication = expect(obj.get("replication", 0), int, path, ["replication"], where)
        status = obj.get("status", "ok")
        if status not in ("ok", "error"):
            raise InputError(path, f"{where}, $.status", f"expected \"ok\" or \"error\", got {status!r}")
        return OutputRecord(
            record_id=str(obj["id"]), text=text, raw=obj, prediction=obj.get("prediction"),
            replication=replication, status=status, error=obj.get("error"),
            extra={k: v for k, v in obj.items() if k not in KNOWN},
            prompt_tokens=obj.get("prompt_tokens"), completion_tokens=obj.get("completion_tokens"),
            source_line=line,
        )
