"""OML503, OML526, OML532, OML533: what the machine and the run allow: the operating system, the
engine's memory, the run's deadline and its scratch space (docs/security.md, "Every run ends")."""

from __future__ import annotations

from osiris.problems.base import RuntimeProblem


def system_problem(component: str, detail: str) -> RuntimeProblem:
    """OML503: the operating system stopped a driver (a full disk, a permission, a path), in its words."""
    return RuntimeProblem("OML503", f"the {component} driver stopped: {detail}",
                          "check the free space, the permissions and the paths this step uses")


def memory_problem(cap_mb: int) -> RuntimeProblem:
    """OML526: the step needed more memory than the engine's cap (run.memory_limit), even spilling to
    disk (ADR 0200)."""
    return RuntimeProblem(
        "OML526", f"the step needs more memory than the engine's {cap_mb} MB cap, even spilling "
                  "to disk",
        "rows this wide do not fit a sort or a write under the cap: leave out wide columns the step does not "
        "need, or sort and write them in a later step; or raise run.memory_limit, or lower run.threads "
        "(docs/run.md, memory); nothing was written")


def deadline_problem(seconds: float | None, setting: str) -> RuntimeProblem:
    """OML532: the run passed its deadline (`setting` says which); its query was interrupted and its
    scratch removed (docs/security.md, "Every run ends")."""
    limit = f"{seconds:g} s" if seconds is not None else "its deadline"
    return RuntimeProblem(
        "OML532", f"the run passed its deadline ({limit}, {setting}); the query was interrupted and nothing was kept",
        "make the step's query cheaper: read fewer rows (a LIMIT or a WHERE on its inputs), drop generated "
        f"or repeated rows, avoid cross joins; or raise {setting} in .osiris.yaml")


def scratch_problem(cap_mb: int) -> RuntimeProblem:
    """OML533: the step's spill outgrew the run's scratch cap (docs/security.md, "Every run ends")."""
    return RuntimeProblem(
        "OML533", f"the step needs more scratch space than the run's cap ({cap_mb} MB of spill)",
        "the query makes more rows than it reads: filter or aggregate earlier, avoid cross joins and generated "
        "rows; nothing was kept")
