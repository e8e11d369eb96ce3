"""Describe what a setting allows, read from the schema itself, for one-line error messages."""

from __future__ import annotations

import typing
from typing import Any, TypeGuard

from pydantic import BaseModel
from pydantic.fields import FieldInfo

from osiris.settings.model import Settings

UNKNOWN = object()


def known_keys_at(loc: list[str]) -> list[str]:
    """The keys allowed under the section `loc` (e.g. ["llm"] -> provider, model, ...)."""
    model = _model_at(loc)
    return list(model.model_fields) if model is not None else []


def describe_allowed(loc: list[str]) -> str | None:
    """E.g. "a whole number from 0 to 5" for validation.retry.max_attempts; None if unknown."""
    if not loc:
        return None
    parent = _model_at(loc[:-1])
    if parent is None or loc[-1] not in parent.model_fields:
        return None
    field = parent.model_fields[loc[-1]]
    if is_model(field.annotation):
        return f"a section of settings, with keys such as {', '.join(list(field.annotation.model_fields)[:3])}"
    if typing.get_origin(field.annotation) is dict:
        return "a mapping of names to settings"
    return _describe_field(field)


def int_bounds(loc: list[str]) -> tuple[int, int]:
    """(lowest, highest) a whole-number setting allows, read from its Field (ge/le): the one source
    of e.g. validation.retry.max_attempts's 0..5 for the CLI's help, `/retry-attempts` and the engine."""
    parent = _model_at(loc[:-1])
    field = parent.model_fields[loc[-1]] if parent is not None and loc[-1] in parent.model_fields else None
    limits = {type(item).__name__: item for item in field.metadata} if field is not None else {}
    if "Ge" not in limits or "Le" not in limits:
        raise KeyError(f"{'.'.join(loc)} has no ge/le bounds")
    return int(limits["Ge"].ge), int(limits["Le"].le)


MAX_ATTEMPTS = ["validation", "retry", "max_attempts"]


def _model_at(loc: list[str]) -> type[BaseModel] | None:
    annotation = annotation_at(loc)
    if typing.get_origin(annotation) is list:  # validation.rules -> Rule
        annotation = typing.get_args(annotation)[0]
    return annotation if is_model(annotation) else None


def annotation_at(parts: list[str]) -> Any:
    """The type of the setting at `parts`, looking through lists and maps (e.g. validation.rules.level
    is Literal['error', 'warning']); UNKNOWN when no setting is there."""
    annotation: Any = Settings
    for part in parts:
        if typing.get_origin(annotation) is list:
            annotation = typing.get_args(annotation)[0]
        if is_model(annotation):
            field = annotation.model_fields.get(part)
            if field is None:
                return UNKNOWN
            annotation = field.annotation
        elif typing.get_origin(annotation) is dict:
            annotation = typing.get_args(annotation)[1]
        else:
            return UNKNOWN
    return annotation


def is_model(annotation: Any) -> TypeGuard[type[BaseModel]]:
    return isinstance(annotation, type) and issubclass(annotation, BaseModel)


def _describe_field(field: FieldInfo) -> str | None:
    annotation = field.annotation
    origin = typing.get_origin(annotation)
    args = [a for a in typing.get_args(annotation) if a is not type(None)]
    optional = len(args) < len(typing.get_args(annotation))
    if origin is typing.Literal:
        return "one of: " + ", ".join(str(a) for a in args)
    if origin is list:
        return "a list"
    if annotation is bool:
        return "true or false"
    if annotation in (int, float):
        noun = "a whole number" if annotation is int else "a number"
        return noun + _bounds(field)
    if annotation is str or (optional and args == [str]):
        return "text" + (" or null" if optional else "")
    return None


def _bounds(field: FieldInfo) -> str:
    """E.g. " from 0 to 5", " greater than 0 and at most 3600", " of at least 1"."""
    limits = {type(item).__name__: item for item in field.metadata}
    ge, gt, le = limits.get("Ge"), limits.get("Gt"), limits.get("Le")
    if ge is not None and le is not None:
        return f" from {ge.ge} to {le.le}"
    if gt is not None and le is not None:
        return f" greater than {gt.gt} and at most {le.le}"
    if ge is not None:
        return f" of at least {ge.ge}"
    if gt is not None:
        return f" greater than {gt.gt}"
    if le is not None:
        return f" of at most {le.le}"
    return ""
