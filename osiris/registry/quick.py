"""Configs that are plainly valid, proven without importing jsonschema (ADR 0169).

Importing jsonschema (with referencing, attrs and rpds) is about a quarter of `osiris validate` and of
a small `osiris run`. Most configs are valid, and their schemas use a few plain keywords. So a config
is first checked here, against the keywords whose Draft 2020-12 meaning is short enough to keep
exactly; `plainly_valid` answers True only when every keyword on the way is one of them and the
config satisfies it. Anything else (an error, a keyword not kept here such as `oneOf`, `$ref` or
`format`, a value of a type JSON has not) answers False, and the caller asks jsonschema, whose
errors are the ones reported. So this module can make a check faster, never change its verdict;
tests/test_registry_quick.py holds it to jsonschema on generated configs.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TypeAlias, TypeGuard

from osiris.registry.patterns import search

ANNOTATIONS = frozenset({"description", "default", "title", "examples", "$comment", "deprecated", "readOnly",
                         "writeOnly"})
_TYPES = {"null": lambda v: v is None, "boolean": lambda v: isinstance(v, bool),
          "integer": lambda v: _number(v) and (isinstance(v, int) or float(v).is_integer()),
          "number": lambda v: _number(v), "string": lambda v: isinstance(v, str),
          "array": lambda v: isinstance(v, list), "object": lambda v: isinstance(v, dict)}

_Check: TypeAlias = Callable[[object, object, Mapping[str, object]], bool]  # a keyword's test: (its value, instance, schema)


def plainly_valid(schema: object, instance: object) -> bool:
    """True when `instance` surely satisfies `schema` (Draft 2020-12); False when not, or not sure."""
    if schema is True or schema == {}:
        return _json(instance)
    if not isinstance(schema, Mapping):
        return False
    for keyword, value in schema.items():
        if keyword in ANNOTATIONS or keyword.startswith("x-"):
            continue
        check = _KEYWORDS.get(keyword)
        if check is None or not check(value, instance, schema):
            return False
    return _json(instance)


def _number(value: object) -> TypeGuard[int | float]:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _json(value: object) -> bool:
    """A value JSON has (what a YAML document gives after Osiris reads it), all the way down."""
    if value is None or isinstance(value, (str, bool, int, float)):
        return True
    if isinstance(value, list):
        return all(_json(item) for item in value)
    return isinstance(value, dict) and all(isinstance(key, str) and _json(item) for key, item in value.items())


def _type(wanted: object, instance: object, schema: Mapping[str, object]) -> bool:
    names = [wanted] if isinstance(wanted, str) else wanted
    return (isinstance(names, list) and all(isinstance(n, str) and n in _TYPES for n in names)
            and any(_TYPES[n](instance) for n in names if isinstance(n, str)))


def _enum(members: object, instance: object, schema: Mapping[str, object]) -> bool:
    scalar = (str, bool, int, float)
    if not isinstance(members, list) or not all(m is None or isinstance(m, scalar) for m in members):
        return False
    return any(_same(member, instance) for member in members)


def _same(member: object, instance: object) -> bool:
    """jsonschema's equality of a scalar: a boolean equals only a boolean, a text only a text, 1 equals 1.0."""
    if isinstance(member, bool) or isinstance(instance, bool):
        return isinstance(member, bool) and isinstance(instance, bool) and member == instance
    if isinstance(member, str) or isinstance(instance, str):
        return bool(member == instance)
    return (member is None and instance is None) or (_number(member) and _number(instance) and bool(member == instance))


def _bound(compare: Callable[[float, float], bool]) -> _Check:
    def check(limit: object, instance: object, schema: Mapping[str, object]) -> bool:
        return _number(limit) and (not _number(instance) or bool(compare(instance, limit)))
    return check


def _length(compare: Callable[[int, int], bool]) -> _Check:
    def check(limit: object, instance: object, schema: Mapping[str, object]) -> bool:
        return isinstance(limit, int) and (not isinstance(instance, str) or bool(compare(len(instance), limit)))
    return check


def _count(compare: Callable[[int, int], bool]) -> _Check:
    def check(limit: object, instance: object, schema: Mapping[str, object]) -> bool:
        return isinstance(limit, int) and (not isinstance(instance, list) or bool(compare(len(instance), limit)))
    return check


def _pattern(pattern: object, instance: object, schema: Mapping[str, object]) -> bool:
    return isinstance(pattern, str) and (not isinstance(instance, str) or search(pattern, instance))


def _properties(properties: object, instance: object, schema: Mapping[str, object]) -> bool:
    if not isinstance(properties, Mapping):
        return False
    return not isinstance(instance, dict) or all(
        plainly_valid(properties[key], value) for key, value in instance.items() if key in properties)


def _required(names: object, instance: object, schema: Mapping[str, object]) -> bool:
    return isinstance(names, list) and (not isinstance(instance, dict) or all(name in instance for name in names))


def _additional(allowed: object, instance: object, schema: Mapping[str, object]) -> bool:
    known = schema.get("properties", {})
    if "patternProperties" in schema or not isinstance(known, Mapping):
        return False
    if not isinstance(instance, dict):
        return True
    extras = [value for key, value in instance.items() if key not in known]
    if allowed is False:
        return not extras
    return all(plainly_valid(allowed, value) for value in extras)


def _items(items: object, instance: object, schema: Mapping[str, object]) -> bool:
    if "prefixItems" in schema or not (isinstance(items, Mapping) or items is True):
        return False
    return not isinstance(instance, list) or all(plainly_valid(items, item) for item in instance)


_KEYWORDS = {
    "type": _type, "enum": _enum, "minimum": _bound(lambda v, n: v >= n), "maximum": _bound(lambda v, n: v <= n),
    "exclusiveMinimum": _bound(lambda v, n: v > n), "exclusiveMaximum": _bound(lambda v, n: v < n),
    "minLength": _length(lambda v, n: v >= n), "maxLength": _length(lambda v, n: v <= n),
    "minItems": _count(lambda v, n: v >= n), "maxItems": _count(lambda v, n: v <= n), "pattern": _pattern,
    "properties": _properties, "required": _required, "additionalProperties": _additional, "items": _items,
}
