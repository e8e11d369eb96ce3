"""`osiris run --engine spark` end to end (issue 28, docs/spark.md): a real local Spark (`local[1]`, UI
off, bound to 127.0.0.1), the real PostgreSQL and MariaDB session servers, real files.

Every test here runs on one xdist worker (`xdist_group("spark")`, `--dist loadgroup` in the
Makefile), so CI starts one JVM; the session is shared by the whole file (osiris.run.spark.session).
"""

from __future__ import annotations

import json
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import psycopg
import pytest
import yaml

from tests.api_fixtures import api, api_server  # noqa: F401  (fixtures)
from tests.conftest import osiris_here
from tests.run_helpers import RunProject, after, csv_step, mysql_step, on_engine, pg_step, sql_step
from tests.effective_config import effective
from tests.support import clean_env, shows_number

pytestmark = pytest.mark.xdist_group("spark")

SPARK = {"engine": "spark", "spark": {"master": "local[1]"}}


def on_spark(project: RunProject) -> RunProject:
    """The project's settings with `run.engine: spark` on one local core."""
    return on_engine(project, "spark")


@pytest.fixture
def pg(postgres_server):
    with psycopg.connect(postgres_server.dsn(), autocommit=True) as conn:
        conn.execute("DROP TABLE IF EXISTS spark_orders, spark_totals_duckdb, spark_totals_spark, spark_checked")
        conn.execute("CREATE TABLE spark_orders (id integer PRIMARY KEY, country text, amount numeric(8,2), "
                     "placed timestamp)")
        conn.execute("INSERT INTO spark_orders SELECT i, (ARRAY['CZ', 'US', 'DE'])[i % 3 + 1], i * 1.25, "
                     "'2024-01-01'::timestamp + i * interval '1 hour' FROM generate_series(1, 300) AS i")
        yield conn


@pytest.fixture
def maria(mariadb_server):
    conn = mariadb_server.connect(autocommit=True)
    with conn.cursor() as cursor:
        cursor.execute("DROP TABLE IF EXISTS spark_people, spark_by_country")
        cursor.execute("CREATE TABLE spark_people (id INT PRIMARY KEY, country VARCHAR(8), score DOUBLE)")
        cursor.executemany("INSERT INTO spark_people VALUES (%s, %s, %s)",
                           [(i, ("CZ", "US", "DE", "FR")[i % 4], i / 4) for i in range(1, 201)])
        cursor.execute("CREATE TABLE spark_by_country (country VARCHAR(8) PRIMARY KEY, people BIGINT, score DOUBLE)")
    yield conn
    conn.close()


def maria_rows(conn, query: str) -> list[tuple]:
    with conn.cursor() as cursor:
        cursor.execute(query)
        return list(cursor.fetchall())


def stage_tables(pg=None, maria=None) -> list[str]:
    """Scratch tables the Spark writer left behind (there must be none)."""
    found = []
    if pg is not None:
        found += [r[0] for r in pg.execute("SELECT tablename FROM pg_tables WHERE tablename LIKE 'osiris_stage_%'")]
    if maria is not None:
        found += [r[0] for r in maria_rows(maria, "SHOW TABLES LIKE 'osiris\\_stage\\_%'")]
    return found


# --- CSV -> transform -> CSV --------------------------------------------------------------------


def test_csv_pipeline_writes_the_same_bytes_on_both_engines(tmp_path):
    project = on_spark(RunProject(tmp_path / "p"))
    (project.root / "people.csv").write_text(
        'id,name,country,amount\n1,Ann,CZ,10.5\n2,"Bob, Jr.",US,3\n3,Cy,CZ,\n4,"",US,7.25\n5,"say ""hi""",DE,1\n',
        encoding="utf-8")
    steps = [csv_step("read", "read", "people.csv"),
             sql_step("shape", "SELECT id, name, upper(country) AS country, amount * 2 AS twice FROM input_df"),
             after(csv_step("write", "write", "out/shaped.csv"), "shape"),
             sql_step("totals", "SELECT country, count(*) AS n, sum(amount) AS total FROM df_read GROUP BY country",
                      needs=["read"]),
             after(csv_step("write-totals", "write", "out/totals.csv", encoding="utf-16"), "totals")]
    path = project.pipeline(steps)
    outputs = {}
    for engine in ("duckdb", "spark"):
        result = project.run(str(path), "--engine", engine)
        assert result.returncode == 0, result.stdout + result.stderr
        assert "shape  ok  5 rows" in result.stdout
        outputs[engine] = {name: (project.root / "out" / name).read_bytes() for name in ("shaped.csv", "totals.csv")}
    assert outputs["spark"]["shaped.csv"] == outputs["duckdb"]["shaped.csv"]
    assert outputs["spark"]["shaped.csv"] == (b'id,name,country,twice\n1,Ann,CZ,21.0\n2,"Bob, Jr.",US,6.0\n3,Cy,CZ,\n'
                                              b'4,"",US,14.5\n5,"say ""hi""",DE,2.0\n')  # NULL empty, '' quoted
    spark_totals = sorted(outputs["spark"]["totals.csv"].decode("utf-16").splitlines()[1:])
    assert spark_totals == sorted(outputs["duckdb"]["totals.csv"].decode("utf-16").splitlines()[1:])
    assert outputs["spark"]["totals.csv"][:2] == b"\xff\xfe"  # the byte-order mark, as on DuckDB
    assert not list((project.root / "out").glob(".*partial*"))
    assert sorted(p.name for p in project.root.iterdir()) == [".osiris", ".osiris.yaml", "out", "people.csv",
                                                             "test-run.yaml"]  # no spark-warehouse/, no derby.log


def test_sample_writes_csv_under_the_session_and_keeps_the_target(tmp_path):
    project = on_spark(RunProject(tmp_path / "p"))
    (project.root / "rows.csv").write_text("id\n" + "".join(f"{i}\n" for i in range(50)), encoding="utf-8")
    (project.root / "out.csv").write_text("old\n", encoding="utf-8")
    path = project.pipeline([csv_step("read", "read", "rows.csv"), csv_step("write", "write", "out.csv")])
    result = project.run(str(path), "--sample", "7")
    assert result.returncode == 0, result.stderr
    assert "read  ok  7 rows" in result.stdout and "write  ok  7 rows" in result.stdout
    assert (project.root / "out.csv").read_text() == "old\n"
    # as on DuckDB (issue 22): the sample's file is kept only with sessions.save_samples, and said
    assert not (project.last_session() / "artifacts" / "sample-output").exists()
    assert "sample output: the files written were not kept (sessions.save_samples: false)" in result.stderr
    settings_file = project.root / ".osiris.yaml"
    settings_file.write_text(settings_file.read_text(encoding="utf-8") + "sessions: {save_samples: true}\n")
    assert project.run(str(path), "--sample", "7").returncode == 0
    assert (project.root / "out.csv").read_text() == "old\n"
    written = project.last_session() / "artifacts" / "sample-output" / "write" / "out.csv"
    assert written.read_text() == "id\n" + "".join(f"{i}\n" for i in range(7))


# --- PostgreSQL and MariaDB, end to end -----------------------------------------------------------


def test_postgres_read_transform_write_equals_the_duckdb_engine(tmp_path, postgres_server, pg):
    project = on_spark(RunProject(tmp_path / "p", postgres=postgres_server))
    for engine in ("duckdb", "spark"):
        path = project.pipeline([
            pg_step("read", "read", table="spark_orders"),
            sql_step("totals", "SELECT country, count(*) AS orders, sum(amount) AS total, max(placed) AS last "
                               "FROM input_df GROUP BY country"),
            pg_step("write", "write", table=f"spark_totals_{engine}", create_if_missing=True, write_mode="upsert",
                    primary_key=["country"])], name=engine)
        result = project.run(str(path), "--engine", engine)
        assert result.returncode == 0, result.stdout + result.stderr
        assert "read  ok  300 rows" in result.stdout and "write  ok  3 rows" in result.stdout
    duck = pg.execute("SELECT * FROM spark_totals_duckdb ORDER BY country").fetchall()
    assert pg.execute("SELECT * FROM spark_totals_spark ORDER BY country").fetchall() == duck
    # the created table's types are the DuckDB engine's: sum(numeric(8,2)) is numeric(38,2), not Spark's (18,2)
    types = ("SELECT attname, format_type(atttypid, atttypmod) FROM pg_attribute WHERE attrelid = %s::regclass "
             "AND attnum > 0 ORDER BY attnum")
    made = pg.execute(types, ("spark_totals_duckdb",)).fetchall()
    assert ("total", "numeric(38,2)") in made
    assert pg.execute(types, ("spark_totals_spark",)).fetchall() == made
    assert [r[:2] for r in duck] == [("CZ", 100), ("DE", 100), ("US", 100)]
    assert stage_tables(pg=pg) == []
    # the Spark run recorded its target as a DuckDB run does (issue 40; it printed `WROTE -`)
    shown = osiris_here("sessions", "show", project.last_session().name, cwd=project.root, env=clean_env())
    assert re.search(r"\nwrite +postgres\.writer +ok +3 +3 .*table spark_totals_spark on @postgres\.default "
                     r"\(upsert\): 3 rows written\n", shown.stdout), shown.stdout
    assert {"kind": "table", "name": "spark_totals_spark", "write_mode": "upsert", "connection": "@postgres.default",
            "rows": 3, "kept": True} in [e for e in project.events() if e["event_type"] == "run_end"][0]["targets"]


def test_mariadb_groups_by_the_column_not_by_its_name(tmp_path, mariadb_server, maria):
    """With a jdbc:mariadb: URL Spark quoted names with " and grouped every row under 'country'."""
    project = on_spark(RunProject(tmp_path / "p", mariadb=mariadb_server))
    path = project.pipeline([
        mysql_step("read", "read", query="SELECT country, score FROM spark_people"),
        sql_step("per-country", "SELECT country, count(*) AS people, sum(score) AS score FROM input_df "
                                "GROUP BY country"),
        mysql_step("write", "write", table="spark_by_country", mode="replace")])
    expected = sorted((country, 50, sum(i / 4 for i in range(1, 201) if ("CZ", "US", "DE", "FR")[i % 4] == country))
                      for country in ("CZ", "US", "DE", "FR"))
    for engine in ("duckdb", "spark"):
        result = project.run(str(path), "--engine", engine)
        assert result.returncode == 0, result.stdout + result.stderr
        assert "per-country  ok  4 rows" in result.stdout
        assert maria_rows(maria, "SELECT * FROM spark_by_country ORDER BY country") == expected, engine
    upsert = project.pipeline([*yaml.safe_load(path.read_text())["steps"][:2],
                               mysql_step("write", "write", table="spark_by_country", mode="upsert",
                                          upsert_keys=["country"])], name="upsert")
    for _round in (1, 2):  # INSERT ... SELECT ... ON DUPLICATE KEY UPDATE from the scratch table
        assert project.run(str(upsert), "--engine", "spark").returncode == 0
    assert maria_rows(maria, "SELECT * FROM spark_by_country ORDER BY country") == expected
    assert stage_tables(maria=maria) == []


def test_a_write_that_fails_part_way_leaves_the_target_unchanged(tmp_path, postgres_server, pg):
    pg.execute("CREATE TABLE spark_checked (id integer PRIMARY KEY, amount numeric(8,2) CHECK (amount < 300))")
    pg.execute("INSERT INTO spark_checked VALUES (1000, 1)")
    project = on_spark(RunProject(tmp_path / "p", postgres=postgres_server))
    path = project.pipeline([pg_step("read", "read", query="SELECT id, amount FROM spark_orders"),
                             pg_step("write", "write", table="spark_checked")])
    _, stderr = project.run_failing([*yaml.safe_load(path.read_text())["steps"]])
    assert "OML514 step 'write': the target rejected the rows" in stderr
    assert pg.execute("SELECT * FROM spark_checked").fetchall() == [(1000, 1)]
    assert stage_tables(pg=pg) == []


def test_sample_keeps_nothing_in_either_database(tmp_path, postgres_server, mariadb_server, pg, maria):
    project = on_spark(RunProject(tmp_path / "p", postgres=postgres_server, mariadb=mariadb_server))
    pg.execute("CREATE TABLE spark_checked (id integer PRIMARY KEY, amount numeric(8,2))")
    path = project.pipeline([
        pg_step("read", "read", query="SELECT id, amount FROM spark_orders"),
        after(pg_step("write-pg", "write", table="spark_checked"), "read"),
        sql_step("people", "SELECT CAST(id AS VARCHAR) AS country, 1 AS people, 2.0 AS score FROM df_read",
                 needs=["read"]),
        after(mysql_step("write-maria", "write", table="spark_by_country"), "people")])
    result = project.run(str(path), "--sample", "5")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "read  ok  5 rows" in result.stdout and "write-maria  ok  5 rows" in result.stdout
    assert pg.execute("SELECT count(*) FROM spark_checked").fetchone() == (0,)
    assert maria_rows(maria, "SELECT count(*) FROM spark_by_country") == [(0,)]
    assert stage_tables(pg=pg, maria=maria) == []


def test_a_wrong_password_is_one_line_without_the_secret(tmp_path, postgres_server, pg):
    project = on_spark(RunProject(tmp_path / "p", postgres=postgres_server))
    wrong = "Wr0ng-spark-secret-7781"
    project.secrets.append(wrong)
    path = project.pipeline([pg_step("read", "read", table="spark_orders"),
                             csv_step("write", "write", "out.csv")])
    result = project.run(str(path), env={"PG_PASSWORD": wrong})
    assert result.returncode == 6
    lines = [line for line in result.stderr.splitlines() if "OML" in line]
    assert lines == [f"{path} OML506 step 'read': postgres rejected the user '{postgres_server.user}': "
                     "password authentication failed"]
    assert "Traceback" not in result.stderr and "Exception" not in result.stderr
    assert "write  skipped" in result.stdout


def test_partitioned_read_splits_on_the_primary_key(postgres_server, pg):
    from osiris.run.spark import jdbc
    from osiris.run.spark.session import spark_session
    from osiris.settings.model import SparkSettings

    spark = spark_session(SparkSettings(master="local[1]"))
    config = effective("postgres.extractor", {**postgres_server.connection(), "table": "spark_orders"})  # as the engine
    frame, _ = jdbc.read(spark, "postgres", config, None, partitions=3)
    assert frame.rdd.getNumPartitions() == 3
    assert sorted(r["id"] for r in frame.collect()) == list(range(1, 301))
    sampled, _ = jdbc.read(spark, "postgres", config, 10, partitions=3)
    assert sampled.rdd.getNumPartitions() == 1  # a sample: one query


# --- validation and the analyser ------------------------------------------------------------------


@pytest.mark.parametrize(("query", "code", "words"), [
    ("SELECT * FROM input_df QUALIFY row_number() OVER (ORDER BY id) = 1", "OML413", "QUALIFY with SELECT *"),
    ("SELECT joined + INTERVAL 1 DAY AS next FROM input_df", "OML413", "a date plus or minus an INTERVAL"),
    ("SELECT dayofweek(joined) AS d FROM input_df", "OML413", "dayofweek"),
    ("SELECT tags[1] AS first FROM input_df", "OML412", "list indexing"),
    ("SELECT * REPLACE (id + 1 AS id) FROM input_df", "OML412", "SELECT * REPLACE"),
    ("SELECT id // 2 AS half FROM input_df", "OML412", "integer division //"),
    ("SELECT id, upper(name) FROM input_df", "OML413", "would be named differently on Spark"),
])
def test_sql_that_differs_on_spark_is_refused_before_anything_runs(tmp_path, query, code, words):
    project = on_spark(RunProject(tmp_path / "p"))
    (project.root / "rows.csv").write_text("id\n1\n", encoding="utf-8")
    path = project.pipeline([csv_step("read", "read", "rows.csv"), sql_step("t", query),
                             csv_step("write", "write", "out.csv")])
    result = project.run(str(path))
    assert result.returncode == 1, result.stdout + result.stderr
    first = result.stderr.splitlines()[0]
    assert first.startswith(f"{path}:") and f" {code} step 't': " in first and words in first
    assert result.stderr.splitlines()[1].startswith("    hint: ")
    assert not (project.root / "out.csv").exists() and not (project.root / ".osiris").exists()


def test_csv_options_spark_cannot_honour_are_refused(tmp_path):
    project = on_spark(RunProject(tmp_path / "p"))
    path = project.pipeline([csv_step("read", "read", "rows.csv", skip_rows=2),
                             csv_step("write", "write", "out.csv", newline="crlf", quoting="all")])
    result = project.run(str(path))
    assert result.returncode == 1
    codes = [line.split()[1] for line in result.stderr.splitlines() if line.startswith(f"{path}:") and " OML" in line]
    assert codes == ["OML414", "OML414", "OML414"]
    assert project.run(str(path), "--engine", "duckdb").returncode == 6  # valid there (rows.csv is missing)


def test_the_analyser_refuses_an_unknown_column_and_no_job_runs(tmp_path):
    project = on_spark(RunProject(tmp_path / "p"))
    (project.root / "rows.csv").write_text("id,email\n1,a@x\n", encoding="utf-8")
    path = project.pipeline([csv_step("read", "read", "rows.csv"),
                             after(csv_step("copy", "write", "copy.csv"), "read"),
                             sql_step("t", "SELECT id, emial FROM df_read", needs=["read"]),
                             after(csv_step("write", "write", "out.csv"), "t")])
    result = project.run(str(path))
    assert result.returncode == 6
    assert f"{path} OML502 step 't': column \"emial\" does not exist" in result.stderr
    assert "hint: columns the database knows: email, id (did you mean 'email'?)" in result.stderr
    assert "copy  skipped" in result.stdout and "write  skipped" in result.stdout
    assert not (project.root / "copy.csv").exists()


# --- settings, the optional extra, the session -----------------------------------------------------


def test_engine_setting_cli_over_env_over_file(tmp_path):
    project = on_spark(RunProject(tmp_path / "p"))
    shown = json.loads(osiris_here("config", "show", "--json", cwd=project.root).stdout)
    assert shown["run.engine"] == {"value": "spark", "source": str(project.root / ".osiris.yaml")}
    assert shown["run.spark.master"]["value"] == "local[1]"
    assert shown["run.spark.jars"] == {"value": [], "source": "default"}
    shown = json.loads(osiris_here("config", "show", "--json", cwd=project.root,
                                   env={"OSIRIS_RUN__ENGINE": "duckdb"}).stdout)
    assert shown["run.engine"] == {"value": "duckdb", "source": "env OSIRIS_RUN__ENGINE"}
    (project.root / "rows.csv").write_text("id\n1\n", encoding="utf-8")
    path = project.pipeline([csv_step("read", "read", "rows.csv"), sql_step("t", "SELECT id, 'x' FROM input_df")])
    assert project.run(str(path), env={"OSIRIS_RUN__ENGINE": "duckdb"}).returncode == 0  # env over file
    assert project.run(str(path), "--engine", "spark", env={"OSIRIS_RUN__ENGINE": "duckdb"}).returncode == 1


def test_without_pyspark_one_line_says_how_to_install_it(tmp_path, monkeypatch):
    """pyspark is installed here; the test hides it (sys.modules[...] = None) to see the other machine."""
    monkeypatch.setitem(sys.modules, "pyspark", None)
    project = on_spark(RunProject(tmp_path / "p"))
    path = project.pipeline([sql_step("t", "SELECT 1 AS one")])
    result = project.run(str(path))
    assert result.returncode == 2
    assert result.stderr.strip().splitlines() == [
        "osiris: error: the Spark engine needs pyspark: run .venv/bin/pip install -e '.[spark]' in the Osiris clone "
        "(and Java 17 or newer)"]
    assert "name = \"osiris-chat\"" in (Path(__file__).parents[1] / "pyproject.toml").read_text()  # the extra is
    # installed from the clone: osiris-chat is not on PyPI


def test_an_unreachable_master_is_one_line_naming_it_within_30_seconds(tmp_path):
    """Spark's own client retried for 60 s and then said `Cannot call methods on a stopped SparkContext`."""
    from tests.servers.process import free_port

    project = RunProject(tmp_path / "p")
    master = f"spark://127.0.0.1:{free_port()}"  # nothing listens there
    (project.root / ".osiris.yaml").write_text(yaml.safe_dump({"run": {"engine": "spark", "spark": {"master": master}}}),
                                               encoding="utf-8")
    (project.root / "rows.csv").write_text("id\n1\n", encoding="utf-8")
    path = project.pipeline([csv_step("read", "read", "rows.csv"), csv_step("write", "write", "out.csv")])
    started = time.monotonic()
    result = project.run(str(path))
    assert time.monotonic() - started < 30
    assert result.returncode == 6, result.stdout + result.stderr
    assert [line for line in result.stderr.splitlines() if " OML" in line] == [
        f"{path} OML527 step 'read': the Spark engine did not start: cannot reach the master {master} "
        "(connection refused)"]
    assert "write  skipped" in result.stdout and not (project.root / "out.csv").exists()


@pytest.mark.parametrize(("family", "step", "jar", "package"), [
    ("postgres", pg_step, "postgresql.jar", "libpostgresql-jdbc-java"),
    ("mysql", mysql_step, "mariadb-java-client.jar", "libmariadb-java")])
def test_a_missing_jdbc_driver_is_one_line_naming_the_jar(tmp_path, monkeypatch, postgres_server, mariadb_server,
                                                          family, step, jar, package):
    """A fresh clone without Debian's JDBC packages: Spark's ClassNotFoundException came only from a job."""
    from osiris.run.spark import session

    monkeypatch.setattr(session, "JAR_FOLDERS", (tmp_path / "no-jars",))
    project = on_spark(RunProject(tmp_path / "p", postgres=postgres_server, mariadb=mariadb_server))
    path = project.pipeline([step("read", "read", table="spark_missing"), csv_step("write", "write", "out.csv")])
    result = project.run(str(path))
    assert result.returncode == 6, result.stdout + result.stderr
    assert [line for line in result.stderr.splitlines() if " OML" in line or "hint:" in line] == [
        f"{path} OML527 step 'read': the Spark engine has no JDBC driver for {family}: "
        f"{tmp_path / 'no-jars' / jar} is missing",
        f"    hint: install it (apt-get install {package}), or name the driver's jar in run.spark.jars"]
    assert "ClassNotFound" not in result.stderr and "Traceback" not in result.stderr


def test_the_session_binds_to_loopback_with_its_ui_off():
    from osiris.run.spark.session import spark_session
    from osiris.settings.model import SparkSettings

    conf = spark_session(SparkSettings(master="local[1]")).sparkContext.getConf()
    assert conf.get("spark.driver.bindAddress") == "127.0.0.1" and conf.get("spark.driver.host") == "127.0.0.1"
    assert conf.get("spark.ui.enabled") == "false"
    assert any(jar.endswith("postgresql.jar") for jar in conf.get("spark.jars").split(","))


# --- parity: every transform query of the project's tests and docs ------------------------------

IDIOMS = [  # DuckDB idioms beyond the project's own queries (issue 28's spike), the failing ones included
    "SELECT country, count(*) AS n, avg(rating) AS r FROM input_df GROUP BY country",
    "SELECT id, coalesce(name, 'none') AS name FROM input_df",
    "SELECT id, CASE WHEN rating > 2 THEN 'high' ELSE 'low' END AS band FROM input_df",
    "SELECT * FROM input_df WHERE email LIKE '%@x.org' AND active = 1",
    "SELECT id, row_number() OVER (PARTITION BY country ORDER BY id) AS rn FROM input_df",
    "WITH c AS (SELECT country, max(rating) AS r FROM input_df GROUP BY country) SELECT * FROM c",
    "SELECT id, strftime(joined, '%Y-%m') AS month FROM input_df",
    "SELECT id, date_trunc('month', joined) AS month FROM input_df",
    "SELECT DISTINCT country FROM input_df",
    "SELECT id, split_part(email, '@', 2) AS domain FROM input_df",
    "SELECT id, round(rating, 1) AS r FROM input_df",
    "SELECT id, CAST(rating AS INTEGER) AS r FROM input_df",
    "SELECT id, isodow(joined) AS d FROM input_df",
    "SELECT id, joined + INTERVAL 1 DAY AS next FROM input_df",
    "SELECT id, dayofweek(joined) AS d FROM input_df",
    "SELECT * FROM input_df QUALIFY row_number() OVER (PARTITION BY country ORDER BY id) = 1",
    "SELECT id, tags[1] AS first FROM input_df",
    "SELECT i FROM generate_series(1, 3) AS s(i)",
    "SELECT id, len(tags) AS n FROM input_df",
    "SELECT * REPLACE (upper(name) AS name) FROM input_df",
    "SELECT id, rating // 2 AS half FROM input_df",
    "PIVOT input_df ON country USING sum(rating)",
    "SELECT id, concat(name, '!') AS shout FROM input_df",
    "SELECT id, length(email) AS n FROM input_df",
    "SELECT country, string_agg(email, ',' ORDER BY email) AS emails FROM input_df GROUP BY country",
    "SELECT id, rating / 0 AS x FROM input_df",
]
LOUD = {  # data-dependent: DuckDB answers (inf, NULL), Spark's ANSI mode fails the step (OML504); docs/spark.md
    "SELECT id, rating / 0 AS x FROM input_df",
}
_DATA = ("SELECT * FROM (VALUES (1, 'a@x.org', 'Ann', 'CZ', 1, 1.5, 1, 10.0, DATE '2024-01-01', ['a', 'b']), "
         "(2, 'b@x.org', NULL, 'US', 0, 2.25, 1, 5.5, DATE '2024-02-29', ['c']), "
         "(3, 'c@y.org', 'Cy', 'CZ', 1, NULL, 2, 7.0, DATE '2024-12-31', []), "
         "(4, NULL, 'Dee', NULL, 1, 3.75, 3, NULL, NULL, NULL)) "
         "AS t(id, email, name, country, active, rating, customer_id, totl, joined, tags)")
_PROCESSOR_QUERY = [
    re.compile(r'"duckdb\.processor", "transform", \{"query": "((?:[^"\\]|\\.)*)"\}'),
    re.compile(r'sql_step\(\s*"[^"]*",\s*"((?:[^"\\]|\\.)*)"'),
]


def project_queries() -> list[str]:
    """Every duckdb.processor query written in the project's tests and docs (and the idioms above)."""
    root = Path(__file__).resolve().parents[1]
    found: list[str] = list(IDIOMS)
    for path in sorted((root / "tests").glob("*.py")):
        text = path.read_text(encoding="utf-8")
        found += [match.group(1).replace('\\"', '"') for pattern in _PROCESSOR_QUERY for match in pattern.finditer(text)]
        found += _yaml_queries(text)
    for path in [root / "README.md", *sorted((root / "docs").glob("*.md"))]:
        found += _yaml_queries(path.read_text(encoding="utf-8"))
    return sorted(set(q for q in found if "{" not in q))


def _reads_outside(query: str) -> bool:
    """The attack queries of the trust tests and docs (read_text, glob, a file as a table): OML408."""
    import sqlglot

    from osiris.trust.sql import outside_reach

    try:
        return bool(outside_reach(sqlglot.parse_one(query, read="duckdb")))
    except sqlglot.errors.SqlglotError:
        return False


def _yaml_queries(text: str) -> list[str]:
    """`query:` lines of YAML within a few lines after `component: duckdb.processor`."""
    queries, lines = [], text.splitlines()
    for index, line in enumerate(lines):
        if "component: duckdb.processor" in line:
            for following in lines[index + 1:index + 6]:
                match = re.match(r"\s*(?:config: \{)?query: (.*?)\}?$", following.strip())
                if match:
                    queries.append(match.group(1).strip().strip("\"'"))
                    break
    return queries


def _normal(rows: list[tuple]) -> list[tuple]:
    return sorted((tuple(round(v, 9) if isinstance(v, float) else v for v in row) for row in rows), key=repr)


def _on_duckdb(query: str, tables: list[str]) -> tuple:
    import duckdb

    con = duckdb.connect()
    for table in tables:
        con.execute(f'CREATE TABLE "{table}" AS {_DATA}')
    try:
        cursor = con.execute(query)
        return "ok", [d[0] for d in cursor.description], _normal(cursor.fetchall())
    except duckdb.Error:
        return ("error",)


def _on_spark(spark, data, query: str, tables: list[str]) -> tuple:
    from osiris.run.spark.transpile import NotTranspiled, spark_sql

    for table in tables:
        data.createOrReplaceTempView(table)
    from pyspark.errors import AnalysisException

    try:
        frame = spark.sql(spark_sql(query))
    except (NotTranspiled, AnalysisException):  # the engine's plan refuses it before any job runs
        return ("refused",)
    try:
        return "ok", frame.columns, _normal([tuple(row) for row in frame.collect()])
    except Exception:  # any error of a job is an error outcome, compared below
        return ("error",)


def test_every_project_query_gives_the_same_rows_or_is_refused_on_spark():
    import sqlglot
    from sqlglot import exp

    from osiris.run.spark.session import spark_session
    from osiris.run.spark.transpile import spark_issues
    from osiris.settings.model import SparkSettings

    import duckdb

    spark = spark_session(SparkSettings(master="local[1]"))
    data = spark.createDataFrame(duckdb.connect().sql(_DATA).to_arrow_table()).cache()
    queries = project_queries()
    assert len(queries) >= 40 and "SELECT country, count(*) AS customers FROM input_df GROUP BY country" in queries
    outcomes: dict[str, list[str]] = {"same": [], "refused": [], "both fail": []}
    for query in queries:
        pipeline = {"steps": [{"id": "t", "component": "duckdb.processor", "config": {"query": query}}]}
        if spark_issues(pipeline) or _reads_outside(query):  # OML408: validation refuses it for both engines
            outcomes["refused"].append(query)
            continue
        try:
            tables = sorted({t.name for t in sqlglot.parse_one(query, read="duckdb").find_all(exp.Table)} | {"input_df"})
        except sqlglot.errors.SqlglotError:
            tables = ["input_df"]
        duck, on_spark = _on_duckdb(query, tables), _on_spark(spark, data, query, tables)
        if on_spark == ("refused",):
            outcomes["refused"].append(query)
            continue
        if query in LOUD:
            assert on_spark == ("error",), query
            continue
        assert on_spark == duck, query
        outcomes["same" if duck[0] == "ok" else "both fail"].append(query)
    print({outcome: len(found) for outcome, found in outcomes.items()})  # docs/spark.md quotes these
    assert len(outcomes["same"]) >= 20, outcomes
    assert {"SELECT id, tags[1] AS first FROM input_df", "PIVOT input_df ON country USING sum(rating)",
            "SELECT id, dayofweek(joined) AS d FROM input_df"} <= set(outcomes["refused"])


def test_the_duckdb_engine_and_validate_never_import_pyspark(tmp_path):
    """A real process: a DuckDB run (with the Spark settings present) and a validate load no JVM bridge."""
    import subprocess

    from tests.support import clean_env

    project = on_spark(RunProject(tmp_path / "p"))
    (project.root / "rows.csv").write_text("id\n1\n", encoding="utf-8")
    path = project.pipeline([csv_step("read", "read", "rows.csv"), csv_step("write", "write", "out.csv")])
    probe = ("import sys; from osiris.cli import main; code = main(sys.argv[1:]); "
             "print(sorted(m for m in ('pyspark', 'py4j', 'pyarrow') if m in sys.modules))")
    for argv in (["run", str(path), "--engine", "duckdb"], ["validate", str(path)]):
        done = subprocess.run([sys.executable, "-c", probe, *argv], cwd=project.root, env=clean_env(),
                              capture_output=True, text=True, timeout=120)
        assert done.stdout.strip().splitlines()[-1] == "[]", done.stdout + done.stderr


# --- API reads through their drivers; errors that must not show raw --------------------------------


def test_an_api_read_goes_through_its_driver_and_reaches_spark(tmp_path, api):
    from tests.servers.http_apis import RECORDS

    project = on_spark(RunProject(tmp_path / "p"))
    path = project.pipeline([
        {"id": "get", "component": "rest.extractor", "mode": "read",
         "config": {"base_url": api.url, "endpoint": "/all", "data_path": "data.items"}},
        sql_step("pick", "SELECT id, name FROM input_df ORDER BY id"),
        csv_step("write", "write", "out.csv")])
    result = project.run(str(path))
    assert result.returncode == 0, result.stdout + result.stderr
    assert "get  ok  23 rows" in result.stdout
    assert (project.root / "out.csv").read_text() == "id,name\n" + "".join(f"{r['id']},{r['name']}\n" for r in RECORDS)


def test_a_value_spark_cannot_read_fails_the_read_without_showing_it(tmp_path):
    project = on_spark(RunProject(tmp_path / "p"))
    (project.root / "rows.csv").write_text("id,email\n1,a@x\nsecret-cell-value-42,b@x\n", encoding="utf-8")
    path = project.pipeline([csv_step("read", "read", "rows.csv", dtype={"id": "BIGINT", "email": "VARCHAR"}),
                             csv_step("write", "write", "out.csv")])
    result = project.run(str(path))
    assert result.returncode == 6, result.stdout + result.stderr
    [line] = [line for line in result.stderr.splitlines() if " OML" in line]
    assert line.startswith(f"{path} OML5") and "step 'read'" in line
    assert "secret-cell-value-42" not in result.stdout + result.stderr
    assert "Exception" not in result.stderr and "org.apache" not in result.stderr and "Traceback" not in result.stderr
    assert not (project.root / "out.csv").exists()


def test_without_java_the_engine_does_not_start_and_says_so(tmp_path):
    """A real process with JAVA_HOME pointing nowhere: Spark's launcher cannot start the JVM."""
    project = on_spark(RunProject(tmp_path / "p"))
    (project.root / "rows.csv").write_text("id\n1\n", encoding="utf-8")
    path = project.pipeline([csv_step("read", "read", "rows.csv"), csv_step("write", "write", "out.csv")])
    result = project.run(str(path), env={"JAVA_HOME": str(tmp_path / "no-java")}, process=True)
    assert result.returncode == 6, result.stdout + result.stderr
    [line] = [line for line in result.stderr.splitlines() if " OML" in line]
    assert line.startswith(f"{path} OML527 step 'read': the Spark engine did not start")
    assert "    hint: check run.spark.master (osiris config show) and that Java 17 or newer is installed" in result.stderr
    assert "write  skipped" in result.stdout


def test_the_trust_boundary_holds_on_spark_when_validation_was_skipped(tmp_path, api):
    """Issue 22 on the Spark engine (docs/security.md): Spark has no DuckDB sandbox, so each step is
    checked before Spark sees it. The pipelines go straight to the engine, as an unvalidated one would."""
    from osiris.run.display import Listeners
    from osiris.run.duckdb_run import RunOptions
    from osiris.run.spark.spark_run import run_on_spark
    from osiris.settings.model import SparkSettings
    from tests.servers.http_apis import TOKEN

    project, outside = tmp_path / "p", tmp_path / "outside"
    project.mkdir()
    outside.mkdir()
    (outside / "secret.csv").write_text("id\n42\n")
    (project / "rows.csv").write_text("id\n1\n2\n")
    (project / "out").symlink_to(outside)
    options = RunOptions(connections={"rest": {"api": {"base_url": api.url, "auth_type": "bearer",
                                                       "auth_token": "${API_TOKEN}"}}},
                         env={"API_TOKEN": TOKEN}, base_dir=project, sample=2)
    read = csv_step("read", "read", "rows.csv")
    hostile = {
        "move": [{"id": "get", "component": "rest.extractor", "mode": "read",
                  "config": {"connection": "@rest.api", "base_url": "http://127.0.0.1:9", "endpoint": "/bearer"}}],
        "sql": [read, after(sql_step("shape", f"SELECT * FROM read_csv('{outside}/secret.csv')"), "read")],
        "read": [csv_step("read", "read", "../outside/secret.csv")],
        "write": [read, after(csv_step("write", "write", "out/x.csv"), "read")],
    }
    codes = {}
    for name, steps in hostile.items():
        result = run_on_spark({"steps": steps}, options, SparkSettings(master="local[1]"), Listeners())
        codes[name] = [s.problem.code for s in result.steps if s.problem]
    assert codes == {"move": ["OML518"], "sql": ["OML518"], "read": ["OML517"], "write": ["OML517"]}
    assert sorted(p.name for p in outside.iterdir()) == ["secret.csv"] and api.hits("/bearer") == []


def test_ctrl_c_in_the_middle_of_a_write_stops_spark_and_leaves_nothing_behind(tmp_path, postgres_server, pg):
    """A real `osiris run` process with its own JVM: SIGINT once Spark is filling the scratch table.
    The run ends 130 with the step interrupted and no traceback, the target as it was, the scratch
    table dropped, and the JVM gone (it would otherwise hold the table until its tasks ended)."""
    pg.execute("DROP TABLE IF EXISTS spark_big, spark_kept")
    pg.execute("CREATE TABLE spark_big AS SELECT g AS id, repeat('x', 40) AS v FROM generate_series(1, 1000000) g")
    pg.execute("CREATE TABLE spark_kept (id integer PRIMARY KEY, v text)")
    pg.execute("INSERT INTO spark_kept VALUES (-1, 'kept')")
    project = on_spark(RunProject(tmp_path / "p", postgres=postgres_server))
    path = project.pipeline([pg_step("read", "read", table="spark_big"),
                             pg_step("write", "write", table="spark_kept", write_mode="replace")], name="big")
    others = _spark_jvms()  # this test process's own session, started by the tests before
    process = subprocess.Popen([sys.executable, "-m", "osiris", "run", str(path)], cwd=project.root,
                               env=clean_env(**project.env), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 240  # a wait for an event (a JVM's start, the read), not a measurement
    while not stage_tables(pg=pg):
        assert process.poll() is None and time.monotonic() < deadline, "Spark never began writing"
        time.sleep(0.05)
    jvms = _spark_jvms() - others
    assert jvms, "the run's JVM was not found"
    process.send_signal(signal.SIGINT)
    stdout, stderr = process.communicate(timeout=120)
    assert process.returncode == 130, stderr
    assert "write  interrupted" in stdout
    assert "Traceback" not in stderr and "Error" not in stderr, stderr
    assert pg.execute("SELECT * FROM spark_kept").fetchall() == [(-1, "kept")]
    assert stage_tables(pg=pg) == []
    while jvms & _spark_jvms():
        assert time.monotonic() < deadline, "the run's JVM outlived it"
        time.sleep(0.1)
    project.assert_no_secrets(stdout + stderr)


def _spark_jvms() -> set[int]:
    """The process ids of the running Spark JVMs on this machine (a zombie has no command line)."""
    found = subprocess.run(["pgrep", "-f", "org.apache.spark.deploy.SparkSubmit"], capture_output=True, text=True)
    return {int(pid) for pid in found.stdout.split()}


# --- docs/types.md on Spark: the DuckDB engine's bytes, or its refusal (issue 40) ----------------

PG_EDGES = ("DROP TABLE IF EXISTS spark_edges; CREATE TABLE spark_edges (id int PRIMARY KEY, t text, d date, "
            "ts timestamp, f8 float8, f4 real, tm time, tz timetz, n numeric, arr int[]); INSERT INTO spark_edges VALUES "
            "(1, '  lead', '1582-10-10', '1582-10-10 12:00:00', 1e-10, 3.4028235e38, '08:30:00', '12:00:00+02', "
            "'1e-40', '{1,NULL}'), (2, ' ', '1000-01-01', '0001-01-01 00:00:00.5', 1e20, 0.1, '24:00:00', NULL, "
            "'123456789012345678901234567890123456789012.5', '{}'), (3, E'\\t trail ', NULL, NULL, 'NaN', '-Infinity', "
            "NULL, NULL, 'NaN', NULL)")
MARIA_EDGES = ["DROP TABLE IF EXISTS spark_edges",
               "CREATE TABLE spark_edges (id INT PRIMARY KEY, t1 TINYINT(1), y YEAR, b8 BIT(8), e ENUM('red','green'), "
               "s SET('a','bb'), d6 DATETIME(6), tm TIME(6), c CHAR(5), ts TIMESTAMP(6) NULL)",
               "INSERT INTO spark_edges VALUES (1, 2, 2024, b'10101010', 'red', 'a,bb', '1000-01-01 00:00:00', "
               "'08:30:00', 'ab', '2024-06-01 12:07:00.5'), (2, 0, NULL, NULL, 'green', '', NULL, '838:59:59', NULL, NULL)"]


@pytest.fixture(scope="module")
def edges(postgres_server, mariadb_server):
    """docs/types.md's matrix sources (tests/test_type_matrix.py) and the values issue 40 saw change."""
    from tests.test_type_matrix import MARIA_SOURCE, PG_SOURCE

    with psycopg.connect(postgres_server.dsn(), autocommit=True) as conn:
        conn.execute(PG_SOURCE)
        conn.execute(PG_EDGES)
    conn = mariadb_server.connect(autocommit=True, init_command="SET time_zone = '+00:00'")
    with conn.cursor() as cursor:
        for table in ("tm_src", "tm_back", "tm_zero", "tm_instants"):
            cursor.execute(f"DROP TABLE IF EXISTS {table}")
        for statement in MARIA_SOURCE + MARIA_EDGES:
            cursor.execute(statement)
    conn.close()
    return postgres_server, mariadb_server


PG_MATRIX = ("SELECT id, t, sm, i, b, wide, nnan, dec, f8, f8n, f4, dn, ts, tstz, tm, iv, ivt, by, bo, js, u, arr, "
             "tarr, bits, mood, tz FROM tm_src")  # all but `d`, whose `infinity` Spark refuses (the next test)


@pytest.mark.parametrize("source", [
    pg_step("read", "read", query=PG_MATRIX), pg_step("read", "read", table="spark_edges"),
    mysql_step("read", "read", table="tm_src"), mysql_step("read", "read", table="spark_edges")],
    ids=["postgres-matrix", "postgres-edges", "mariadb-matrix", "mariadb-edges"])
def test_every_value_reaches_csv_as_the_duckdb_engine_writes_it(tmp_path, edges, source):
    """Before: 1582-10-10 -> 1582-10-20, 0001-01-01 -> 0000-12-30, '  lead' -> 'lead', 1e-10 -> 1.0E-10, TIME as
    a 1970 timestamp, BIT as the bytes of its text, YEAR a date, TINYINT(1) true, TIMESTAMP shifted by the
    server's +09:00, BLOB as [00 FF 10], DECIMAL(65,30) cut to 3 decimals: each with the run `ok`."""
    project = on_spark(RunProject(tmp_path / "p", postgres=edges[0], mariadb=edges[1]))
    written = {}
    for engine in ("duckdb", "spark"):
        path = project.pipeline([source, csv_step("write", "write", f"{engine}.csv")], name=engine)
        result = project.run(str(path), "--engine", engine)
        assert result.returncode == 0, result.stdout + result.stderr
        written[engine] = (project.root / f"{engine}.csv").read_bytes()
    if source["config"].get("query") == PG_MATRIX:  # `interval`: PostgreSQL's text on Spark (docs/types.md)
        for engine, text in (("duckdb", b",-1 year -2 months 3 days -04:05:06.5,"),
                             ("spark", b",-1 years -2 mons +3 days -04:05:06.5,")):
            assert text in written[engine]
            written[engine] = written[engine].replace(text, b",<interval>,")
    assert written["spark"] == written["duckdb"]
    if source["config"].get("table") == "spark_edges" and source["component"].startswith("postgres"):
        assert written["spark"].splitlines()[1].startswith(b'1,  lead,1582-10-10,1582-10-10 12:00:00,1e-10,')


def test_a_csv_file_reads_and_writes_as_on_the_duckdb_engine(tmp_path, edges):
    """Spark's CSV reader takes what the DuckDB engine wrote (dates of the year 1, `+00` instants, `nan`,
    numbers a double would not hold) and both engines write it again alike. Before: `Encountered error
    while reading file` (OML528), the path of issue 40's CSV -> MariaDB."""
    project = on_spark(RunProject(tmp_path / "p", postgres=edges[0]))
    first = project.pipeline([pg_step("read", "read", query=PG_MATRIX), csv_step("write", "write", "a.csv")],
                             name="first")
    assert project.run(str(first), "--engine", "duckdb").returncode == 0
    for engine in ("duckdb", "spark"):
        again = project.pipeline([csv_step("read", "read", "a.csv"), csv_step("write", "write", f"{engine}.csv")],
                                 name=engine)
        result = project.run(str(again), "--engine", engine)
        assert result.returncode == 0, result.stdout + result.stderr
    assert (project.root / "spark.csv").read_bytes() == (project.root / "duckdb.csv").read_bytes()
    assert b",0001-01-01 00:00:00,2024-03-31 00:59:59.999999+00," in (project.root / "spark.csv").read_bytes()


@pytest.mark.parametrize(("step", "line"), [
    (pg_step("read", "read", query="SELECT id, d FROM tm_src"),
     "column 'd' holds infinite dates (infinity, -infinity) in 1 row, which the Spark engine's DATE cannot hold"),
    (pg_step("read", "read", query="SELECT id, bc FROM tm_pg_bad"),
     "column 'bc' holds a date before the year 1 (BC), which the engine's DATE cannot hold"),
    (mysql_step("read", "read", table="tm_zero"),
     "column 'd' holds a zero or partial date (0000-00-00, 2024-00-15) in 2 rows, which no date type outside MySQL "
     "has")], ids=["infinity", "bc", "zero-dates"])
def test_a_value_spark_cannot_hold_is_refused_naming_its_column(tmp_path, edges, step, line):
    """Before: infinity failed as a Java error, MariaDB's 0000-00-00 became NULL with the run `ok`."""
    project = on_spark(RunProject(tmp_path / "p", postgres=edges[0], mariadb=edges[1]))
    path, stderr = project.run_failing([step, csv_step("write", "write", "out.csv")])
    assert f"{path} OML504 step 'read': {line}\n" in stderr
    assert "nothing was written (docs/types.md)" in stderr and not shows_number(stderr, "0044")  # 0044-03-15 BC
    assert not (project.root / "out.csv").exists()


def test_rows_spark_stages_go_through_the_writers_refusals(tmp_path, edges, maria):
    """Before: Spark's rows went into the scratch table and the target without the per-value checks."""
    project = on_spark(RunProject(tmp_path / "p", postgres=edges[0], mariadb=edges[1]))
    path, stderr = project.run_failing([pg_step("read", "read", query="SELECT id, f8 FROM tm_src"),
                                        mysql_step("write", "write", table="spark_refused", create_table=True)])
    assert (f"{path} OML504 step 'write': column 'f8' holds NaN or infinite values in 3 rows, which MySQL cannot "
            "store\n") in stderr
    assert maria_rows(maria, "SHOW TABLES LIKE 'spark_refused'") == [] and stage_tables(maria=maria) == []


# --- a real standalone cluster: a master and a worker from the pyspark package, on 127.0.0.1 ----


@pytest.fixture
def standalone_master(tmp_path):
    """`spark-class ...Master` and `...Worker` (one core, 1 GB) on loopback ports; stopped by PID."""
    import os

    import pyspark

    from tests.servers.process import free_port

    spark_class = Path(pyspark.__file__).parent / "bin" / "spark-class"
    port = free_port()
    master = f"spark://127.0.0.1:{port}"
    env = {**os.environ, "SPARK_LOCAL_IP": "127.0.0.1", "SPARK_LOG_DIR": str(tmp_path / "logs")}
    processes = []
    try:
        for role, args in (("master", ["org.apache.spark.deploy.master.Master", "--host", "127.0.0.1",
                                       "--port", str(port), "--webui-port", str(free_port())]),
                           ("worker", ["org.apache.spark.deploy.worker.Worker", master, "--host", "127.0.0.1",
                                       "--webui-port", str(free_port()), "--cores", "1", "--memory", "1g",
                                       "--work-dir", str(tmp_path / "work")])):
            log = (tmp_path / f"{role}.log").open("wb")
            processes.append(subprocess.Popen([str(spark_class), *args], stdout=log, stderr=subprocess.STDOUT, env=env))
            deadline = time.monotonic() + 180
            ready = "Successfully registered with master" if role == "worker" else "I have been elected leader"
            while ready not in (tmp_path / f"{role}.log").read_text(errors="replace"):
                assert time.monotonic() < deadline and processes[-1].poll() is None, \
                    (tmp_path / f"{role}.log").read_text(errors="replace")[-2000:]
                time.sleep(1)
        yield master
    finally:
        for process in reversed(processes):
            process.terminate()
            try:
                process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


def test_a_standalone_cluster_writes_what_the_duckdb_engine_writes(tmp_path, postgres_server, pg, standalone_master):
    """The run's driver is a child `osiris run` (this file's local session stays as it is); its executor is
    the worker's: JDBC jars and the CSV writer's number texts travel to it."""
    project = RunProject(tmp_path / "p", postgres=postgres_server)
    steps = [pg_step("read", "read", table="spark_orders"),
             sql_step("totals", "SELECT country, count(*) AS orders, sum(amount) AS total, max(placed) AS last, "
                                "sum(amount) / 1e12 AS tiny FROM input_df GROUP BY country ORDER BY country"),
             after(csv_step("write", "write", "totals.csv"), "totals")]
    path = project.pipeline(steps)
    assert project.run(str(path), "--engine", "duckdb").returncode == 0
    expected = (project.root / "totals.csv").read_bytes()
    (project.root / "totals.csv").unlink()
    settings = yaml.safe_load((project.root / ".osiris.yaml").read_text(encoding="utf-8"))
    settings["run"] = {"engine": "spark", "spark": {"master": standalone_master}}
    (project.root / ".osiris.yaml").write_text(yaml.safe_dump(settings), encoding="utf-8")
    from tests.support import run_osiris

    result = run_osiris("run", str(path), cwd=project.root, env=clean_env(**project.env), timeout=600)  # a cluster
    project.assert_no_secrets(result.stdout + result.stderr)  # on a machine under load starts slowly
    assert result.returncode == 0, result.stdout + result.stderr
    assert "write  ok  3 rows" in result.stdout
    assert (project.root / "totals.csv").read_bytes() == expected
    assert b"e-" in expected  # a tiny double: DuckDB's 1.8e-08, never Java's 1.8E-8
    assert "app-" in "".join(p.name for p in (tmp_path / "work").iterdir())  # the worker ran the application
