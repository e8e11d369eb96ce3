"""Build the settings from plainly valid values without importing pydantic (ADR 0126).

Settings files hold a handful of plain values, and reading them must stay cheap: `osiris validate`
reads them on every call. This quick path knows the few kinds of value the schema uses (text,
whole numbers, numbers, true/false, one of some words, lists, sections, and maps of connections)
and their bounds. Whenever a value is anything else, or out of bounds, it returns None and pydantic
decides: it accepts what it can coerce and explains what it refuses (osiris.settings.explain).
A property test holds the two together: whatever this path accepts, pydantic builds the same.
"""

from __future__ import annotations

import dataclasses
import math
import types
import typing
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from osiris.settings.allowed import fields_of, is_section

if TYPE_CHECKING:
    from _typeshed import DataclassInstance

T = TypeVar("T", bound="DataclassInstance")
REFUSED = object()  # not plainly valid: let pydantic decide


def build_plain(section: type[T], values: object) -> T | None:
    """`section` built from `values` when every value is plainly valid; None otherwise."""
    if type(values) is not dict or not all(type(key) is str for key in values):
        return None
    known = fields_of(section)
    if any(key not in known for key in values):
        return None
    given: dict[str, object] = {}
    for name, setting in known.items():
        if name not in values:
            if setting.default is dataclasses.MISSING and setting.default_factory is dataclasses.MISSING:
                return None  # required
            continue
        value = _plain_value(setting.type, setting.metadata, values[name])
        if value is REFUSED:
            return None
        given[name] = value
    return section(**given)


def _plain_value(annotation: object, limits: Mapping[str, float], value: object) -> object:
    """`value` as the schema's type would hold it, or REFUSED."""
    if is_section(annotation):
        built = build_plain(annotation, value)
        return REFUSED if built is None else built
    origin, args = typing.get_origin(annotation), typing.get_args(annotation)
    if origin in (typing.Union, types.UnionType):  # `X | None`
        if value is None:
            return None
        (annotation,) = [arg for arg in args if arg is not type(None)]
        return _plain_value(annotation, limits, value)
    if origin is typing.Literal:
        return value if type(value) is str and value in args else REFUSED
    if origin is list:
        if type(value) is not list:
            return REFUSED
        items = [_plain_value(args[0], {}, item) for item in value]
        return REFUSED if any(item is REFUSED for item in items) else items
    if origin is dict:
        return _plain_map(args, value)
    return _plain_scalar(annotation, limits, value)


def _plain_scalar(annotation: object, limits: Mapping[str, float], value: object) -> object:
    if annotation is str:
        return value if type(value) is str and len(value) >= limits.get("min_length", 0) else REFUSED
    if annotation is bool:
        return value if type(value) is bool else REFUSED
    if annotation is int:
        return value if type(value) is int and _within(value, limits) else REFUSED
    if annotation is float:
        number = float(value) if isinstance(value, (int, float)) and type(value) in (int, float) and abs(value) < 1e300 \
            else math.nan  # a bool is an int, but not a number here
        return number if _within(number, limits) else REFUSED
    if annotation is Any:
        return value
    return REFUSED


def _plain_map(args: tuple[object, ...], value: object) -> object:
    if type(value) is not dict or not all(type(key) is str for key in value):
        return REFUSED
    items = {key: _plain_value(args[1], {}, item) for key, item in value.items()}
    return REFUSED if any(item is REFUSED for item in items.values()) else items


def _within(number: float, limits: Mapping[str, float]) -> bool:
    """Inside ge/gt/le; a float must be finite (a huge int is compared exactly, never converted)."""
    if isinstance(number, float) and not math.isfinite(number):
        return False
    return bool(number >= limits.get("ge", -math.inf) and number > limits.get("gt", -math.inf)
                and number <= limits.get("le", math.inf))
