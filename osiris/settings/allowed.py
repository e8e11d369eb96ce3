"""Read the settings schema (osiris.settings.model): the type and bounds of each setting, and what
it allows in words, for one-line error messages, the env layer and the CLI's bounds."""

from __future__ import annotations

import dataclasses
import typing
from collections.abc import Mapping
from typing import TYPE_CHECKING, TypeGuard

from osiris.settings.model import Settings

if TYPE_CHECKING:
    from _typeshed import DataclassInstance

UNKNOWN = object()
MAX_ATTEMPTS = ["validation", "retry", "max_attempts"]


def is_section(annotation: object) -> TypeGuard[type[DataclassInstance]]:
    """A section of settings (a dataclass of the model), as opposed to a single value."""
    return isinstance(annotation, type) and dataclasses.is_dataclass(annotation)


def fields_of(section: type[DataclassInstance]) -> dict[str, dataclasses.Field[object]]:
    """A section's settings by name, in schema order."""
    return {item.name: item for item in dataclasses.fields(section)}


def known_keys_at(loc: list[str]) -> list[str]:
    """The keys allowed under the section `loc` (e.g. ["llm"] -> provider, model, ...)."""
    section = _section_at(loc)
    return list(fields_of(section)) if section is not None else []


def describe_allowed(loc: list[str]) -> str | None:
    """E.g. "a whole number from 0 to 5" for validation.retry.max_attempts; None if unknown."""
    if not loc:
        return None
    parent = _section_at(loc[:-1])
    setting = fields_of(parent).get(loc[-1]) if parent is not None else None
    if setting is None:
        return None
    annotation = setting.type
    if is_section(annotation):
        return f"a section of settings, with keys such as {', '.join(list(fields_of(annotation))[:3])}"
    if typing.get_origin(annotation) is dict:
        return "a mapping of names to settings"
    return _describe_value(annotation, setting.metadata)


def int_bounds(loc: list[str]) -> tuple[int, int]:
    """(lowest, highest) a whole-number setting allows, read from its metadata (ge/le): the one source
    of e.g. validation.retry.max_attempts's 0..5 for the CLI's help, `/retry-attempts` and the engine."""
    parent = _section_at(loc[:-1])
    setting = fields_of(parent).get(loc[-1]) if parent is not None else None
    limits = setting.metadata if setting is not None else {}
    if "ge" not in limits or "le" not in limits:
        raise KeyError(f"{'.'.join(loc)} has no ge/le bounds")
    return int(limits["ge"]), int(limits["le"])


def annotation_at(parts: list[str]) -> object:
    """The type of the setting at `parts`, looking through lists and maps (e.g. validation.rules.level
    is Literal['error', 'warning']); UNKNOWN when no setting is there."""
    annotation: object = Settings
    for part in parts:
        if typing.get_origin(annotation) is list:
            annotation = typing.get_args(annotation)[0]
        if is_section(annotation):
            setting = fields_of(annotation).get(part)
            if setting is None:
                return UNKNOWN
            annotation = setting.type
        elif typing.get_origin(annotation) is dict:
            annotation = typing.get_args(annotation)[1]
        else:
            return UNKNOWN
    return annotation


def _section_at(loc: list[str]) -> type[DataclassInstance] | None:
    annotation = annotation_at(loc)
    if typing.get_origin(annotation) is list:  # validation.rules -> Rule
        annotation = typing.get_args(annotation)[0]
    return annotation if is_section(annotation) else None


def _describe_value(annotation: object, limits: Mapping[str, float]) -> str | None:
    args = [a for a in typing.get_args(annotation) if a is not type(None)]
    optional = len(args) < len(typing.get_args(annotation))
    if typing.get_origin(annotation) is typing.Literal:
        return "one of: " + ", ".join(str(a) for a in args)
    if typing.get_origin(annotation) is list:
        return "a list"
    if annotation is bool:
        return "true or false"
    if annotation in (int, float) or (optional and args in ([int], [float])):
        kind = annotation if annotation in (int, float) else args[0]
        noun = "a whole number" if kind is int else "a number"
        return noun + _bounds(limits) + (" or null" if optional else "")
    if annotation is str or (optional and args == [str]):
        return "text" + (" or null" if optional else "")
    return None


def _bounds(limits: Mapping[str, float]) -> str:
    """E.g. " from 0 to 5", " greater than 0 and at most 3600", " of at least 1"."""
    ge, gt, le = limits.get("ge"), limits.get("gt"), limits.get("le")
    if ge is not None and le is not None:
        return f" from {ge} to {le}"
    if gt is not None and le is not None:
        return f" greater than {gt} and at most {le}"
    if ge is not None:
        return f" of at least {ge}"
    if gt is not None:
        return f" greater than {gt}"
    if le is not None:
        return f" of at most {le}"
    return ""
