"""JSON Schema validation shared by the scorers, with errors that name a JSON path.

``jsonschema.validate`` (what the benchmarks call) checks the schema, builds
a validator for the schema's declared draft (the latest when none is
declared) and raises the best-matching error. ``check`` does the same, caches
the validator per schema text (schemas repeat across records), and returns
the failure instead of raising, with the path of the offending node so the
UI can mark it. Formats are not asserted, as in ``jsonschema.validate``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import jsonschema
from jsonschema.exceptions import SchemaError, best_match

from reviewer.errors import json_path


@dataclass(frozen=True)
class SchemaFailure:
    """Why an instance does not validate: the message and the JSON path of the failing node.

    ``path`` is "$" for the root; ``schema_path`` names the failing keyword
    (e.g. "properties/age/type"); ``bad_schema`` is True when the schema
    itself is invalid (then nothing validates against it).
    """

    message: str
    path: str
    schema_path: str = ""
    bad_schema: bool = False

    def describe(self) -> str:
        if self.bad_schema:
            return f"the schema itself is invalid: {self.message}"
        return f"at {self.path}: {self.message}"


# Checking a schema against the 2020-12 metaschema costs ~5 ms; a benchmark has
# hundreds of distinct schemas scored again for every run, so remember them all.
@lru_cache(maxsize=8192)
def _validator_for_text(schema_text: str):
    try:
        schema = json.loads(schema_text)
    except ValueError as exc:
        return SchemaFailure(f"the schema text is not JSON ({exc})", "$", bad_schema=True)
    return _build(schema)


def _build(schema: Any):
    cls = jsonschema.validators.validator_for(schema)
    try:
        cls.check_schema(schema)
    except SchemaError as exc:
        return SchemaFailure(exc.message, "$", "/".join(map(str, exc.schema_path)), bad_schema=True)
    return cls(schema)


def validator(schema: str | dict | bool):
    """A validator for the schema (text or parsed), or a SchemaFailure when the schema is invalid
    (schema text that is not JSON included)."""
    if isinstance(schema, str):
        return _validator_for_text(schema)
    return _build(schema)


def check(instance: Any, schema: str | dict | bool) -> SchemaFailure | None:
    """None when ``instance`` is valid against ``schema``, else the best-matching failure."""
    v = validator(schema)
    if isinstance(v, SchemaFailure):
        return v
    error = best_match(v.iter_errors(instance))
    if error is None:
        return None
    return SchemaFailure(error.message, json_path(error.absolute_path),
                         "/".join(map(str, error.absolute_schema_path)))
