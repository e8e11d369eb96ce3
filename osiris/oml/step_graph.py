"""The step graph of an OML pipeline: one rule for the validator, the runtime and any other engine
(ADR 0051, docs/oml.md "Dependencies and order").

- A step depends on the ids in its `needs`, then on the steps its `inputs` name: every value of the
  form `${<step id>.<word>}` (public Osiris writes `${extract-users.df}`; `${a.rows}` counts too).
- A step with neither key takes the step just before it when it is a write or a transform (public
  Osiris's linear chain); a read with neither depends on nothing. `needs: []` means no dependency.
- A write or transform step reads the rows of every step it depends on, as the DuckDB table
  `table_name(id)`; a read step's dependencies only order it (it reads from its own source).
- A write step leaves no table, so nothing may read its rows (the validator says so: OML409).
- Steps run in dependency order, the written order where free to choose; for a valid pipeline
  (every dependency earlier, OML401) that is exactly the written order.

Functions take the pipeline's `steps` as parsed; the validator passes malformed ones too, so nothing
here assumes a step is a mapping or that an id is a string.
"""

from __future__ import annotations

import heapq
import re
from collections.abc import Mapping, Sequence

READS_INPUTS = ("write", "transform")  # the OML modes whose steps take rows from their dependencies
_NOT_ALPHANUMERIC = re.compile(r"[^0-9A-Za-z]")
_INPUT_REFERENCE = re.compile(r"^\$\{\s*([^.}\s]+)\.[A-Za-z0-9_]+\s*\}$")


def table_name(step_id: str) -> str:
    """The DuckDB table holding a step's rows: `df_` + the id with every non-alphanumeric as `_`."""
    return "df_" + _NOT_ALPHANUMERIC.sub("_", step_id)


def input_step(value: object) -> str | None:
    """The step id an `inputs` value names: "${extract-users.df}" -> "extract-users"; None otherwise."""
    match = _INPUT_REFERENCE.match(value) if isinstance(value, str) else None
    return match.group(1) if match else None


def step_id_of(step: object) -> str | None:
    """A step's id when it has a usable one (a string), else None."""
    found = step.get("id") if isinstance(step, Mapping) else None
    return found if isinstance(found, str) else None


def named_dependencies(step: object) -> list[tuple[str, tuple[str | int, ...]]]:
    """Each dependency written in the step, with where it is written: ("a", ("needs", 0)),
    ("b", ("inputs", "df")); in the order written, repeats included."""
    if not isinstance(step, Mapping):
        return []
    found: list[tuple[str, tuple[str | int, ...]]] = []
    needs = step.get("needs")
    for position, need in enumerate(needs if isinstance(needs, list) else []):
        if isinstance(need, str):
            found.append((need, ("needs", position)))
    inputs = step.get("inputs")
    for name, value in (inputs.items() if isinstance(inputs, Mapping) else []):
        named = input_step(value)
        if named:
            found.append((named, ("inputs", str(name))))
    return found


def is_explicit(step: object) -> bool:
    """True when the step says what it depends on (`needs` or `inputs`, even empty)."""
    return isinstance(step, Mapping) and ("needs" in step or "inputs" in step)


def reads_inputs(step: object) -> bool:
    """True for the steps that take rows from their dependencies: writes and transforms."""
    return isinstance(step, Mapping) and step.get("mode") in READS_INPUTS


def leaves_table(step: object) -> bool:
    """False for a write step: a writer's rows go to its target, not to a table a later step can read."""
    return not (isinstance(step, Mapping) and step.get("mode") == "write")


def step_dependencies(steps: Sequence[object], index: int) -> list[str]:
    """The ids step `index` depends on, each once, in the order written (needs first, then inputs)."""
    step = steps[index]
    if is_explicit(step):
        return list(dict.fromkeys(name for name, _ in named_dependencies(step)))
    previous = step_id_of(steps[index - 1]) if index > 0 else None
    return [previous] if previous is not None and reads_inputs(step) else []


def dependencies_of(steps: Sequence[object]) -> dict[str, list[str]]:
    """Each step id -> the ids of the steps it depends on (the first step of a repeated id wins)."""
    found: dict[str, list[str]] = {}
    for index, step in enumerate(steps):
        step_id = step_id_of(step)
        if step_id is not None and step_id not in found:
            found[step_id] = step_dependencies(steps, index)
    return found


def input_tables(step: object, dependencies: Sequence[str]) -> dict[str, str]:
    """The tables a step reads, upstream id -> `df_<id>`: its dependencies for a write or a
    transform, none for a read (its `needs` only order it)."""
    return {name: table_name(name) for name in dependencies} if reads_inputs(step) else {}


def run_order(steps: Sequence[object]) -> list[str]:
    """Step ids so that every step comes after its dependencies; the written order where free to
    choose. Dependencies on unknown ids are ignored (the validator reports them, OML401).

    Raises ValueError for a cycle, which the validator refuses first (OML402, OML403).
    """
    dependencies = dependencies_of(steps)
    position = {step_id: n for n, step_id in enumerate(dependencies)}
    waiting = {step_id: {d for d in needs if d in position} for step_id, needs in dependencies.items()}
    followers: dict[str, list[str]] = {step_id: [] for step_id in dependencies}
    for step_id, needs in waiting.items():
        for need in needs:
            followers[need].append(step_id)
    ready = [position[step_id] for step_id, needs in waiting.items() if not needs]
    heapq.heapify(ready)
    ordered: list[str] = []
    names = list(dependencies)
    while ready:
        step_id = names[heapq.heappop(ready)]
        ordered.append(step_id)
        for follower in followers[step_id]:
            waiting[follower].discard(step_id)
            if not waiting[follower]:
                heapq.heappush(ready, position[follower])
    if len(ordered) < len(dependencies):
        raise ValueError("the steps depend on each other in a cycle")
    return ordered


__all__ = [
    "dependencies_of", "input_step", "input_tables", "is_explicit", "leaves_table", "named_dependencies",
    "reads_inputs", "run_order", "step_dependencies", "step_id_of", "table_name",
]
