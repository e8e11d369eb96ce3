"""Tier 4, what a run needs (OML409): dependency shapes that pass the graph checks but that the
runtime cannot execute, found before anything runs (docs/errors.md, OML409; ADR 0051).

- A write or transform step that takes the rows of a write step: a writer leaves no table.
- A write step without exactly one input: every writer writes the rows of one step (no input at all
  is `needs: []` or a writer as the first step; two or more must be joined in a transform first).

A read step's `needs` only order it, so a read after a writer is fine. Dependencies on unknown or
later steps are OML401 (or OML403) already: they are left out, and a writer naming one is not
counted, since the fix for it comes first.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from osiris.oml.step_graph import (
    is_explicit,
    leaves_table,
    named_dependencies,
    reads_inputs,
    step_dependencies,
    step_id_of,
    table_name,
)
from osiris.oml.values import Config, Value
from osiris.suggest import listing
from osiris.validate.findings import Findings
from osiris.validate.pointer import join


def check_runnable(steps: Sequence[Value], findings: Findings, base: str = "/steps") -> None:
    """Add one OML409 per step whose inputs the runtime could not hand it."""
    earlier: dict[str, int] = {}
    wrong_mode = {issue.path for issue in findings.issues if issue.is_error and issue.path.endswith("/mode")}
    for index, step in enumerate(steps):
        step_id = step_id_of(step)
        if step_id is None or step_id in earlier:
            continue
        if reads_inputs(step) and join(base, index, "mode") not in wrong_mode:  # a wrong mode is the fix first
            _check_inputs(steps, index, earlier, findings, base)
        earlier[step_id] = index


def _check_inputs(steps: Sequence[Value], index: int, earlier: dict[str, int], findings: Findings, base: str) -> None:
    step = steps[index]
    if not isinstance(step, Mapping):  # never: the caller found the step's id in it
        return
    step_id = str(step["id"])
    dependencies = step_dependencies(steps, index)
    for name in dependencies:
        if name in earlier and not leaves_table(steps[earlier[name]]):
            source = _rows_behind(steps, earlier[name], earlier)
            findings.add("OML409", _pointer_to(step, name, join(base, index)),
                         f"step '{step_id}' takes the rows of '{name}', which is a writer: a writer leaves no table "
                         "to read", _instead_hint(step, name, source), value=name)
    counted = all(name in earlier for name in dependencies) and not (
        not dependencies and (step.get("needs") or step.get("inputs")))  # written, but not as ids (OML205)
    if step.get("mode") == "write" and len(dependencies) != 1 and counted:
        _wrong_input_count(steps, index, dependencies, earlier, findings, base)


def _wrong_input_count(steps: Sequence[Value], index: int, dependencies: list[str], earlier: dict[str, int],
                       findings: Findings, base: str) -> None:
    step = steps[index]
    if not isinstance(step, Mapping):  # never: the caller found the step's id in it
        return
    step_id = str(step["id"])
    path = join(base, index)
    if dependencies:
        tables = ", ".join(table_name(name) for name in dependencies)
        findings.add("OML409", join(path, "needs") if "needs" in step else path,
                     f"step '{step_id}' writes the rows of one step, but it takes {len(dependencies)}: "
                     f"{listing(dependencies)}",
                     f"add a duckdb.processor step before it with needs: [{', '.join(dependencies)}] that joins "
                     f"or unions {tables} into one table, and give '{step_id}' needs: [<that step's id>] "
                     "instead", value=len(dependencies))
        return
    candidates = [name for name, position in earlier.items() if leaves_table(steps[position])]
    why = "its needs name no step" if is_explicit(step) else "it is the first step"
    hint = (f"name the step whose rows it writes: needs: [{candidates[-1]}]"
            + (f" (steps that leave rows before it: {listing(candidates)})" if len(candidates) > 1 else "")
            if candidates else "add a read or transform step before it, and give it needs: [<that step's id>]")
    findings.add("OML409", join(path, "needs") if "needs" in step else path,
                 f"step '{step_id}' is a writer with no input: {why}", hint)


def _rows_behind(steps: Sequence[Value], writer: int, earlier: dict[str, int]) -> str | None:
    """The step whose rows a writer writes (through chains of writers), or None when none is known."""
    seen: set[int] = set()
    while writer not in seen:
        seen.add(writer)
        sources = [earlier[name] for name in step_dependencies(steps, writer) if name in earlier]
        if len(sources) != 1:
            return None
        if leaves_table(steps[sources[0]]):
            return step_id_of(steps[sources[0]])
        writer = sources[0]
    return None


def _pointer_to(step: Config, name: str, path: str) -> str:
    """Where the dependency on `name` is written; the step itself for the implicit previous step."""
    for named, where in named_dependencies(step):
        if named == name:
            return join(path, *where)
    return path


def _instead_hint(step: Config, writer: str, source: str | None) -> str:
    """How to take the rows the writer writes instead: the step's own form of dependency, rewritten."""
    rows = f"'{source}'" if source else "the step whose rows it should take"
    wanted = source or "<that step's id>"
    written = next((where for named, where in named_dependencies(step) if named == writer), None)
    if written is None:
        hint = (f"add needs: [{wanted}] to take the rows of {rows}, the rows '{writer}' writes; "
                "a step without needs takes the step just before it")
    elif written[0] == "inputs":
        hint = f"write inputs: {{{written[1]}: \"${{{wanted}.df}}\"}} to take the rows of {rows} instead of '{writer}'"
    else:
        hint = f"replace '{writer}' with '{wanted}' in needs: take the rows of {rows} instead"
    config = step.get("config")
    query = str(config.get("query", "")) if isinstance(config, dict) else ""
    if table_name(writer).lower() in query.lower():
        hint += (f", and read {table_name(source) if source else 'df_<that step id>'} in the query instead of "
                 f"{table_name(writer)}")
    return hint
