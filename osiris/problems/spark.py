"""OML414, OML503, OML516, OML527, OML528: the Spark engine (docs/spark.md)."""

from __future__ import annotations

from osiris.problems.base import RuntimeProblem


def no_bounds_problem() -> RuntimeProblem:
    """OML503: the database gave no min and max of the key a Spark read is partitioned on."""
    return RuntimeProblem("OML503", "the database returned no bounds for the primary key", "")


def spark_inputs_problem(count: int) -> RuntimeProblem:
    """OML503: a Spark write step with more or fewer than one input (the DuckDB engine says OML519)."""
    return RuntimeProblem("OML503", f"a writer writes one input, but this step has {count}",
                          "join or union the inputs in a duckdb.processor step first")


def spark_transform_problem(processor: str, component: str) -> RuntimeProblem:
    """OML516: a transform of another component than the one the Spark engine runs."""
    return RuntimeProblem("OML516", f"the Spark engine runs transforms of {processor} only",
                          "run this pipeline on the DuckDB engine", value=component)


def spark_unavailable_problem(detail: str, hint: str) -> RuntimeProblem:
    """OML527: the Spark engine did not start, or lacks a JDBC driver (`detail` says which)."""
    return RuntimeProblem("OML527", f"the Spark engine {detail}", hint)


def spark_not_started_problem(detail: str) -> RuntimeProblem:
    """OML527: the Spark engine could not start (no Java, a master it cannot reach)."""
    return spark_unavailable_problem(f"did not start: {detail}",
                                     "check run.spark.master (osiris config show) and that Java 17 or newer is installed")


def spark_job_problem(detail: str) -> RuntimeProblem:
    """OML528: a Spark job failed in a way no other code names."""
    return RuntimeProblem("OML528", f"the Spark job failed: {detail}",
                          "run again with OSIRIS_DEBUG=1 set to see Spark's own log")


def spark_analysis_problem(detail: str) -> RuntimeProblem:
    """OML414: Spark's analyser refused a transform for a reason other than a name it does not know."""
    return RuntimeProblem("OML414", f"Spark's analyser refused the transform: {detail}",
                          "rewrite the query in SQL both engines share (docs/spark.md, what differs), "
                          "or run this pipeline on the DuckDB engine")
