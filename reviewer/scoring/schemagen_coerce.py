"""SchemaBench's "automatic data type conversion" retry, faithful and fixed.

When an output fails its schema, SchemaBench converts values by walking the
schema and validates once more (paper 003; repo SyntaxParser/utils.py). The
faithful walk is reproduced with its side effects, which decide outcomes:

* **every property required**: an object is rebuilt from the schema's
  ``properties`` in schema order, reading ``obj[key]`` for each; the first
  property missing from the output raises KeyError (so an output lacking an
  optional property never gets converted, and the official error message is
  just the key, e.g. ``'email'``);
* **extra properties dropped**: keys not in ``properties`` vanish, so an
  output rejected for ``additionalProperties`` can pass after "conversion";
* **patternProperties** patterns are read as literal keys; ``maxProperties``
  raises NotImplementedError;
* **array items never converted** when ``items`` is one schema: iterating the
  schema dict yields its key strings, which are tried as sub-schemas; an
  array without ``items`` becomes ``[]``; a string given where an array is
  expected becomes its list of characters;
* **lossy numbers**: "number" tries ``int()`` first (3.7 -> 3, "3.5" -> 3.5),
  "integer" is ``int()`` (3.9 -> 3, "3.0" raises), "string" is ``str()``
  (None -> "None"); "boolean" accepts "true"/"false" in any case, else
  ``bool(value)`` for non-strings; "null" accepts "null" (any case), "" and "None";
* type lists (``["string", "null"]``) and ``$ref`` are left unconverted.

The fixed conversion walks the output instead: it converts only the
string spellings the benchmark describes ("3" -> 3, "true"/"false" -> bool,
"null"/"" -> null) where the schema asks for that type (type lists, local
``$ref``, any/one/allOf included), keeps missing and extra keys as they are,
and never truncates numbers.
"""

from __future__ import annotations

import re
from typing import Any


def faithful_coerce(obj: Any, schema: Any) -> Any:
    """The official conversion (exceptions propagate, as they make the record fail)."""
    if "type" in schema:  # on a str schema (see the items quirk) this is a substring test
        kind = schema["type"]  # ... and this raises TypeError, which callers catch
        if kind == "object":
            rebuilt = {}
            for group in ("properties", "patternProperties"):
                if group in schema:
                    for key in schema[group]:
                        rebuilt[key] = faithful_coerce(obj[key], schema[group][key])
            if "maxProperties" in schema:
                raise NotImplementedError("maxProperties")
            return rebuilt
        if kind == "array":
            return _faithful_array(obj, schema)
        if kind == "string":
            return str(obj)
        if kind == "number":
            try:
                return int(obj)
            except Exception:  # noqa: BLE001 - the original's bare except
                return float(obj)
        if kind == "integer":
            return int(obj)
        if kind == "boolean":
            if isinstance(obj, bool):
                return obj
            if isinstance(obj, str):
                if obj.lower() in ("true", "false"):
                    return obj.lower() == "true"
                raise ValueError(f"Invalid boolean value {obj}")
            return bool(obj)
        if kind == "null":
            if isinstance(obj, str):
                if obj.lower() == "null" or obj in ("", "None"):
                    return None
                raise ValueError(f"Invalid null value {obj}")
            return obj
        return obj
    if "allOf" in schema:
        for sub in schema["allOf"]:
            obj = faithful_coerce(obj, sub)
        return obj
    for key in ("anyOf", "oneOf"):
        if key in schema:
            for sub in schema[key]:
                try:
                    return faithful_coerce(obj, sub)
                except Exception:  # noqa: BLE001
                    pass
            return obj
    return obj


def _faithful_array(obj: Any, schema: dict) -> list:
    converted: list = []
    if "items" not in schema:
        return converted
    items = schema["items"]
    try:
        iter(items)  # true for a dict too: its keys become the "sub-schemas"
        for element in obj:
            for sub in items:
                try:
                    converted.append(faithful_coerce(element, sub))
                    break
                except Exception:  # noqa: BLE001
                    pass
            else:
                converted.append(element)
    except Exception:  # noqa: BLE001 - items not iterable (a bool schema) or obj not iterable
        for element in obj:
            converted.append(faithful_coerce(element, items))
    return converted


_INTEGER = re.compile(r"-?\d+")
_NUMBER = re.compile(r"-?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?")


def fixed_coerce(obj: Any, schema: Any, root: Any = None) -> Any:
    """Convert string spellings of numbers, booleans and null where the schema asks for them."""
    root = schema if root is None else root
    if not isinstance(schema, dict):
        return obj
    schema = _resolve(schema, root)
    for sub in schema.get("allOf", []):
        obj = fixed_coerce(obj, sub, root)
    for key in ("anyOf", "oneOf"):
        for sub in schema.get(key, []):
            converted = fixed_coerce(obj, sub, root)
            if converted != obj:  # the first branch that changes anything decides
                obj = converted
                break
    types = schema.get("type")
    types = [types] if isinstance(types, str) else list(types or [])
    if isinstance(obj, str):
        return _convert_string(obj, types)
    if isinstance(obj, dict):
        props = schema.get("properties", {})
        patterns = schema.get("patternProperties", {})
        out = {}
        for key, value in obj.items():
            sub = props.get(key)
            if sub is None:
                sub = next((s for p, s in patterns.items() if re.search(p, key)), None)
            if sub is None and isinstance(schema.get("additionalProperties"), dict):
                sub = schema["additionalProperties"]
            out[key] = fixed_coerce(value, sub, root) if sub is not None else value
        return out
    if isinstance(obj, list):
        items = schema.get("items")
        prefix = schema.get("prefixItems") or (items if isinstance(items, list) else [])
        rest = items if isinstance(items, dict) else None
        return [fixed_coerce(v, prefix[i] if i < len(prefix) else rest, root) for i, v in enumerate(obj)]
    return obj


def _convert_string(value: str, types: list[str]) -> Any:
    if "string" in types or not types:
        return value
    text = value.strip()
    if "integer" in types and _INTEGER.fullmatch(text):
        return int(text)
    if "number" in types and _NUMBER.fullmatch(text):
        number = float(text)
        return int(number) if number.is_integer() and "." not in text and "e" not in text.lower() else number
    if "boolean" in types and text.lower() in ("true", "false"):
        return text.lower() == "true"
    if "null" in types and text.lower() in ("null", ""):
        return None
    return value


def _resolve(schema: dict, root: Any) -> dict:
    """Follow a local "$ref" ("#/$defs/x"); other references are left as they are."""
    seen = 0
    while isinstance(schema, dict) and isinstance(schema.get("$ref"), str) and schema["$ref"].startswith("#") and seen < 32:
        target: Any = root
        for part in schema["$ref"][1:].split("/"):
            if not part:
                continue
            part = part.replace("~1", "/").replace("~0", "~")
            if isinstance(target, dict) and part in target:
                target = target[part]
            else:
                return schema
        schema = target if isinstance(target, dict) else schema
        seen += 1
    return schema
