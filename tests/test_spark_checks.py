"""The Spark engine's checks that need no JVM: validation of transforms and options (OML412-414),
and how Spark's and Java's error texts become OML lines (docs/spark.md). The end-to-end behaviour is
in tests/test_spark.py."""

from __future__ import annotations

import pytest

from osiris.oml.config import StepConfig
from osiris.run.spark.differences import DIFFERENCES
from osiris.run.spark.errors import analysis_problem, clean_text, engine_problem, problem_from
from osiris.run.spark.transpile import NotTranspiled, spark_issues, spark_sql


def issues_of(query: str) -> list[tuple[str, str]]:
    pipeline = {"steps": [{"id": "t", "component": "duckdb.processor", "config": {"query": query}}]}
    return [(i.code, i.message) for i in spark_issues(pipeline)]


@pytest.mark.parametrize(("query", "name"), [
    ("SELECT * FROM t QUALIFY row_number() OVER (ORDER BY a) = 1", "QUALIFY with SELECT *"),
    ("SELECT d - INTERVAL 2 DAY AS x FROM t", "a date plus or minus an INTERVAL"),
    ("SELECT extract(dow FROM d) AS x FROM t", "dayofweek / isodow / extract(dow ...)"),
    ("SELECT isodow(d) AS x FROM t", "dayofweek / isodow / extract(dow ...)"),
    ("SELECT CAST(x AS BIGINT) AS y FROM t", "CAST(... AS an integer type)"),
    ("SELECT l[2] AS x FROM t", "list indexing list[i]"),
    ("SELECT * FROM range(3) AS r(i)", "generate_series / range as a table"),
    ("SELECT len(string_split(s, ',')) AS n FROM t", "len() of a list"),
    ("SELECT * RENAME (a AS b) FROM t", "SELECT * REPLACE / RENAME"),
    ("SELECT a // 2 AS x FROM t", "integer division //"),
    ("PIVOT t ON c USING sum(x)", "PIVOT ... USING"),
])
def test_each_known_difference_is_one_issue_with_its_code(query, name):
    (difference,) = [d for d in DIFFERENCES if d.name == name]
    verb = "does not run on Spark" if difference.code == "OML412" else "gives another result on Spark"
    assert issues_of(query) == [(difference.code, f"step 't': {name} {verb}: {difference.why}")]


@pytest.mark.parametrize("query", [
    "SELECT id, email FROM input_df",
    "SELECT country, count(*) AS n FROM input_df GROUP BY country",
    "SELECT CAST(round(x) AS INTEGER) AS y, CAST('5' AS INTEGER) AS five, 1 FROM t",
    "SELECT len(name) AS n FROM t",
    "SELECT a / 2 AS half, d + 1 AS next FROM t",
    "SELECT * FROM (SELECT upper(a) FROM t) AS s",  # only the outer SELECT names the output
    "SELEC broken",  # OML405's, not the Spark check's
])
def test_queries_both_engines_share_raise_nothing(query):
    assert issues_of(query) == []


def test_unnamed_columns_are_listed_and_cut():
    [(code, message)] = issues_of("SELECT id, upper(name), 'x' FROM t")
    assert code == "OML413"
    assert message.startswith("step 't': the columns UPPER(name), 'x' would be named differently on Spark")


def test_spark_sql_and_what_has_no_spark_form():
    assert spark_sql("SELECT 1::BIGINT AS id;") == "SELECT CAST(1 AS BIGINT) AS id"
    with pytest.raises(NotTranspiled):
        spark_sql("SELECT 1; SELECT 2")


@pytest.mark.parametrize(("config", "component", "fields"), [
    ({"path": "a.csv", "quoting": "nonnumeric"}, "filesystem.csv_writer", ["quoting"]),
    ({"path": "a.csv", "quoting": "minimal", "newline": "lf"}, "filesystem.csv_writer", []),
    ({"path": "a.csv", "skip_rows": 0, "compression": "gzip", "na_values": ["NA"]}, "filesystem.csv_extractor", []),
    ({"path": "a.csv", "compression": "xz", "na_values": ["NA", "-"]}, "filesystem.csv_extractor",
     ["compression", "na_values"]),
])
def test_csv_options_spark_cannot_honour(config, component, fields):
    pipeline = {"steps": [{"id": "s", "component": component, "config": config}]}
    found = spark_issues(pipeline, lambda path: (7, 3))
    assert [(i.code, i.path, i.line, i.column) for i in found] == [
        ("OML414", f"/steps/0/config/{field}", 7, 3) for field in fields]


def test_the_csv_options_are_read_from_the_effective_config_validation_worked_out():
    """The step leaves quoting out: Spark's check reads the value validation merged in (here a spec
    whose default is `all`), not a default of its own; with no report, the built-in spec's `minimal`."""
    step = {"id": "w", "component": "filesystem.csv_writer", "mode": "write", "config": {"path": "a.csv"}}
    validated = {"w": StepConfig({"path": "a.csv"}, {"quoting": "all", "newline": "crlf"})}
    found = spark_issues({"steps": [step]}, None, validated)
    assert [(i.code, i.path, i.message) for i in found] == [
        ("OML414", "/steps/0/config/quoting", "step 'w': quoting: all is not available on the Spark engine (its "
         "CSV writer cannot keep NULL apart from an empty text when it quotes more than it must)"),
        ("OML414", "/steps/0/config/newline", "step 'w': newline: crlf is not available on the Spark engine (its "
         "CSV writer ends lines with LF)")]
    assert spark_issues({"steps": [step]}) == []


JAVA_ERROR = ("org.apache.spark.SparkException: Job aborted due to stage failure: Task 0 in stage 3.0 failed\n"
              "Caused by: org.postgresql.util.PSQLException: FATAL: password authentication failed for user "
              '"osiris" (password s3cr3t-pw)\n\tat org.postgresql.core.v3.ConnectionFactoryImpl.doAuthentication')


def test_java_text_loses_class_names_stack_and_secrets():
    text = clean_text(JAVA_ERROR, ["s3cr3t-pw"])
    assert text.startswith("FATAL: password authentication failed for user")
    assert "s3cr3t-pw" not in text and "org." not in text and "Exception" not in text and "\tat" not in text
    assert clean_text("[DIVIDE_BY_ZERO] Division by zero. SQLSTATE: 22012") == "Division by zero."
    assert len(clean_text("x" * 1000)) == 300


@pytest.mark.parametrize(("text", "code"), [
    (JAVA_ERROR, "OML506"),
    ("java.net.ConnectException: Connection refused", "OML505"),
    ("ERROR: permission denied for table orders", "OML507"),
    ("ERROR: duplicate key value violates unique constraint \"k\" Detail: Key (id)=('42') exists", "OML514"),
    ("java.lang.NumberFormatException: For input string: \"abc\"", "OML504"),
    ("ERROR: syntax error at or near \"FORM\"", "OML503"),
    ("Total size of serialized results is bigger than spark.driver.maxResultSize", "OML528"),
])
def test_error_texts_pick_their_code(text, code):
    problem = problem_from(RuntimeError(text), "postgres", {"user": "osiris", "host": "db", "port": 5432}, ())
    assert problem.code == code
    assert "'42'" not in problem.message  # a quoted value of a row is not shown


def test_analyser_problems_name_what_could_have_been_meant():
    class Refusal(Exception):
        def __init__(self, condition: str, parameters: dict[str, str]) -> None:
            super().__init__(f"[{condition}] refused")
            self.condition, self.parameters = condition, parameters

        def getCondition(self) -> str:  # noqa: N802 - pyspark's name
            return self.condition

        def getMessageParameters(self) -> dict[str, str]:  # noqa: N802 - pyspark's name
            return self.parameters

    table = analysis_problem(Refusal("TABLE_OR_VIEW_NOT_FOUND", {"relationName": "`df_raed`"}), ["df_read"], [])
    assert (table.code, table.message) == ("OML501", 'table "df_raed" does not exist in the engine')
    assert table.hint == "tables the engine has: df_read (did you mean 'df_read'?)"
    column = analysis_problem(Refusal("UNRESOLVED_COLUMN.WITH_SUGGESTION", {"objectName": "`t`.`emial`"}), [],
                              ["email", "id"])
    assert (column.code, column.value) == ("OML502", "emial")
    other = analysis_problem(Refusal("DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE", {}), [], [])
    assert other.code == "OML414" and other.message == "Spark's analyser refused the transform: refused"
    assert engine_problem(RuntimeError("Java gateway process exited")).code == "OML527"


def test_a_py4j_error_is_read_from_its_java_exception():
    """Py4JJavaError carries the Java exception; its str() is the whole stack (stand-ins: no JVM here)."""
    from osiris.run.driver import RuntimeProblem

    class Java:
        def __init__(self, text: str | None) -> None:
            self.text = text

        def toString(self) -> str:  # noqa: N802 - Java's name
            if self.text is None:
                raise RuntimeError("the JVM has gone away")
            return self.text

    class Py4JError(Exception):
        def __init__(self, text: str | None) -> None:
            super().__init__("An error occurred while calling o46.save. Trace: ...")
            self.java_exception = Java(text)

    assert problem_from(Py4JError(JAVA_ERROR), "postgres", {"user": "osiris"}, ()).code == "OML506"
    assert clean_text(Py4JError(None)) == "the Spark job failed"
    assert clean_text("\n\n   \nthe real line\nat frame") == "the real line"
    kept = RuntimeProblem("OML510", "file not found: a.csv", "")
    assert problem_from(kept, "", {}, ()) is kept


def test_a_captured_error_whose_jvm_is_gone_still_gives_a_line():
    class Gone(Exception):
        def getCondition(self) -> str:  # noqa: N802 - pyspark's name
            raise RuntimeError("the JVM has gone away")

        def getMessageParameters(self) -> dict[str, str]:  # noqa: N802 - pyspark's name
            raise RuntimeError("the JVM has gone away")

    assert problem_from(Gone("lost"), "", {}, ()).message == "the Spark job failed: lost"
    assert analysis_problem(Gone("lost"), [], []).code == "OML414"


def test_what_sqlglot_cannot_transpile_is_oml412(monkeypatch):
    """sqlglot raised for none of the spike's queries; a stand-in transpiler raises to show the path."""
    from osiris.run.spark import transpile

    def refuse(query: str) -> str:
        raise NotTranspiled("Unsupported: ASOF JOIN")

    monkeypatch.setattr(transpile, "spark_sql", refuse)
    assert issues_of("SELECT a AS b FROM t") == [("OML412", "step 't': the query has no Spark SQL form: "
                                                           "Unsupported: ASOF JOIN")]
    assert issues_of("SELECT a // 2 AS b FROM t")[0][1].startswith("step 't': integer division //")  # one issue


PIPELINE = """oml_version: "0.1.0"
name: p
steps:
  - id: read
    component: filesystem.csv_extractor
    mode: read
    config:
      path: rows.csv
  - id: t
    component: duckdb.processor
    mode: transform
    config:
      query: "SELECT id, upper(name) FROM input_df"
"""


def test_spark_report_adds_located_issues_to_a_valid_report():
    from osiris.run.spark.transpile import spark_report
    from tests.validate_helpers import validator

    report = validator().validate(PIPELINE)
    assert report.valid
    checked = spark_report(report)
    [issue] = checked.issues[len(report.issues):]
    assert (issue.code, issue.tier, issue.path, issue.line, issue.column) == ("OML413", 4, "/steps/1/config/query",
                                                                               13, 15)
    assert checked.issues[:len(report.issues)] == report.issues and not checked.valid
    clean = validator().validate(PIPELINE.replace("upper(name)", "upper(name) AS name"))
    assert spark_report(clean) is clean
    assert spark_issues({"steps": [{"id": "t", "component": "duckdb.processor", "config": {"query": 5}}]}) == []
