"""How a step's failure is told: an error no driver mapped, secrets masked a second time, the
step marked interrupted, and its duration."""

from __future__ import annotations

import sys
import time

from osiris.errors import where_raised
from osiris.problems import RuntimeProblem, internal_problem, restated, system_problem
from osiris.run.problems import masked, out_of_memory, redacted
from osiris.run.results import RunListener, StepResult


def interrupted(result: StepResult, started: float, listener: RunListener) -> None:
    result.status = "interrupted"
    result.duration_ms = since(started)
    listener.step_finished(result)


def unmapped(error: Exception, component: str, secrets: tuple[str, ...]) -> RuntimeProblem:
    """An error no driver mapped: out of memory (OML526) and the operating system's errors (a full
    disk: OML503, its plain words) are the environment's; anything else is a bug in Osiris (OML105,
    exit 5), told by the exception's type and the last line of Osiris it passed, never its text."""
    duckdb = sys.modules.get("duckdb")  # a driver's write ran out of the engine's memory (ADR 0170)
    if duckdb is not None and isinstance(error, duckdb.OutOfMemoryException):
        return out_of_memory(error)
    if isinstance(error, OSError):
        return system_problem(component, redacted(error.strerror or error, secrets))
    return internal_problem(component, where_raised(error))


def clean(problem: RuntimeProblem, secrets: tuple[str, ...]) -> RuntimeProblem:
    """Drivers redact and withhold values; this is the second lock on the door."""
    return restated(problem, masked(problem.message, secrets), masked(problem.hint, secrets))


def since(started: float) -> float:
    return round((time.perf_counter() - started) * 1000, 1)
