"""`osiris run --engine spark` end to end (issue 28, docs/spark.md): a real local Spark (`local[1]`, UI
off, bound to 127.0.0.1), the real PostgreSQL and MariaDB session servers, real files.

Every test here runs on one xdist worker (`xdist_group("spark")`, `--dist loadgroup` in the
Makefile), so CI starts one JVM; the session is shared by the whole file (osiris.run.spark.session).
"""

from __future__ import annotations

import json
import sys

import psycopg
import pytest
import yaml

from tests.conftest import osiris_here
from tests.run_helpers import RunProject, csv_step, mysql_step, pg_step, sql_step

pytestmark = pytest.mark.xdist_group("spark")

SPARK = {"engine": "spark", "spark": {"master": "local[1]"}}


def on_spark(project: RunProject) -> RunProject:
    """The project's settings with `run.engine: spark` on one local core."""
    settings_file = project.root / ".osiris.yaml"
    settings = yaml.safe_load(settings_file.read_text(encoding="utf-8")) or {}
    settings_file.write_text(yaml.safe_dump({**settings, "run": SPARK}), encoding="utf-8")
    return project


def after(step: dict, *inputs: str) -> dict:
    return {**step, "needs": list(inputs)}


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
                                              b'4,,US,14.5\n5,"say ""hi""",DE,2.0\n')  # NULL: an empty field
    spark_totals = sorted(outputs["spark"]["totals.csv"].decode("utf-16").splitlines()[1:])
    assert spark_totals == sorted(outputs["duckdb"]["totals.csv"].decode("utf-16").splitlines()[1:])
    assert outputs["spark"]["totals.csv"][:2] == b"\xff\xfe"  # the byte-order mark, as on DuckDB
    assert not list((project.root / "out").glob(".*partial*"))


def test_sample_writes_csv_under_the_session_and_keeps_the_target(tmp_path):
    project = on_spark(RunProject(tmp_path / "p"))
    (project.root / "rows.csv").write_text("id\n" + "".join(f"{i}\n" for i in range(50)), encoding="utf-8")
    (project.root / "out.csv").write_text("old\n", encoding="utf-8")
    path = project.pipeline([csv_step("read", "read", "rows.csv"), csv_step("write", "write", "out.csv")])
    result = project.run(str(path), "--sample", "7")
    assert result.returncode == 0, result.stderr
    assert "read  ok  7 rows" in result.stdout and "write  ok  7 rows" in result.stdout
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
    assert [r[:2] for r in duck] == [("CZ", 100), ("DE", 100), ("US", 100)]
    assert stage_tables(pg=pg) == []


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
    config = {**postgres_server.connection(), "table": "spark_orders"}
    frame = jdbc.read(spark, "postgres", config, None, partitions=3)
    assert frame.rdd.getNumPartitions() == 3
    assert sorted(r["id"] for r in frame.collect()) == list(range(1, 301))
    assert jdbc.read(spark, "postgres", config, 10, partitions=3).rdd.getNumPartitions() == 1  # a sample: one query


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
        "osiris: error: the Spark engine needs pyspark: pip install 'osiris-chat[spark]' (and Java 17 or newer)"]


def test_the_session_binds_to_loopback_with_its_ui_off():
    from osiris.run.spark.session import spark_session
    from osiris.settings.model import SparkSettings

    conf = spark_session(SparkSettings(master="local[1]")).sparkContext.getConf()
    assert conf.get("spark.driver.bindAddress") == "127.0.0.1" and conf.get("spark.driver.host") == "127.0.0.1"
    assert conf.get("spark.ui.enabled") == "false"
    assert any(jar.endswith("postgresql.jar") for jar in conf.get("spark.jars").split(","))
