"""JSON Schema validators as Osiris builds them: `pattern` on RE2 (ADR 0085), no `$ref` fetched (ADR 0086)."""

from __future__ import annotations

from collections.abc import Iterator
from functools import lru_cache
from typing import Any

from osiris.registry.patterns import search


def compile_schema(schema: dict[str, Any]) -> Any:
    """A Draft 2020-12 validator that also checks `format` (uri, email, date, ...), runs `pattern` and
    `patternProperties` on RE2 (ADR 0085) and never fetches a `$ref` (ADR 0086)."""
    from osiris.registry.formats import format_checker
    from osiris.registry.refs import no_retrieval

    return validator_class()(schema, format_checker=format_checker(), registry=no_retrieval())


@lru_cache(maxsize=1)
def validator_class() -> Any:
    """Draft 2020-12 with the keywords that match patterns replaced by RE2 versions."""
    from jsonschema import Draft202012Validator, validators

    return validators.extend(Draft202012Validator, {  # type: ignore[no-untyped-call]  # untyped in jsonschema
        "pattern": _pattern, "patternProperties": _pattern_properties, "additionalProperties": _additional_properties,
    })


def _pattern(validator: Any, pattern: str, instance: Any, schema: dict[str, Any]) -> Iterator[Any]:
    from jsonschema.exceptions import ValidationError

    if validator.is_type(instance, "string") and not search(pattern, instance):
        yield ValidationError(f"{instance!r} does not match {pattern!r}")


def _pattern_properties(validator: Any, patterns: dict[str, Any], instance: Any, schema: dict[str, Any]) -> Iterator[Any]:
    if not validator.is_type(instance, "object"):
        return
    for pattern, subschema in patterns.items():
        for key, value in instance.items():
            if search(pattern, key):
                yield from validator.descend(value, subschema, path=key, schema_path=pattern)


def _additional_properties(validator: Any, allowed: Any, instance: Any, schema: dict[str, Any]) -> Iterator[Any]:
    """jsonschema's own keyword, with the patternProperties test on RE2."""
    from jsonschema.exceptions import ValidationError

    if not validator.is_type(instance, "object"):
        return
    properties = schema.get("properties", {})
    patterns = schema.get("patternProperties", {})
    extras = [key for key in instance
              if key not in properties and not any(search(pattern, key) for pattern in patterns)]
    if validator.is_type(allowed, "object"):
        for extra in extras:
            yield from validator.descend(instance[extra], allowed, path=extra)
    elif not allowed and extras:
        listed = ", ".join(repr(extra) for extra in sorted(extras, key=str))
        yield ValidationError(f"Additional properties are not allowed ({listed} {'was' if len(extras) == 1 else 'were'} "
                              "unexpected)")
