"""Hints for graph and table mistakes (OML401, OML402, OML407) that a reader can follow literally
(issue 24): a move never makes a cycle, a removal never leaves a step without the rows it needs,
a table hint names the df_ table of the step meant, and `input_df` is offered only to a step that
will have exactly one input.

Which step takes whose rows is `osiris.oml.step_graph`; a query that names a step's table (`df_orders`)
or its id (`orders`) counts too, since that is what its author meant it to read.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

from osiris.oml.step_graph import is_explicit, leaves_table, reads_inputs, step_dependencies, step_id_of, table_name
from osiris.oml.values import Value
from osiris.suggest import NameIndex, closest


class StepGraph:
    """The steps of one pipeline, by position, with what each one takes rows from."""

    def __init__(self, steps: Sequence[Value]) -> None:
        self.steps = steps
        self.position: dict[str, int] = {}
        for index, step in enumerate(steps):
            step_id = step_id_of(step)
            if step_id is not None:
                self.position.setdefault(step_id, index)
        self._closure: dict[int, set[int]] = {}
        self._names: NameIndex | None = None

    def id_at(self, index: int) -> str:
        return step_id_of(self.steps[index]) or f"steps[{index}]"

    def direct(self, index: int) -> set[int]:
        """The steps `index` takes rows from: its dependencies and the steps its query names."""
        found = {self.position[name] for name in step_dependencies(self.steps, index) if name in self.position}
        text = query_of(self.steps[index]).lower()
        if text:
            found |= {position for name, position in self.position.items() if mentions(text, name)}
        return found - {index}

    def closure(self, index: int) -> set[int]:
        """Every step `index` takes rows from, directly or through others."""
        if index not in self._closure:
            self._closure[index] = set()  # a guard: cycles end here
            seen: set[int] = set()
            pending = list(self.direct(index))
            while pending:
                current = pending.pop()
                if current not in seen:
                    seen.add(current)
                    pending += self.direct(current)
            self._closure[index] = seen
        return self._closure[index]

    def replacement(self, need: str, index: int) -> str | None:
        """The earlier step id OML401 offers in place of the unknown id `need` in step `index`."""
        if self._names is None:
            self._names = NameIndex(self.position)
        return closest_earlier(self._names, need, sum(1 for p in self.position.values() if p < index))

    def corrected_dependencies(self, index: int) -> list[str]:
        """Step `index`'s dependencies once OML401's fixes are applied: an unknown id replaced by the
        id its hint offers, or left out when it offers none."""
        found = [name if name in self.position else self.replacement(name, index)
                 for name in step_dependencies(self.steps, index)]
        return list(dict.fromkeys(name for name in found if name is not None))

    def source_before(self, index: int) -> str | None:
        """An earlier step whose rows `index` should take: one its query names, else the nearest that
        leaves a table."""
        earlier = [i for i in range(index) if step_id_of(self.steps[i]) is not None and leaves_table(self.steps[i])]
        named = [i for i in earlier if mentions(query_of(self.steps[index]).lower(), self.id_at(i))]
        chosen = named[0] if named else (earlier[-1] if earlier else None)
        return self.id_at(chosen) if chosen is not None else None


def closest_earlier(ids: NameIndex, need: str, earlier: int) -> str | None:
    """The id closest to the unknown `need` among the first `earlier` ids (any id for the first step)."""
    return ids.closest(need, before=earlier or None)


def unknown_need_fix(need: str, match: str, where: str) -> str:
    """The exact edit for an unknown id with a close earlier id: the form OML407's needs list agrees with."""
    if where == "inputs":
        return f"replace the inputs entry that names '{need}' with \"${{{match}.df}}\""
    return f"replace '{need}' with '{match}' in needs"


def query_of(step: object) -> str:
    config = step.get("config") if isinstance(step, dict) else None
    query = config.get("query") if isinstance(config, dict) else None
    return query if isinstance(query, str) else ""


def mentions(lowered_query: str, step_id: str) -> bool:
    """True when a (lower-cased) query names the step's table `df_<id>`, or the id itself as a name."""
    names = {table_name(step_id).lower()}
    if re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", step_id):
        names.add(step_id.lower())
    return any(re.search(rf"(?<![\w.]){re.escape(name)}(?![\w])", lowered_query) for name in names)


def later_need_hint(steps: Sequence[Value], index: int, need: str, where: str) -> str:
    """OML401 for `need`, a later step than `index`: move it (with the steps it needs) above, or,
    when it takes rows from this step (moving it would make a cycle), remove it here."""
    graph = StepGraph(steps)
    later = graph.position[need]
    moving = sorted({later} | {k for k in graph.closure(later) if index < k < later})
    if any(index in graph.closure(k) or k == index for k in moving):
        return removal_hint(graph, index, need, where)
    names = [graph.id_at(k) for k in moving]
    what = f"step '{need}'" if len(names) == 1 else "steps " + ", ".join(f"'{n}'" for n in names) + " (in this order)"
    return (f"move {what} above step '{graph.id_at(index)}': a step may only need earlier steps, because steps "
            "run in the order they are written")


def removal_hint(graph: StepGraph, index: int, need: str, where: str) -> str:
    """Take `need` out of step `index`'s dependencies; name a replacement when the step would be
    left taking no rows."""
    step_id = graph.id_at(index)
    why = f"'{need}' takes the rows of '{step_id}' (directly or through other steps), so it must run after it"
    key = "inputs entry that names" if where == "inputs" else "needs entry"
    others = [name for name in step_dependencies(graph.steps, index) if name != need]
    if reads_inputs(graph.steps[index]) and not others:
        source = graph.source_before(index)
        if source is not None:
            if where == "inputs":
                return f"replace the {key} '{need}' with \"${{{source}.df}}\": {why}"
            return f"replace '{need}' with '{source}' in needs: {why}"
    return f"remove the {key} '{need}': {why}" if where == "inputs" else f"remove '{need}' from needs: {why}"


def reads_a_dependency(steps: Sequence[Value], index: int, table: str) -> bool:
    """True when `table` is the rows of a step that step `index` names as a dependency, though not
    an earlier one, or that OML401 offers for an unknown one: the graph's issue (OML401, OML402,
    OML403) is the fix, not the table (OML407)."""
    dependencies = step_dependencies(steps, index)
    if table.lower() == "input_df":
        return len(dependencies) == 1
    fixed = StepGraph(steps).corrected_dependencies(index)  # an unknown id OML401 replaces by this table's step
    return any(table.lower() == table_name(name).lower() for name in [*dependencies, *fixed])


def not_an_input_hint(steps: Sequence[Value], index: int, table: str) -> str | None:
    """OML407 for a query of step `index` that reads `table`: when `table` means another step's rows,
    how to take them (the needs to write, the table to read); None when no step is meant."""
    graph = StepGraph(steps)
    meant = _step_meant(graph, table, index)
    if meant is None:
        return None
    step = steps[index]
    corrected = graph.corrected_dependencies(index)  # what OML401's hints leave: the two never disagree
    right = table_name(meant)
    parts = [] if meant in corrected else [_add_need(step, corrected, meant)]
    if right.lower() != table.lower():
        parts.append(f"read {right} instead of {table} (the rows of step '{meant}')")
    if meant not in corrected and len(corrected) == 1 and mentions(query_of(step).lower(), "input_df"):
        parts.append(f"read {table_name(corrected[0])} instead of input_df: with two inputs there is no input_df")
    return "; ".join(parts) or None


def _step_meant(graph: StepGraph, table: str, index: int) -> str | None:
    """The earlier step, leaving a table, whose rows `table` names: by its table or id, a word of
    its id (`orders` for `extract-orders`), or a close spelling."""
    candidates = {graph.id_at(k): k for k in range(index) if step_id_of(graph.steps[k]) is not None
                  and leaves_table(graph.steps[k])}
    wanted = table.lower()
    for name in candidates:
        if wanted in (name.lower(), table_name(name).lower()):
            return name
    worded = [name for name in candidates if wanted in re.split(r"[-_]", name.lower())]
    if len(worded) == 1:
        return worded[0]
    return closest(wanted, list(candidates), cutoff=0.8)


def _add_need(step: object, inputs: list[str], meant: str) -> str:
    if (isinstance(step, Mapping) and "needs" in step) or not is_explicit(step):
        return f"write needs: [{', '.join([*inputs, meant])}]" if inputs else f"write needs: [{meant}]"
    return f"add needs: [{meant}] (next to its inputs)"
