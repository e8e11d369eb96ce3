"""SQL allowed by list (issue 42, items 1, 2, 5-PIVOT and 7; docs/security.md, "SQL allowed by list"),
one suite over both engines.

Each attack is a pipeline: a CSV read of the project's own rows, then a transform whose SQL reaches
for the JVM, a file through a relation name, a LATERAL call or a PIVOT. It is refused by
validation (OML408) on both engines, and, with validation skipped, by each engine's run-time check
on the exact SQL it is about to run (OML518), with nothing planted reaching any output; the Spark
session itself knows no function off its list and runs no SQL on files. A harmless twin of each
still runs on both engines. The lists are data (osiris/trust/allowlists/); every listed name exists
in its engine and matches no deny pattern. Planted files live under the test's temporary directory.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from osiris.trust.allowlist import ENGINES, deny_patterns, functions
from tests.inprocess import run_inprocess
from tests.support import clean_env
from tests.allowlist_corpus import VALID

SECRET = "planted-ENV-secret-7c1e"  # OTHER_SECRET in every run's environment
CONTENT = "planted-FILE-contents-3b9d"  # a file outside the project, and one named df_read inside it
CELL = "PLANTED-CELL-51aa"
SPARK = {"engine": "spark", "spark": {"master": "local[1]"}}
REFUSED_AT_RUN = {"duckdb": "the SQL reached outside its inputs, and the DuckDB engine's list refused it: ",
                  "spark": "the SQL reached outside its inputs, and the DuckDB engine's list refused it: "}

# (name, query, what validation says) -- {outside} is the folder of planted files
ATTACKS = [
    # 1. Spark SQL reaches the JVM: reflect / java_method / try_reflect, in case, quoting and nesting variants
    ("reflect-file", "SELECT reflect('org.apache.spark.util.Utils', 'getPropertiesFromFile', '{outside}/environ') AS f "
                     "FROM df_read", "OML408", "the query calls reflect, which is not on the DuckDB engine's list"),
    ("reflect-case", "SELECT ReFlEcT('java.lang.System', 'getenv', 'OTHER_SECRET') AS f FROM df_read",
     "OML408", "the query calls reflect, which"),
    ("reflect-quoted", "SELECT \"reflect\"('java.lang.System', 'getenv', 'OTHER_SECRET') AS f FROM df_read",
     "OML408", "the query calls reflect, which"),
    ("java-method-case", "SELECT CASE WHEN id > 0 THEN java_method('java.lang.System', 'getenv', 'OTHER_SECRET') END "
                         "AS f FROM df_read", "OML408", "the query calls java_method, which"),
    ("try-reflect-cte", "WITH c AS (SELECT (SELECT try_reflect('java.lang.System', 'getenv', 'OTHER_SECRET')) AS f "
                        "FROM df_read) SELECT f FROM c", "OML408", "the query calls try_reflect, which"),
    ("raise-error", "SELECT raise_error(reverse(reflect('java.lang.System', 'getenv', 'ANTHROPIC_API_KEY'))) AS f "
                    "FROM df_read", "OML408", "the query calls raise_error, which"),
    # 2. A file read through a relation name
    ("csv-relation", "SELECT * FROM csv.df_read", "OML408", "the query reads 'csv.df_read', a qualified name"),
    ("text-relation", "SELECT * FROM TEXT.input_df", "OML408", "the query reads 'TEXT.input_df', a qualified name"),
    ("parquet-quoted", 'SELECT * FROM "parquet"."df_read"', "OML408", "a qualified name"),
    ("csv-nested", "SELECT id FROM (SELECT * FROM csv.df_read) AS s", "OML408", "the query reads 'csv.df_read'"),
    ("csv-backquoted", "SELECT * FROM CSV.`{outside}/victim.csv`", "OML405", "SQL syntax error"),
    # 5. PIVOT: output columns made from cell values
    ("pivot-statement", "PIVOT df_read ON name USING count(*)", "OML408", "the query uses PIVOT, whose output columns"),
    ("pivot-clause", "SELECT * FROM df_read PIVOT (count(*) FOR name IN ('Ann'))", "OML408", "the query uses PIVOT"),
    ("pivot-in-cte", "WITH p AS (PIVOT df_read ON name USING count(*)) SELECT * FROM p", "OML408", "uses PIVOT"),
    ("unpivot", "SELECT * FROM df_read UNPIVOT (v FOR k IN (name))", "OML408", "the query uses UNPIVOT"),
    # 7. LATERAL calls
    ("lateral-read-text", "SELECT * FROM df_read, LATERAL read_text('{outside}/environ')", "OML408",
     "the query calls read_text through LATERAL"),
    ("lateral-glob", "SELECT * FROM df_read, LATERAL glob('{outside}/*')", "OML408", "the query calls glob through LATERAL"),
    ("lateral-read-csv", "SELECT * FROM df_read, LATERAL read_csv('{outside}/victim.csv')", "OML408",
     "the query calls read_csv through LATERAL"),
    ("lateral-query", "SELECT * FROM df_read, LATERAL query('SELECT 42 AS q')", "OML408",
     "the query calls query through LATERAL"),
    ("lateral-query-table", "SELECT * FROM df_read, LATERAL QuErY_TaBlE('df_read')", "OML408",
     "the query calls query_table through LATERAL"),
    ("lateral-subquery-query", "SELECT * FROM df_read, LATERAL (SELECT * FROM query('SELECT 42 AS q'))", "OML408",
     "the query calls the table function query"),
]
# A harmless twin of each family: the same shape, on the list; it runs on both engines.
TWINS = {
    "jvm": "SELECT CASE WHEN id > 0 THEN upper(reverse(name)) END AS f FROM df_read",
    "nested": "WITH c AS (SELECT (SELECT lower(name)) AS f FROM df_read) SELECT f FROM c",
    "relation": "SELECT id FROM (SELECT * FROM df_read) AS s",
    "pivot": "SELECT count(*) FILTER (WHERE name = 'Ann') AS ann, count(*) AS people FROM df_read",
    "lateral": "SELECT d.id, l.q FROM df_read AS d, LATERAL (SELECT d.id * 2 AS q) AS l",
}


TWIN_CSV = f"f\nNNA\n{CELL[::-1].upper()}\n"  # what the "jvm" twin writes, on either engine


class Project:
    """A project with its own rows (and a file named `df_read` beside them), a folder `outside/` of
    planted files, and OTHER_SECRET in the environment."""

    def __init__(self, root: Path, engine: str) -> None:
        self.root, self.outside = root / "project", root / "outside"
        self.root.mkdir(parents=True)
        self.outside.mkdir()
        (self.outside / "environ").write_text(f"SECRET={CONTENT}\n")
        (self.outside / "victim.csv").write_text(f"id\n{CONTENT}\n")
        (self.root / "df_read").write_text(f"{CONTENT}\n")  # what csv.df_read would read on Spark
        (self.root / "people.csv").write_text(f"id,name\n1,Ann\n2,{CELL}\n")
        (self.root / ".osiris.yaml").write_text(yaml.safe_dump({"run": SPARK} if engine == "spark" else {}))
        self.env = clean_env(OTHER_SECRET=SECRET)
        self.before = self.files()

    def files(self) -> dict[Path, bytes]:
        return {p: p.read_bytes() for p in sorted(self.root.parent.rglob("*"))
                if p.is_file() and ".osiris" not in p.relative_to(self.root.parent).parts[:2]}

    def pipeline(self, *transforms: tuple[str, str], write: str | None = None) -> Path:
        steps: list[dict[str, Any]] = [{"id": "read", "component": "filesystem.csv_extractor", "mode": "read",
                                        "config": {"path": "people.csv"}}]
        steps += [transform(name, query.format(outside=self.outside)) for name, query in transforms]
        if write:
            steps.append({"id": "write", "component": "filesystem.csv_writer", "mode": "write", "needs": [write],
                          "config": {"path": "out.csv"}})
        path = self.root / "p.yaml"
        path.write_text(yaml.safe_dump({"oml_version": "0.1.0", "name": "p", "steps": steps}, sort_keys=False))
        return path

    def assert_nothing_reached(self, *texts: str) -> None:
        """No planted value in `texts` or in any file of the sessions; no file changed or added
        outside the sessions but the pipeline and `out.csv`."""
        sessions = [p for p in (self.root / ".osiris").rglob("*") if p.is_file()] if (self.root / ".osiris").exists() else []
        seen = [*texts, *(p.read_text(errors="replace") for p in sessions)]
        for planted in (SECRET, CONTENT):
            assert [t for t in seen if planted in t] == [], planted
        now = {p: b for p, b in self.files().items() if p.name not in ("out.csv", "p.yaml")}
        assert now == self.before


def transform(step_id: str, query: str) -> dict[str, Any]:
    return {"id": step_id, "component": "duckdb.processor", "mode": "transform", "needs": ["read"],
            "config": {"query": query}}


def osiris(project: Project, *args: str) -> Any:
    return run_inprocess(*args, cwd=project.root, env=project.env)


# --- validation: OML408 on both engines -------------------------------------------------------------

@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("name, query, code, said", ATTACKS, ids=[a[0] for a in ATTACKS])
def test_each_attack_is_refused_at_validation_on_both_engines(tmp_path, engine, name, query, code, said):
    project = Project(tmp_path, engine)
    path = project.pipeline((name, query), write=name)
    # `osiris validate` knows no engine; `osiris run` on Spark adds the Spark checks before a JVM starts
    done = osiris(project, "validate", str(path)) if engine == "duckdb" else osiris(project, "run", str(path))
    assert done.returncode == 1, done.stderr
    line = next(line for line in (done.stdout + done.stderr).splitlines() if f" {code} " in line)
    assert said in line, line
    assert "Traceback" not in done.stderr
    project.assert_nothing_reached(done.stdout, done.stderr)


def test_a_duckdb_function_whose_spark_form_is_off_the_spark_list_is_refused_for_spark():
    from osiris.run.spark.transpile import spark_issues

    steps = [transform("t", "SELECT md5_number(name) AS h FROM df_read")]
    [issue] = [i for i in spark_issues({"steps": steps}) if i.code == "OML408"]
    assert issue.message == ("step 't': on Spark, the query calls md5_number, which is not on the Spark engine's "
                             "list of functions a transform may call")


def test_the_twins_run_on_duckdb(tmp_path):
    project = Project(tmp_path, "duckdb")
    done = osiris(project, "run", str(project.pipeline(*TWINS.items(), write="jvm")))
    assert done.returncode == 0, done.stderr
    assert (project.root / "out.csv").read_text() == TWIN_CSV
    project.assert_nothing_reached(done.stdout, done.stderr)


# --- run time, validation skipped: the DuckDB engine ------------------------------------------------

@pytest.mark.parametrize("name, query, code, said", ATTACKS, ids=[a[0] for a in ATTACKS])
def test_the_duckdb_engine_refuses_each_attack_when_validation_was_skipped(tmp_path, name, query, code, said):
    from osiris.run.display import Listeners
    from osiris.run.duckdb_run import RunOptions, run_pipeline

    project = Project(tmp_path, "duckdb")
    pipeline = yaml.safe_load(project.pipeline((name, query), write=name).read_text())
    result = run_pipeline(pipeline, RunOptions(connections={}, env=project.env, base_dir=project.root), Listeners())
    by_id = {s.step_id: s for s in result.steps}
    problem = by_id[name].problem
    assert by_id[name].status == "failed" and problem is not None
    assert problem.code == "OML518" and problem.message.startswith(REFUSED_AT_RUN["duckdb"]), problem.message
    assert by_id["write"].status == "skipped" and not (project.root / "out.csv").exists()
    project.assert_nothing_reached(problem.message, problem.hint)


def test_a_second_statement_after_the_query_is_refused_on_duckdb(tmp_path):
    from osiris.run.display import Listeners
    from osiris.run.duckdb_run import RunOptions, run_pipeline

    project = Project(tmp_path, "duckdb")
    query = f"SELECT 1 AS x FROM df_read; COPY df_read TO '{project.outside}/copied.csv'"
    pipeline = yaml.safe_load(project.pipeline(("second", query)).read_text())
    result = run_pipeline(pipeline, RunOptions(connections={}, env=project.env, base_dir=project.root), Listeners())
    [problem] = [s.problem for s in result.steps if s.problem]
    assert (problem.code, problem.message) == ("OML518", REFUSED_AT_RUN["duckdb"] + "the SQL holds more than one "
                                                                                    "statement")
    project.assert_nothing_reached(problem.message)


@pytest.mark.parametrize("query, said", [
    ("SELECT if(id > 0, getenv('OTHER_SECRET'), '') AS f FROM df_read", "the query calls getenv"),
    ("SELECT name.upper().reverse().current_setting() AS f FROM df_read", "the query calls current_setting"),
    ("SELECT * FROM (PIVOT df_read ON name USING count(*))", "PIVOT"),
    ("SELECT * FROM df_read, LATERAL query_table('df_read')", "the table function query_table"),
    ("SELECT * FROM df_other", "the query reads table 'df_other', which is none of its inputs"),
])
def test_duckdbs_own_parse_of_the_sql_is_held_to_the_list(tmp_path, query, said):
    """The second reading (json_serialize_sql): what sqlglot might read otherwise, DuckDB's parser sees."""
    import duckdb

    from osiris.trust.duckdb_sql import unlisted

    con = duckdb.connect()
    con.execute("CREATE TABLE df_read AS SELECT 1 AS id, 'Ann' AS name")
    con.execute("CREATE TABLE df_other AS SELECT 1 AS id")
    reason = unlisted(con, query, ["df_read", "input_df"])
    assert reason is not None and said in reason


# --- the lists: data, each name real, none reaching out ----------------------------------------------

FORMS = {"duckdb": {"cast": "SELECT CAST(1 AS VARCHAR)", "try_cast": "SELECT TRY_CAST('x' AS INTEGER)",
                    "coalesce": "SELECT coalesce(NULL, 1)", "extract": "SELECT extract(year FROM DATE '2024-01-02')",
                    "exists": "SELECT EXISTS (SELECT 1)", "unnest": "SELECT unnest([1, 2])",
                    "columns": "SELECT COLUMNS('a.*') FROM (SELECT 1 AS ab, 2 AS b)"},  # names by pattern
         "spark": {"try_cast": "SELECT TRY_CAST('x' AS INT)"}}
NEVER = ("reflect", "java_method", "try_reflect", "read_text", "read_csv", "read_blob", "glob", "query", "query_table",
         "getenv", "current_setting", "error", "raise_error", "assert_true", "input_file_name", "version",
         "current_user", "from_protobuf", "xpath", "parse_url", "url_decode", "json_serialize_plan", "write_log",
         "duckdb_settings", "pragma_version", "current_query", "getvariable", "nextval", "setval")


@pytest.mark.parametrize("engine", ENGINES)
def test_no_listed_function_matches_a_deny_pattern(engine):
    names = functions(engine)
    assert len(names) > 400  # the common scalar, aggregate and window functions are there
    assert sorted(n for n in names if any(p.search(n) for p in deny_patterns())) == []
    assert sorted(n for n in NEVER if n in names) == []


def test_every_duckdb_listed_function_exists_in_duckdb():
    import duckdb

    con = duckdb.connect()
    offered = {str(r[0]).lower() for r in con.execute("SELECT DISTINCT function_name FROM duckdb_functions() "
                                                      "WHERE function_type IN ('scalar', 'aggregate', 'window', "
                                                      "'macro')").fetchall()}
    assert sorted(functions("duckdb") - offered) == sorted(FORMS["duckdb"])
    for query in FORMS["duckdb"].values():
        con.execute(query).fetchall()


def test_the_valid_corpus_passes_every_check_and_runs_on_duckdb():
    import duckdb
    import sqlglot

    from osiris.run.spark.transpile import NotTranspiled, spark_sql
    from osiris.trust.duckdb_sql import unlisted
    from osiris.trust.sql import outside_reach, refuse_unlisted

    con = duckdb.connect()
    con.execute("CREATE TABLE df_x AS SELECT 1 AS a, 'b' AS b, DATE '2024-01-02' AS d, TIMESTAMP '2024-01-02 03:04:05' "
                "AS ts, 2.5 AS amount, [1, 2] AS l, {'k': 1} AS s, '{\"a\": 1}' AS j")
    con.execute("CREATE TABLE df_y AS SELECT * FROM df_x")
    con.execute("CREATE VIEW input_df AS SELECT * FROM df_x")
    tables = ["df_x", "df_y", "input_df"]
    transpiled = 0
    for query in VALID:
        assert outside_reach(sqlglot.parse_one(query, read="duckdb")) == [], query  # validation
        refuse_unlisted(query, "duckdb", tables)  # run time, sqlglot's reading
        assert unlisted(con, query, tables) is None, query  # run time, DuckDB's reading
        con.execute(query).fetchall()
        try:
            text = spark_sql(query)
        except NotTranspiled:
            continue
        if "_u(" not in text:  # sqlglot's Spark form of range(...) t(i), which Spark refuses anyway (OML412)
            refuse_unlisted(text, "spark", tables)
            transpiled += 1
    assert transpiled >= 35


# --- Spark: one session for every case ---------------------------------------------------------------

@pytest.fixture(scope="module")
def spark():
    from osiris.run.spark.session import spark_session
    from osiris.settings.model import SparkSettings

    return spark_session(SparkSettings(master="local[1]"))


@pytest.mark.xdist_group("spark")
def test_spark_refuses_each_attack_when_validation_was_skipped_and_runs_the_twins(tmp_path, spark):
    """All attacks as steps of one pipeline, straight to the Spark engine; then the twins through
    `osiris run` on Spark (validated, run, written)."""
    from osiris.run.display import Listeners
    from osiris.run.duckdb_run import RunOptions
    from osiris.run.spark.spark_run import run_on_spark
    from osiris.settings.model import SparkSettings

    project = Project(tmp_path, "spark")
    pipeline = yaml.safe_load(project.pipeline(*[(a[0], a[1]) for a in ATTACKS]).read_text())
    result = run_on_spark(pipeline, RunOptions(connections={}, env=project.env, base_dir=project.root),
                          SparkSettings(master="local[1]"), Listeners())
    problems = {s.step_id: s.problem for s in result.steps if s.step_id != "read"}
    assert {n: p.code if p else None for n, p in problems.items()} == {a[0]: "OML518" for a in ATTACKS}
    for problem in problems.values():
        assert problem is not None and problem.message.startswith(REFUSED_AT_RUN["spark"]), problem.message
    project.assert_nothing_reached(*(p.message + p.hint for p in problems.values() if p))

    path = project.pipeline(*TWINS.items(), write="jvm")
    done = osiris(project, "run", str(path))
    assert done.returncode == 0, done.stderr
    assert (project.root / "out.csv").read_text() == TWIN_CSV
    project.assert_nothing_reached(done.stdout, done.stderr)


@pytest.mark.xdist_group("spark")
@pytest.mark.parametrize("text, said", [
    ("SELECT `reflect`('java.lang.System', 'getenv', 'OTHER_SECRET') AS f FROM df_read", "the query calls reflect"),
    ("SELECT IDENTIFIER('java_method')('java.lang.System', 'getenv', 'OTHER_SECRET') AS f FROM df_read", ""),
    ("SELECT * FROM CSV.`{root}/df_read`", "a qualified name"),
    ("SELECT * FROM text.`{root}/df_read`", "a qualified name"),
    ("SELECT * FROM df_read LATERAL VIEW EXPLODE(ARRAY(reflect('a', 'b'))) t AS x", "the query calls reflect"),
])
def test_spark_sql_off_the_list_is_refused_by_the_check_and_by_the_session(tmp_path, spark, text, said):
    """Spark SQL as the engine would run it: the run-time check refuses it (or cannot read it:
    refused too), and the session, asked directly with no check at all, cannot run it either."""
    from pyspark.errors import AnalysisException, ParseException

    from osiris.run.driver import RuntimeProblem
    from osiris.trust.sql import refuse_unlisted

    project = Project(tmp_path, "spark")
    text = text.format(root=project.root)
    with pytest.raises(RuntimeProblem) as refused:
        refuse_unlisted(text, "spark", ["df_read", "input_df"])
    assert refused.value.code == "OML518" and said in refused.value.message
    spark.createDataFrame([(1, "Ann")], "id INT, name STRING").createOrReplaceTempView("df_read")
    with pytest.raises((AnalysisException, ParseException)):
        spark.sql(text).collect()
    assert spark.sql("SELECT '${env:OTHER_SECRET}' AS v").collect()[0].v == "${env:OTHER_SECRET}"  # no substitution
    project.assert_nothing_reached()


@pytest.mark.xdist_group("spark")
def test_every_spark_listed_function_exists_and_the_session_knows_no_other(spark):
    """The session's registry after osiris.run.spark.session dropped the rest: exactly the list (so
    every listed name is one of Spark's built-in functions), and each form runs."""
    registry = spark._jsparkSession.sessionState().functionRegistry().listFunction().iterator()
    known = set()
    while registry.hasNext():
        known.add(str(registry.next().funcName()).lower())
    from osiris.run.spark.session import OSIRIS_OWN_FUNCTIONS

    # Osiris's own reads keep raise_error (a marker, never a value); a pipeline's SQL is still refused it
    assert sorted(known ^ ((functions("spark") - set(FORMS["spark"])) | OSIRIS_OWN_FUNCTIONS)) == []
    assert not OSIRIS_OWN_FUNCTIONS & functions("spark")
    for query in FORMS["spark"].values():
        spark.sql(query).collect()
