"""Spark's and the JVM's errors as the OML5xx problems the person sees, never raw (docs/spark.md).

A Java error's text can hold Java class names, stack frames, JDBC details and values from rows.
Only its first line is kept, without class names, redacted with the step's secrets, and cut; what
it is about (connection, password, table, column, type, key) picks the code, as on DuckDB.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from osiris.problems import (
    engine_table_problem,
    spark_analysis_problem,
    spark_job_problem,
    spark_not_started_problem,
    spark_unavailable_problem,
    unknown_column_problem,
)
from osiris.run.driver import RuntimeProblem
from osiris.run.problems import (
    auth_problem,
    connect_problem,
    permission_problem,
    redacted,
    rejected_problem,
    sql_problem,
    type_problem,
)

_CLASS_NAME = re.compile(r"\b(?:[a-z][a-z0-9_]*\.)+[A-Z][A-Za-z0-9_$]*(?:Exception|Error)\b:?\s*")
_NOISE = re.compile(r"\s*(SQLSTATE: \w+|Error Code: \d+|\(SQLSTATE [^)]*\))\.?")
_QUOTED_VALUE = re.compile(r"'[^']*'")
_MESSAGE_LIMIT = 300
_TYPE_CONDITIONS = ("CAST_INVALID_INPUT", "CAST_OVERFLOW", "ARITHMETIC_OVERFLOW", "DIVIDE_BY_ZERO",
                    "NUMERIC_VALUE_OUT_OF_RANGE", "DATATYPE_MISMATCH", "INVALID_ARRAY_INDEX")


def clean_text(error: BaseException | str, secrets: Iterable[str] = ()) -> str:
    """The first meaningful line of a Spark or Java error: no class names, no stack, redacted, cut."""
    raw = str(error) if isinstance(error, str) else _java_text(error)
    lines = [line.strip() for line in raw.splitlines() if line.strip() and not line.strip().startswith("at ")]
    causes = [line.removeprefix("Caused by:").strip() for line in lines if line.startswith("Caused by:")]
    text = causes[-1] if causes else lines[0] if lines else "the Spark job failed"  # the root cause says most
    text = _NOISE.sub("", _CLASS_NAME.sub("", text)).strip(" :;")
    text = re.sub(r"^\[[A-Z_.]+\]\s*", "", text)  # Spark's [ERROR_CLASS] prefix
    return redacted(text, secrets)[:_MESSAGE_LIMIT]


def problem_from(error: BaseException, family: str, config: dict[str, object], secrets: Iterable[str]) -> RuntimeProblem:
    """The OML5xx problem of a Spark job that read or wrote a `family` database (or ran SQL: family "")."""
    if isinstance(error, RuntimeProblem):
        return error
    text = clean_text(error, secrets)
    lowered = _java_text(error).lower()  # class names included, to classify; never shown
    condition = _condition(error)
    if "password authentication failed" in lowered or "access denied for user" in lowered:
        return auth_problem(family, config.get("user"), "password authentication failed")
    if "classnotfoundexception" in lowered and family:  # a driver jar named in run.spark.conf that is not there
        return spark_unavailable_problem(f"has no JDBC driver for {family}: {text}",
                                         "name the driver's jar in run.spark.jars (docs/spark.md, JDBC)")
    if "connection refused" in lowered or "could not connect" in lowered or "socket fail to connect" in lowered:
        return connect_problem(family, config.get("host"), config.get("port"), "connection refused")
    if "permission denied" in lowered or "command denied" in lowered:
        return permission_problem(text)
    if any(word in lowered for word in ("duplicate key", "duplicate entry", "violates", "cannot be null",
                                        "constraint")):
        return rejected_problem(_QUOTED_VALUE.sub("'…'", text))
    if condition.startswith(_TYPE_CONDITIONS) or "numberformat" in lowered:
        return type_problem(_QUOTED_VALUE.sub("'…'", text))
    if family and ("syntax" in lowered or "does not exist" in lowered or "doesn't exist" in lowered):
        return sql_problem(text)
    return spark_job_problem(text)


def analysis_problem(error: BaseException, views: Iterable[str], columns: Iterable[str]) -> RuntimeProblem:
    """Spark's analyser refused a transform: an unknown table or column as OML501/502 with the names
    it could have meant, anything else as OML414 (docs/spark.md)."""
    condition = _condition(error)
    parameters = _parameters(error)
    if condition.startswith("TABLE_OR_VIEW_NOT_FOUND"):
        wrong = parameters.get("relationName", "").strip("`")
        return engine_table_problem(wrong, views)
    if condition.startswith("UNRESOLVED_COLUMN"):
        wrong = parameters.get("objectName", "").strip("`").split("`.`")[-1]
        return unknown_column_problem(wrong, columns)
    return spark_analysis_problem(clean_text(error))


def engine_problem(error: BaseException) -> RuntimeProblem:
    """The Spark engine could not start (no Java, a master it cannot reach)."""
    return spark_not_started_problem(clean_text(error))


def missing_driver_problem(family: str, jar: str) -> RuntimeProblem:
    """No JDBC driver jar for a database step (docs/spark.md, JDBC)."""
    package = {"postgres": "libpostgresql-jdbc-java", "mysql": "libmariadb-java"}.get(family, "")
    return spark_unavailable_problem(f"has no JDBC driver for {family}: {jar} is missing",
                                     f"install it (apt-get install {package}), or name the driver's jar in run.spark.jars")


def _condition(error: BaseException) -> str:
    getter = getattr(error, "getCondition", None)
    try:
        return str(getter() or "") if callable(getter) else ""
    except Exception:  # a captured error whose JVM side is gone
        return ""


def _parameters(error: BaseException) -> dict[str, str]:
    getter = getattr(error, "getMessageParameters", None)
    try:
        return dict(getter() or {}) if callable(getter) else {}
    except Exception:  # a captured error whose JVM side is gone
        return {}


def _java_text(error: BaseException) -> str:
    """A Py4JJavaError's Java exception as text (its str() carries the whole stack)."""
    java = getattr(error, "java_exception", None)
    if java is not None:
        try:
            return str(java.toString())
        except Exception:  # the JVM has gone away
            return "the Spark job failed"
    return str(error)
