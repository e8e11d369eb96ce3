"""The type every runtime problem is, and the problems of no step's making: a problem said again
with other words, and an internal error (OML105)."""

from __future__ import annotations


class RuntimeProblem(Exception):
    """An expected runtime failure of one step, reported as an OML5xx issue (never a traceback).

    `message` and `hint` must already be free of secrets: drivers build them from their own words
    and redact any text taken from a driver library's exception.
    """

    def __init__(self, code: str, message: str, hint: str, *, value: object = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.hint = hint
        self.value = value


def restated(problem: RuntimeProblem, message: str, hint: str) -> RuntimeProblem:
    """`problem` with its message and hint said again (masked a second time), code and value kept."""
    return RuntimeProblem(problem.code, message, hint, value=problem.value)


def internal_problem(component: str, where: str) -> RuntimeProblem:
    """OML105: an error no driver mapped, a bug in Osiris, told by where it was raised (never its text)."""
    return RuntimeProblem("OML105", f"the {component} driver stopped at an internal error ({where})",
                          "this is a bug in Osiris, not in the pipeline: please report it with this line")


def no_engine_count_problem() -> RuntimeProblem:
    """OML105, internal and never shown: DuckDB counted no single scan of a fused read, which is then
    run apart (osiris.run.fused)."""
    return RuntimeProblem("OML105", "DuckDB counted no single scan of the fused read", "")
