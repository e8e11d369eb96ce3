"""Reading a parsed document (a pipeline, a session file, a catalog entry, an API body) without `Any`:
the value types of osiris.oml.values narrowed to what a reader expects, once, here.

A valid pipeline has a list of step mappings, each with a mapping `config`; a reader that meets
something else (a null, a scalar where a list belongs) gets none, as `value or []` and
`value or {}` gave before.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from osiris.oml.values import Config, Value


def object_of(value: Value) -> Config:
    """`value` when it is a mapping; an empty one when it is missing, null or anything else."""
    return value if isinstance(value, Mapping) else {}


def objects_in(value: Value) -> list[Config]:
    """The mappings of a list, in order; none when `value` is no list."""
    return [item for item in value if isinstance(item, Mapping)] if isinstance(value, list) else []


def items_of(value: Value) -> list[Value]:
    """The items of a list; none when `value` is no list."""
    return list(value) if isinstance(value, list) else []


def steps_of(pipeline: Config) -> list[Config]:
    """The pipeline's steps that are mappings, in order."""
    return objects_in(pipeline.get("steps"))


def config_of(step: Config) -> Config:
    """A step's `config` mapping, or an empty one."""
    return object_of(step.get("config"))
