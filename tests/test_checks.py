"""Checks on data (docs/run-again.md): their shape at validation (OML217, OML405, OML408), and at
run time an error-level failure stops the run before any writer commits (OML537, naming the step,
the check and the number of failing rows, never a value), a warning-level one is a warning
(OML538). On real files and a real PostgreSQL."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import psycopg
import pytest

from osiris.registry import load_registry
from osiris.validate.validator import Validator
from tests.run_helpers import RunProject, csv_step, pg_step, sql_step

SECRET_VALUE = "zz-private-value-7"  # a value of the data: never in a message, event or file of the trail
PEOPLE = f"id,email,status\n1,ann@x.org,active\n2,,active\n3,cid@x.org,{SECRET_VALUE}\n3,dup@x.org,closed\n"


def validate(steps_yaml: str) -> list[tuple[str, str, str]]:
    text = f'oml_version: "0.1.0"\nname: checked\nsteps:\n{steps_yaml}'
    report = Validator(load_registry()).validate(text)
    return [(i.code, i.path, i.message) for i in report.issues]


READ = "  - id: read\n    component: filesystem.csv_extractor\n    mode: read\n    config: {path: p.csv}\n"


def test_well_formed_checks_validate():
    assert validate(READ + """    checks:
      - not_null: [email]
      - unique: [id]
      - accepted_values: {status: [active, closed]}
      - row_count: {min: 1, max: 100}
      - expression: "id > 0 AND email LIKE '%@%'"
        level: warning
""") == []


@pytest.mark.parametrize("checks, expected", [
    ("[{not_nul: [email]}]", ("OML217", "/steps/0/checks/0/not_nul", "unknown check 'not_nul'")),
    ("[{not_null: email, unique: [id]}]", ("OML217", "/steps/0/checks/0", "check 0 must name exactly one kind of check, not 2")),
    ("[{row_count: {min: 5, max: 1}}]", ("OML217", "/steps/0/checks/0/row_count", "row_count's min 5 is above its max 1")),
    ("[{not_null: [email], level: fatal}]", ("OML217", "/steps/0/checks/0/level", "level 'fatal' is not error or warning")),
    ("{not_null: [email]}", ("OML217", "/steps/0/checks", "checks must be a list")),
])
def test_malformed_checks_are_oml217(checks, expected):
    assert expected in validate(READ + f"    checks: {checks}\n")


def test_an_unknown_kind_suggests_the_closest():
    text = f'oml_version: "0.1.0"\nname: checked\nsteps:\n{READ}    checks: [{{not_nul: [email]}}]\n'
    [issue] = Validator(load_registry()).validate(text).issues
    assert issue.hint.endswith("(did you mean 'not_null'?)")


def test_expression_sql_is_held_to_the_transform_rules():
    found = validate(READ + "    checks: [{expression: \"id IN (SELECT * FROM read_csv('/etc/passwd'))\"}]\n")
    assert [code for code, _, _ in found] == ["OML408"]
    found = validate(READ + "    checks: [{expression: \"id > (\"}]\n")
    assert [code for code, _, _ in found] == ["OML405"]
    found = validate(READ + "    checks: [{expression: \"true) OR (true\"}]\n")
    assert found == [] or [code for code, _, _ in found] == ["OML405"]


def test_checks_on_a_writer_are_oml217():
    found = validate(READ + "  - id: write\n    component: filesystem.csv_writer\n    mode: write\n"
                            "    config: {path: out.csv}\n    checks: [{not_null: [email]}]\n")
    assert [(c, p) for c, p, _ in found] == [("OML217", "/steps/1/checks")]


# --- runs ----------------------------------------------------------------------------------------

@pytest.fixture
def files(tmp_path: Path) -> RunProject:
    proj = RunProject(tmp_path / "project")
    (proj.root / "people.csv").write_text(PEOPLE)
    (proj.root / "out.csv").write_text("before\n")
    (proj.root / "first.csv").write_text("before\n")
    return proj


def checked(checks: list[dict[str, Any]]) -> dict[str, Any]:
    return {**csv_step("read-people", "read", "people.csv"), "checks": checks}


FAILING_CHECKS = [  # each check kind and the line it fails with (tests/test_spark_data_checks.py too)
    ({"not_null": ["email"]}, "check failed: not_null(email): 1 of 4 rows are empty (NULL)"),
    ({"unique": ["id"]}, "check failed: unique(id): 2 of 4 rows share their key with another row"),
    ({"accepted_values": {"status": ["active", "closed"]}}, "check failed: accepted_values(status): 1 of 4 rows hold a value not accepted"),
    ({"row_count": {"min": 5}}, "check failed: row_count: 4 rows, at least 5 expected"),
    ({"expression": "id < 3"}, "check failed: expression: 2 of 4 rows do not satisfy 'id < 3'"),
]


@pytest.mark.parametrize("check, line", FAILING_CHECKS)
def test_an_error_level_failure_stops_the_run_before_any_writer(files, check, line):
    failure_stops_the_run_before_any_writer(files, check, line)


def failure_stops_the_run_before_any_writer(files: RunProject, check: dict[str, Any], line: str) -> None:
    # the first writer is written before the checked step: the checked step still runs first
    steps = [csv_step("read-first", "read", "people.csv"), csv_step("write-first", "write", "first.csv"),
             checked([check]), csv_step("write", "write", "out.csv")]
    path, stderr = files.run_failing(steps)
    assert f"{path} OML537 step 'read-people': {line}\n" in stderr
    assert (files.root / "out.csv").read_text() == "before\n"
    assert (files.root / "first.csv").read_text() == "before\n"
    everything = stderr + "".join(p.read_text() for p in (files.root / ".osiris").rglob("*") if p.is_file())
    assert SECRET_VALUE not in everything


def test_several_failing_checks_are_one_line(files):
    path, stderr = files.run_failing([checked([{"not_null": ["email"]}, {"unique": ["id"]}]),
                                      csv_step("write", "write", "out.csv")])
    assert ("OML537 step 'read-people': checks failed: not_null(email): 1 of 4 rows are empty (NULL); "
            "unique(id): 2 of 4 rows share their key with another row\n") in stderr
    assert "write  skipped" in files.run(str(path)).stdout


def test_a_warning_level_failure_lets_the_run_succeed_with_a_warning(files):
    warning_lets_the_run_succeed(files)


def warning_lets_the_run_succeed(files: RunProject) -> None:
    path = files.pipeline([checked([{"not_null": ["email"], "level": "warning"}]),
                           csv_step("write", "write", "out.csv")])
    result = files.run(str(path), "--json")
    assert result.returncode == 0, result.stderr
    assert f"{path} OML538 warning: step 'read-people': check not_null(email): 1 of 4 rows are empty (NULL)\n" in result.stderr
    [problem] = json.loads(result.stdout)["problems"]
    assert (problem["step"], problem["severity"], problem["code"], problem["message"]) == (
        "read-people", "warning", "OML538", "check not_null(email): 1 of 4 rows are empty (NULL)")
    assert (files.root / "out.csv").read_text().startswith("id,email,status\n")


def test_checks_run_on_a_transform_and_on_a_sample(files):
    a_transform_is_checked_on_a_sample(files)


def a_transform_is_checked_on_a_sample(files: RunProject) -> None:
    path = files.pipeline([csv_step("read-people", "read", "people.csv"),
                           sql_step("emails", "SELECT id, email FROM input_df", checks=[{"not_null": ["email"]}]),
                           csv_step("write", "write", "out.csv")])
    result = files.run(str(path), "--sample", "3")
    assert result.returncode == 6
    assert "OML537 step 'emails': check failed: not_null(email): 1 of 3 rows are empty (NULL)" in result.stderr


def test_a_check_on_a_column_the_rows_lack_fails_naming_it(files):
    path, stderr = files.run_failing([checked([{"not_null": ["emial"], "level": "warning"}]),
                                      csv_step("write", "write", "out.csv")])
    assert ("OML537 step 'read-people': check failed: not_null(emial): the rows have no column 'emial' "
            "(columns: id, email, status); the check cannot run\n") in stderr


def test_a_failing_check_leaves_postgres_targets_as_they_were(tmp_path: Path, postgres_server: Any):
    failing_check_leaves_postgres_targets(RunProject(tmp_path / "project", postgres=postgres_server), postgres_server)


def failing_check_leaves_postgres_targets(proj: RunProject, postgres_server: Any) -> None:
    """Shared with the Spark engine's test (tests/test_spark_data_checks.py)."""
    with psycopg.connect(postgres_server.dsn(), autocommit=True) as pg:
        pg.execute("DROP TABLE IF EXISTS ck_source, ck_a, ck_b")
        pg.execute("CREATE TABLE ck_source (id int, email text)")
        pg.execute("INSERT INTO ck_source VALUES (1, 'a@x.org'), (2, NULL)")
        for table in ("ck_a", "ck_b"):
            pg.execute(f"CREATE TABLE {table} (id int, email text)")
            pg.execute(f"INSERT INTO {table} VALUES (0, 'kept@x.org')")
        steps = [pg_step("read-a", "read", query="SELECT id, email FROM ck_source WHERE email IS NOT NULL"),
                 pg_step("write-a", "write", table="ck_a", write_mode="replace"),
                 {**pg_step("read-b", "read", query="SELECT id, email FROM ck_source"),
                  "checks": [{"not_null": ["email"]}]},
                 pg_step("write-b", "write", table="ck_b", write_mode="append")]
        path, stderr = proj.run_failing(steps)
        assert f"{path} OML537 step 'read-b': check failed: not_null(email): 1 of 2 rows are empty (NULL)\n" in stderr
        for table in ("ck_a", "ck_b"):
            assert pg.execute(f"SELECT id, email FROM {table}").fetchall() == [(0, "kept@x.org")]
        steps[2]["checks"] = [{"not_null": ["email"], "level": "warning"}]
        result = proj.run(str(proj.pipeline(steps)))
        assert result.returncode == 0, result.stderr
        assert pg.execute("SELECT count(*) FROM ck_b").fetchone() == (3,)
        pg.execute("DROP TABLE ck_source, ck_a, ck_b")


def test_columns_a_step_lacks_are_oml406_where_the_pipeline_tells():
    found = validate(READ.replace("filesystem.csv_extractor", "duckdb.processor").replace("mode: read", "mode: transform")
                     .replace("config: {path: p.csv}", "config: {query: \"SELECT 1 AS id, 'a' AS email\"}\n    needs: []")
                     + "    checks: [{not_null: [emial]}, {unique: [id]}]\n")
    assert found == [("OML406", "/steps/0/checks/0/not_null", "column 'emial' is not a column of step 'read'")]


def test_the_dry_run_counts_the_checks_and_hands_the_failure_to_the_llm(tmp_path: Path):
    from osiris.sample.sample_run import SampleOptions, sample_run

    class Quiet:
        def step_started(self, step: Any) -> None: ...
        def step_progress(self, step: Any, rows: int) -> None: ...
        def step_finished(self, step: Any) -> None: ...

    (tmp_path / "people.csv").write_text(PEOPLE)
    pipeline = {"oml_version": "0.1.0", "name": "checked",
                "steps": [checked([{"unique": ["id"]}]), csv_step("write", "write", "out.csv")]}
    verdict = sample_run(pipeline, SampleOptions(rows=10, connections={}, env={}, base_dir=tmp_path), Quiet())
    assert verdict.status == "failed"
    assert [(i.code, i.message) for i in verdict.errors] == [
        ("OML537", "step 'read-people' failed on sample rows: check failed: unique(id): 2 of 4 rows share their key "
                   "with another row")]
    assert not (tmp_path / "out.csv").exists()


def test_the_spark_engine_refuses_only_incremental_reads_it_cannot_filter():
    from osiris.run.spark.transpile import spark_issues

    api = {"id": "api", "component": "rest.extractor", "mode": "read",  # its own driver reads it there too
           "config": {"url": "http://127.0.0.1:1/x", "incremental": {"cursor": "id", "param": "since"}}}
    unknown = {"id": "other", "component": "other.extractor", "mode": "read",  # allowed by list: not on it
               "config": {"incremental": {"cursor": "id"}}}
    pipeline = {"steps": [{**csv_step("read", "read", "p.csv", incremental={"cursor": "id"}), "checks": [{"unique": ["id"]}]},
                          api, unknown]}
    assert [(i.code, i.path, i.message) for i in spark_issues(pipeline)] == [  # checks run there (test_spark_data_checks)
        ("OML414", "/steps/2/config/incremental",
         "step 'other': incremental reads of other.extractor are not available on the Spark engine")]


@pytest.mark.parametrize("expression, said", [
    ("getenv('HOME') IS NOT NULL", "the query calls getenv"),
    ("id IN (SELECT 1 FROM read_text('people.csv'))", "the query calls read_text, which reads files"),
])
def test_an_expression_off_the_list_is_refused_at_run_time_when_validation_was_skipped(files, expression, said):
    # validation would give OML408; with it skipped, the exact SQL the engine is about to run is held to the list
    from osiris.run.display import Listeners
    from osiris.run.duckdb_run import RunOptions, run_pipeline

    pipeline = {"oml_version": "0.1.0", "name": "checked",
                "steps": [checked([{"expression": expression}]), csv_step("write", "write", "out.csv")]}
    result = run_pipeline(pipeline, RunOptions(connections={}, env={}, base_dir=files.root), Listeners())
    [failed] = [s for s in result.steps if s.problem]
    assert (failed.step_id, failed.problem.code) == ("read-people", "OML518")
    assert said in failed.problem.message, failed.problem.message
    assert (files.root / "out.csv").read_text() == "before\n"
