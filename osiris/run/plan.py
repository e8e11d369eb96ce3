"""Which steps feed which, and the order they run in.

The ordering rule (docs/run.md): a step's inputs are its `needs` and the steps named by its
`inputs: {df: "${step_id.df}"}`. A write or transform step with neither takes the previous step in
document order as its single input; a read step has no inputs.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

_INPUT_REFERENCE = re.compile(r"^\$\{([^}]+?)(?:\.df)?\}$")


def table_name(step_id: str) -> str:
    """`df_<step id with every non-alphanumeric character as _>` (SPEC §2)."""
    return "df_" + re.sub(r"[^0-9A-Za-z]", "_", step_id)


def dependencies_of(steps: Sequence[Mapping[str, Any]]) -> dict[str, list[str]]:
    """Each step id -> the ids of the steps it reads from, in a stable order."""
    found: dict[str, list[str]] = {}
    previous: str | None = None
    for step in steps:
        step_id = str(step["id"])
        named = [str(n) for n in step.get("needs") or []] + _input_ids(step.get("inputs"))
        if not named and step.get("mode") in ("write", "transform") and previous is not None:
            named = [previous]
        found[step_id] = list(dict.fromkeys(named))
        previous = step_id
    return found


def run_order(steps: Sequence[Mapping[str, Any]]) -> list[str]:
    """Step ids so that every step comes after its inputs; document order where free to choose.

    The validator has already refused cycles and unknown ids (OML401-OML403).
    """
    dependencies = dependencies_of(steps)
    ordered: list[str] = []
    done: set[str] = set()
    while len(ordered) < len(dependencies):
        ready = [s for s, needs in dependencies.items() if s not in done and all(n in done for n in needs)]
        if not ready:
            raise ValueError("the steps depend on each other in a cycle")
        ordered.append(ready[0])
        done.add(ready[0])
    return ordered


def _input_ids(inputs: Any) -> list[str]:
    if not isinstance(inputs, Mapping):
        return []
    ids = []
    for value in inputs.values():
        match = _INPUT_REFERENCE.match(value.strip()) if isinstance(value, str) else None
        if match:
            ids.append(match.group(1))
    return ids
