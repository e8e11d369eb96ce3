"""JSON Schema validators as Osiris builds them: `pattern` on RE2 (ADR 0085), no `$ref` fetched (ADR 0086)."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from functools import lru_cache
from typing import TYPE_CHECKING

from osiris.oml.values import Config
from osiris.registry.patterns import search

if TYPE_CHECKING:
    from jsonschema import Draft202012Validator
    from jsonschema.exceptions import ValidationError
    from referencing.jsonschema import Schema  # a subschema: a mapping or a boolean


def compile_schema(schema: Config) -> Draft202012Validator:
    """A Draft 2020-12 validator that also checks `format` (uri, email, date, ...), runs `pattern` and
    `patternProperties` on RE2 (ADR 0085) and never fetches a `$ref` (ADR 0086)."""
    from osiris.registry.formats import format_checker
    from osiris.registry.refs import no_retrieval

    return validator_class()(schema, format_checker=format_checker(), registry=no_retrieval())


@lru_cache(maxsize=1)
def validator_class() -> type[Draft202012Validator]:
    """Draft 2020-12 with the keywords that match patterns replaced by RE2 versions."""
    from jsonschema import Draft202012Validator, validators

    # jsonschema documents `extend` as returning a validator class of the base's kind; its stubs leave it untyped
    extended: type[Draft202012Validator] = validators.extend(Draft202012Validator, {  # type: ignore[no-untyped-call]
        "pattern": _pattern, "patternProperties": _pattern_properties, "additionalProperties": _additional_properties,
    })
    return extended


def _pattern(validator: Draft202012Validator, pattern: str, instance: object, schema: Config) -> Iterator[ValidationError]:
    from jsonschema.exceptions import ValidationError

    if isinstance(instance, str) and validator.is_type(instance, "string") and not search(pattern, instance):
        yield ValidationError(f"{instance!r} does not match {pattern!r}")


def _pattern_properties(validator: Draft202012Validator, patterns: Mapping[str, Schema], instance: object,
                        schema: Config) -> Iterator[ValidationError]:
    if not isinstance(instance, Mapping) or not validator.is_type(instance, "object"):
        return
    for pattern, subschema in patterns.items():
        for key, value in instance.items():
            if search(pattern, key):
                yield from validator.descend(value, subschema, path=key, schema_path=pattern)


def _additional_properties(validator: Draft202012Validator, allowed: object, instance: object,
                           schema: Config) -> Iterator[ValidationError]:
    """jsonschema's own keyword, with the patternProperties test on RE2."""
    from jsonschema.exceptions import ValidationError

    if not isinstance(instance, Mapping) or not validator.is_type(instance, "object"):
        return
    properties = schema.get("properties") or {}
    patterns = schema.get("patternProperties") or {}
    extras = [key for key in instance if not (isinstance(properties, Mapping) and key in properties)
              and not any(search(pattern, key) for pattern in (patterns if isinstance(patterns, Mapping) else {}))]
    if isinstance(allowed, Mapping) and validator.is_type(allowed, "object"):
        for extra in extras:
            yield from validator.descend(instance[extra], allowed, path=extra)
    elif not allowed and extras:
        listed = ", ".join(repr(extra) for extra in sorted(extras, key=str))
        yield ValidationError(f"Additional properties are not allowed ({listed} {'was' if len(extras) == 1 else 'were'} "
                              "unexpected)")
