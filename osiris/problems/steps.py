"""OML513, OML516, OML537, OML538: what a step's run reports of itself: no driver to run it, its
warnings, and its checks on data."""

from __future__ import annotations

from osiris.problems.base import RuntimeProblem
from osiris.suggest import listing


def driver_warning(text: str) -> RuntimeProblem:
    """OML513: a warning a driver gave in its own words, with no hint."""
    return RuntimeProblem("OML513", text, "")


def empty_sample_problem(described: str, joins: bool) -> RuntimeProblem:
    """OML513: on samples, a transform found no rows in inputs that have some (`described`: each
    input's rows); it speaks of keys only for a join."""
    if joins:
        return RuntimeProblem(
            "OML513", f"the transform returned no rows from sampled inputs ({described}); "
                      "the samples may share no keys",
            "sample more rows (--sample 1000), or filter the driving table's query so that the samples match")
    return RuntimeProblem(
        "OML513", f"the transform returned no rows from sampled inputs ({described}); "
                  "none of the sampled rows met its conditions",
        "sample more rows (--sample 1000); if the full run should keep rows, check the values its conditions "
        "compare with")


def no_driver_problem(component: str, runnable: list[str]) -> RuntimeProblem:
    """OML516: a component whose spec validates but which osiris run cannot run."""
    return RuntimeProblem(
        "OML516", f"no runtime driver for the component {component}",
        f"its spec validates, but osiris run can run only: {listing(runnable)}", value=component)


def checks_failed_problem(failed: list[str]) -> RuntimeProblem:
    """OML537: every error-level check that failed, in one line; nothing was written."""
    return RuntimeProblem(
        "OML537", f"check{'s' if len(failed) > 1 else ''} failed: {'; '.join(failed)}",
        "the rows did not pass the step's checks, so nothing was written; fix the source or the query, or make "
        "the check level: warning (docs/run-again.md)")


def check_warning(outcome: str) -> RuntimeProblem:
    """OML538: a warning-level check that failed; the run went on."""
    return RuntimeProblem("OML538", f"check {outcome}",
                          "the run went on (level: warning); look at the source or the query before trusting these rows")
