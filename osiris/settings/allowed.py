"""Describe what a setting allows, read from the schema itself, for one-line error messages."""

from __future__ import annotations

import typing
from typing import Any

from pydantic import BaseModel
from pydantic.fields import FieldInfo

from osiris.settings.model import Settings


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
    return _describe_field(parent.model_fields[loc[-1]])


def _model_at(loc: list[str]) -> type[BaseModel] | None:
    model: type[BaseModel] = Settings
    for part in loc:
        field = model.model_fields.get(part)
        if field is None or not _is_model(field.annotation):
            return None
        model = field.annotation
    return model


def _is_model(annotation: Any) -> bool:
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
