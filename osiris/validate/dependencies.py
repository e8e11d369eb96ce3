"""Tier 4, the step graph: unknown or later dependencies (OML401), cycles (OML402), self-dependency
(OML403). What a step depends on is `osiris.oml.step_graph`, the one rule the runtime also follows
(ADR 0051); a step may only depend on earlier steps, so the steps run in the order they are written.
"""

from __future__ import annotations

import bisect

from osiris.oml.step_graph import named_dependencies
from osiris.oml.values import Value
from osiris.suggest import NameIndex, listing, suggestion
from osiris.validate.graph_hints import StepGraph, closest_earlier, later_need_hint, removal_hint, unknown_need_fix
from osiris.validate.findings import Findings
from osiris.validate.pointer import join


def check_graph(steps: list[Value], findings: Findings, base: str = "/steps") -> None:
    """Check the explicit dependencies (`needs`, `inputs`) of every step that has an id."""
    known: dict[str, int] = {}
    for position, step in enumerate(steps):
        if isinstance(step, dict) and isinstance(step.get("id"), str):
            known.setdefault(step["id"], position)
    ids = _Ids(known)
    edges: dict[str, list[str]] = {}
    later: list[tuple[int, str, str, str]] = []  # (index, id, need, pointer) of needs that name a later step
    for index, step in enumerate(steps):
        if not isinstance(step, dict) or not isinstance(step.get("id"), str) or known[step["id"]] != index:
            continue
        step_id = step["id"]
        edges[step_id] = []
        for need, need_path in _explicit(step, join(base, index)):
            if need in known and need != step_id:
                edges[step_id].append(need)
                if known[need] > index:
                    later.append((index, step_id, need, need_path))
                continue
            if need == step_id:
                findings.add("OML403", need_path, f"step '{step_id}' depends on itself",
                             "" if findings.full else f"remove '{step_id}' from its needs" + ids.earlier_listing(index),
                             value=need)
            else:
                findings.add("OML401", need_path, f"step '{step_id}' needs '{need}', which is not a step id",
                             "" if findings.full else ids.unknown_need_hint(need, index, _kind(need_path)), value=need)
    in_cycle = _report_cycles(steps, edges, base, findings)
    for index, step_id, need, need_path in later:
        if (step_id, need) in in_cycle:
            continue
        findings.add("OML401", need_path, f"step '{step_id}' needs '{need}', which comes later in the pipeline",
                     later_need_hint(steps, index, need, _kind(need_path)), value=need)


class _Ids:
    """The step ids in document order, for hints: the earlier ones, and the closest to a wrong one."""

    def __init__(self, known: dict[str, int]) -> None:
        self.order = list(known)  # first positions increase with the order
        self.positions = list(known.values())
        self._index: NameIndex | None = None  # built on the first unknown need

    def _earlier(self, index: int) -> list[str]:
        return self.order[:bisect.bisect_left(self.positions, index)]

    def earlier_listing(self, index: int) -> str:
        earlier = self._earlier(index)
        return f"; earlier steps: {listing(earlier)}" if earlier else ""

    def unknown_need_hint(self, need: str, index: int, where: str) -> str:
        """The exact replacement when an earlier id is close, else the ids to choose from."""
        if self._index is None:
            self._index = NameIndex(self.order)
        count = bisect.bisect_left(self.positions, index)
        match = closest_earlier(self._index, need, count)
        if match is not None and count:
            return unknown_need_fix(need, match, where) + self.earlier_listing(index)
        return (f"use the id of an earlier step{suggestion(match)}"
                + (self.earlier_listing(index) or "; this is the first step: remove needs"))


def _kind(pointer: str) -> str:
    """"needs" or "inputs": where a dependency's pointer says it is written."""
    return "inputs" if "/inputs/" in pointer else "needs"


def _explicit(step: object, path: str) -> list[tuple[str, str]]:
    """(id, pointer) of each dependency written in `needs` and `inputs`."""
    return [(name, join(path, *where)) for name, where in named_dependencies(step)]


def _report_cycles(steps: list[Value], edges: dict[str, list[str]], base: str, findings: Findings) -> set[tuple[str, str]]:
    """Add one OML402 per cycle; return the (step, need) edges that are part of one."""
    ids: dict[str, int] = {}
    for index, step in enumerate(steps):
        if isinstance(step, dict) and isinstance(step.get("id"), str):
            ids.setdefault(step["id"], index)
    members: set[tuple[str, str]] = set()
    for cycle in _cycles(edges):
        members.update(zip(cycle, cycle[1:]))
        first = cycle[0]
        index = ids[first]
        pointer = next(p for need, p in _explicit(steps[index], join(base, index)) if need == cycle[1])
        findings.add("OML402", pointer,
                     f"steps depend on each other in a cycle: {' -> '.join(cycle)}",
                     removal_hint(StepGraph(steps), index, cycle[1], _kind(pointer)), value=cycle[1])
    return members


def _cycles(edges: dict[str, list[str]]) -> list[list[str]]:
    """Each cycle once, as [a, b, ..., a], starting at its first step in document order."""
    order = {node: n for n, node in enumerate(edges)}
    found: list[list[str]] = []
    seen_sets: set[frozenset[str]] = set()
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    for root in edges:
        if root in state:
            continue
        path: list[str] = [root]
        pending = [iter(edges.get(root, []))]
        state[root] = 1
        while pending:  # iterative depth-first search: long chains must not hit the recursion limit
            target = next(pending[-1], None)
            if target is None:
                state[path.pop()] = 2
                pending.pop()
                continue
            if target == path[-1]:
                continue  # self-dependency is OML403
            if state.get(target) == 1:
                loop = path[path.index(target):]
                if frozenset(loop) not in seen_sets:
                    seen_sets.add(frozenset(loop))
                    first = min(range(len(loop)), key=lambda k: order[loop[k]])
                    loop = loop[first:] + loop[:first]
                    found.append([*loop, loop[0]])
            elif target not in state:
                state[target] = 1
                path.append(target)
                pending.append(iter(edges.get(target, [])))
    return found
