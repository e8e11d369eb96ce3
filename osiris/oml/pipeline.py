"""A validated pipeline as typed objects: what the validator hands an engine (docs/architecture.md,
"Typed pipelines").

    report = validator.validate(text)
    if report.typed_pipeline is not None:
        for step in report.typed_pipeline.in_run_order():
            step.id, step.component, step.mode, step.needs, step.config.merged(resolved)

Built only for a valid pipeline, so every field holds what docs/oml.md promises: ids and components
are strings, a mode is one of `read`, `write`, `transform`, `needs` are the ids the step depends on
(`osiris.oml.step_graph`: its `needs`, then its `inputs`, or the step before it), and `config` is the
step's effective config (`osiris.oml.config`), parameters written in.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Literal

from osiris.oml.checks import Check, read_checks
from osiris.oml.config import StepConfig
from osiris.oml.step_graph import run_order, step_dependencies
from osiris.oml.narrow import config_of
from osiris.oml.values import Config, Value

Mode = Literal["read", "write", "transform"]
MODES: tuple[Mode, ...] = ("read", "write", "transform")


@dataclass(frozen=True)
class Step:
    """One step of a valid pipeline: who it is, what runs it, what it depends on, what it runs with."""

    id: str
    component: str
    mode: Mode
    config: StepConfig
    needs: tuple[str, ...] = ()  # the ids it depends on, each once, in the order written
    checks: tuple[Check, ...] = ()  # its checks on data (docs/run-again.md)
    document: Config = field(default_factory=dict)  # the step's mapping as parsed, for what is not typed yet


@dataclass(frozen=True)
class Pipeline:
    """A valid pipeline: its name and its steps in the order written."""

    name: str
    steps: tuple[Step, ...]
    document: Config = field(default_factory=dict)  # the whole document as parsed (after safe coercions)

    def step(self, step_id: str) -> Step:
        """The step with this id. Raises KeyError for an id the pipeline does not have."""
        for step in self.steps:
            if step.id == step_id:
                return step
        raise KeyError(step_id)

    def in_run_order(self) -> list[Step]:
        """The steps so that each comes after those it needs (`osiris.oml.step_graph.run_order`)."""
        return [self.step(step_id) for step_id in run_order([s.document for s in self.steps])]


def typed_pipeline(document: Config, step_configs: Mapping[str, StepConfig]) -> Pipeline | None:
    """The typed form of a parsed pipeline that passed validation; None when its shape does not allow
    one (the validator has then reported why, so a caller only builds this for a valid report)."""
    name = document.get("name")
    found = document.get("steps")
    if not isinstance(name, str) or not isinstance(found, Sequence) or isinstance(found, str):
        return None
    raw = list(found)
    steps: list[Step] = []
    for index, item in enumerate(raw):
        step = _typed_step(raw, index, item, step_configs)
        if step is None:
            return None
        steps.append(step)
    return Pipeline(name, tuple(steps), document)


def _typed_step(raw: Sequence[Value], index: int, item: Value,
                step_configs: Mapping[str, StepConfig]) -> Step | None:
    if not isinstance(item, Mapping):
        return None
    step_id, component, mode = item.get("id"), item.get("component"), item.get("mode")
    if not (isinstance(step_id, str) and isinstance(component, str) and mode in MODES):
        return None
    checks, mistakes = read_checks(item.get("checks"))
    if mistakes:
        return None
    config = step_configs.get(step_id) or StepConfig(config_of(item))
    return Step(step_id, component, _mode(mode), config, tuple(step_dependencies(raw, index)), tuple(checks), item)


def _mode(mode: object) -> Mode:
    """The mode as its literal type (`mode in MODES` was checked by the caller)."""
    for known in MODES:
        if mode == known:
            return known
    raise ValueError(f"not an OML mode: {mode!r}")
