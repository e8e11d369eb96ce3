"""Safe coercions (docs/validate.md), applied before tier 3 reports a type error; each becomes an OML315 warning.

"5" -> 5, "3.5" -> 3.5, "true" -> true, 5.0 -> 5, a scalar into a one-item list, an enum value in the
wrong case, and a known alias of a field name (llmHints.inputAliases) renamed to the field.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass

from osiris.extract.scalars import fits
from osiris.oml.values import Config, MutableConfig, Value
from osiris.registry import ComponentSpec

_INT = re.compile(r"^[+-]?\d{1,20}$")  # longer ones cannot fit in 64 bits (nor in Python's int() limit)
_FLOAT = re.compile(r"^[+-]?(\d+\.\d*|\.\d+|\d+)([eE][+-]?\d+)?$")


class _NoValue:
    """No coercion applies (None is a value, so it cannot say so)."""


_NO_VALUE = _NoValue()


@dataclass(frozen=True)
class Rename:
    """An alias key renamed to its field: `old` -> `new`."""

    old: str
    new: str
    message: str


def rename_aliases(config: MutableConfig, spec: ComponentSpec) -> tuple[MutableConfig, list[Rename]]:
    """Rename alias keys to their field (file_path -> path), unless the field is already set."""
    aliases = spec.aliases
    renamed: MutableConfig = {}
    done: list[Rename] = []
    for key, value in config.items():
        field = aliases.get(key) if key not in spec.properties else None
        if field and field not in config and field not in renamed:
            renamed[field] = value
            done.append(Rename(key, field, f"'{key}' is an alias of '{field}'; read as {field}"))
        else:
            renamed[key] = value
    return renamed, done


def coerce_value(value: Value, schema: Config) -> Value:
    """The value after one safe coercion towards `schema`, or the value itself if none applies."""
    expected = schema.get("type")
    if expected is None or _has_type(value, expected):
        return _enum_case(value, schema)
    coerced = _to_type(value, expected, schema)
    return value if isinstance(coerced, _NoValue) else coerced


def _to_type(value: Value, expected: Value, schema: Config) -> Value | _NoValue:
    types = expected if isinstance(expected, list) else [expected]
    for kind in types:
        if kind == "integer":
            if isinstance(value, str) and _INT.match(value.strip()) and fits(int(value.strip())):
                return int(value.strip())
            if isinstance(value, float) and value.is_integer():
                return int(value)
        elif kind == "number" and isinstance(value, str) and _FLOAT.match(value.strip()):
            number: int | float = int(value.strip()) if _INT.match(value.strip()) else float(value.strip())
            if fits(number):
                return number
        elif kind == "boolean" and isinstance(value, str) and value.strip().lower() in ("true", "false"):
            return value.strip().lower() == "true"
        elif kind == "string" and isinstance(value, (int, float)) and not isinstance(value, bool):
            continue  # a number where text is expected is the author's mistake to see, not ours to guess
        elif kind == "array" and not isinstance(value, (list, dict)) and value is not None:
            items = schema.get("items")
            item = coerce_value(value, items if isinstance(items, Mapping) else {})
            return [item]
    return _NO_VALUE


def _enum_case(value: Value, schema: Config) -> Value:
    allowed = schema.get("enum")
    if not isinstance(value, str) or not isinstance(allowed, list) or not allowed or value in allowed:
        return value
    matches = [a for a in allowed if isinstance(a, str) and a.lower() == value.lower()]
    return matches[0] if len(matches) == 1 else value


def _has_type(value: Value, expected: Value) -> bool:
    types = expected if isinstance(expected, list) else [expected]
    return any(_is(value, kind) if isinstance(kind, str) else True for kind in types)  # an unknown type: no coercion


def _is(value: Value, kind: str) -> bool:
    if kind == "integer":
        return isinstance(value, int) and not isinstance(value, bool)
    if kind == "number":
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    return {
        "string": isinstance(value, str),
        "boolean": isinstance(value, bool),
        "array": isinstance(value, list),
        "object": isinstance(value, dict),
        "null": value is None,
    }.get(kind, True)


def describe(value: object) -> str:
    return f"'{value}'" if isinstance(value, str) else repr(value).replace("True", "true").replace("False", "false")
