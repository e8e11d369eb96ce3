"""Tier 4, the step graph: unknown dependencies (OML401), cycles (OML402), self-dependency (OML403)."""

from __future__ import annotations

from typing import Any

from osiris.suggest import did_you_mean, listing
from osiris.validate.findings import Findings
from osiris.validate.pointer import join


def check_graph(steps: list[Any], sound: list[int], findings: Findings) -> None:
    """Check the needs of the structurally sound steps. A need may name any step with an id, even
    one with its own (already reported) problems; only sound steps take part in cycle detection."""
    ids = {steps[i]["id"]: i for i in sound}
    known: dict[str, int] = {}
    for position, step in enumerate(steps):
        if isinstance(step, dict) and isinstance(step.get("id"), str):
            known.setdefault(step["id"], position)
    edges: dict[str, list[str]] = {}
    for index in sound:
        step = steps[index]
        step_id = step["id"]
        edges[step_id] = []
        for position, need in enumerate(step.get("needs") or []):
            need_path = join("/steps", index, "needs", position)
            if need in ids and need != step_id:
                edges[step_id].append(need)
                continue
            earlier = [name for name, where in known.items() if where < index]
            if need == step_id:
                findings.add("OML403", need_path, f"step '{step_id}' depends on itself",
                             f"remove '{step_id}' from its needs" + (f"; earlier steps: {listing(earlier)}" if earlier else ""),
                             value=need)
            elif need not in known:
                findings.add("OML401", need_path, f"step '{step_id}' needs '{need}', which is not a step id",
                             f"use the id of an earlier step{did_you_mean(need, earlier or list(known))}"
                             + (f"; earlier steps: {listing(earlier)}" if earlier else "; this is the first step: remove needs"),
                             value=need)
    for cycle in _cycles(edges):
        first = cycle[0]
        index = ids[first]
        position = (steps[index].get("needs") or []).index(cycle[1])
        findings.add("OML402", join("/steps", index, "needs", position),
                     f"steps depend on each other in a cycle: {' -> '.join(cycle)}",
                     "remove one of these needs so that data flows one way; a step needs only earlier steps",
                     value=cycle[1])


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
