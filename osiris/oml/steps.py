"""A parsed pipeline's steps and their configs, read as the value types (osiris.oml.values).

A validated pipeline has a list of step mappings, each with a mapping `config`; these read them
without `Any`, and read a malformed document (a step that is not a mapping, no `config`) as having
none, as `pipeline.get("steps") or []` and `step.get("config") or {}` did.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from osiris.oml.values import Config


def steps_of(pipeline: Config) -> list[Config]:
    """The pipeline's steps that are mappings, in order."""
    steps = pipeline.get("steps")
    if not isinstance(steps, list):
        return []
    return [step for step in steps if isinstance(step, Mapping)]


def config_of(step: Config) -> Config:
    """A step's `config` mapping, or an empty one."""
    config = step.get("config")
    return config if isinstance(config, Mapping) else {}
