"""What a person and a script see when `osiris run` fails, at the command line: the exact stderr
lines of the OML5xx problems no other test asserts as a CLI line (OML508, OML509, OML515 from the
local API of tests/servers/http_apis.py; OML503 from DuckDB and from the real PostgreSQL 15), exit
code 6, and the exact `--json` document on stdout for a failed, a successful and an invalid run.

Runs are in-process (tests/inprocess.py, `cli.main`), as for a real command: nothing is mocked.
"""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path
from typing import Any

import psycopg
import pytest

from tests.run_helpers import RunProject, csv_step, pg_step, sql_step
from tests.api_fixtures import api, api_server  # noqa: F401 (fixtures)
from tests.servers.http_apis import RECORDS, ApiServer
from tests.test_run_cli import PEOPLE, files  # noqa: F401 (fixture)



@pytest.fixture
def proj(files: RunProject) -> RunProject:
    """A project holding data/people.csv (tests/test_run_cli.py's `files`)."""
    return files


def rest_step(api: ApiServer, endpoint: str, **config: Any) -> dict[str, Any]:
    return {"id": "get", "component": "rest.extractor", "mode": "read",
            "config": {"base_url": api.url, "endpoint": endpoint, **config}}


def graphql_step(api: ApiServer, query: str, **config: Any) -> dict[str, Any]:
    return {"id": "get", "component": "graphql.extractor", "mode": "read",
            "config": {"endpoint": f"{api.url}/graphql", "query": query, "data_path": "data.items.nodes", **config}}


API_FAILURES: dict[str, tuple[Any, str, str]] = {
    "404": (lambda api: rest_step(api, "/nowhere"),
            "OML508 step 'get': HTTP 404 Not Found from GET {url}/nowhere",
            'Check the URL and endpoint: the server has no such resource. It answered: {{"error": "not found"}}'),
    "500 after retries": (
        lambda api: rest_step(api, "/broken", max_retries=1),
        "OML508 step 'get': HTTP 500 Internal Server Error from GET {url}/broken after 1 retry",
        # the server's own word is neither the pipeline's nor the vocabulary's (docs/security.md, "What an engine says")
        'The server is failing or busy; try again later or raise max_retries. It answered: {{"error": "(…)"}}'),
    "no records at data_path": (
        lambda api: rest_step(api, "/cursor", data_path="data.items"),
        "OML509 step 'get': no records at data_path 'data.items' in the response of {url}/cursor",
        "The response's top-level keys are: meta, results. Set data_path to the dotted path of the list of records."),
    "graphql without pageInfo": (
        lambda api: graphql_step(api, "query Items($first: Int, $after: String) { items(first: $first, after: $after) { nodes pageInfo } }",
                                 variables={"first": 5}, pagination_enabled=True, pagination_path="data.pageInfo"),
        "OML509 step 'get': no pageInfo object at pagination_path 'data.pageInfo' in the response of {url}/graphql",
        None),
    "html page": (
        lambda api: rest_step(api, "/html"),
        "OML515 step 'get': invalid API response from {url}/html: the body is not JSON (text/html)",
        "Check base_url and endpoint: they must name a JSON API, not a web page."),
    "graphql errors": (
        lambda api: graphql_step(api, "{ nope }"),
        "OML515 step 'get': the GraphQL endpoint {url}/graphql answered with errors: "
        "Cannot query field 'nope' on type 'Query'",
        None),
}


@pytest.mark.parametrize("case", list(API_FAILURES))
def test_api_problems_are_one_line_with_a_hint_and_exit_6(proj: RunProject, api: ApiServer, case: str) -> None:
    make_step, line, hint = API_FAILURES[case]
    path = proj.pipeline([make_step(api), csv_step("write", "write", "out.csv")])
    result = proj.run(str(path))
    assert result.returncode == 6
    errors = result.stderr.splitlines()
    assert errors[0] == f"{path} {line.format(url=api.url)}"
    if hint is not None:
        assert errors[1] == f"    hint: {hint.format(url=api.url)}"
    else:
        assert errors[1].startswith("    hint: ") and len(errors) == 4
    assert errors[2:] == [f"session: {proj.last_session()}", "osiris: error: the run failed at step 'get'"]
    component = make_step(api)["component"]
    assert re.fullmatch(rf"get  running \({component}\)\nget  failed \({line[:6]}\)  \d+\.\d s\n"
                        r"write  skipped \(its input 'get' did not complete\)\n", result.stdout), result.stdout
    assert not (proj.root / "out.csv").exists()


def test_a_sql_error_only_duckdb_finds_is_oml503_on_the_transform(proj: RunProject) -> None:
    path = proj.pipeline([csv_step("read", "read", "data/people.csv"),
                          sql_step("shape", "SELECT CAST(id AS no_such_type) AS x FROM input_df")])
    result = proj.run(str(path))
    assert result.returncode == 6
    assert result.stderr.splitlines()[:2] == [
        f"{path} OML503 step 'shape': the database rejected the SQL: Catalog Error: Type with name "
        "no_such_type does not exist!",
        "    hint: correct the SQL in this step's query and run again"]


@pytest.fixture
def pg_proj(tmp_path: Path, postgres_server: Any) -> RunProject:
    with psycopg.connect(postgres_server.dsn(), autocommit=True) as conn:
        conn.execute("DROP TABLE IF EXISTS failures_cli_people")
        conn.execute("CREATE TABLE failures_cli_people (id integer PRIMARY KEY, email text)")
        conn.execute("INSERT INTO failures_cli_people VALUES (1, 'a@x.org')")
    project = RunProject(tmp_path / "project", postgres=postgres_server)
    (project.root / "data").mkdir()
    (project.root / "data" / "people.csv").write_text(PEOPLE)
    return project


def test_a_sql_error_postgres_finds_is_oml503(pg_proj: RunProject) -> None:
    path = pg_proj.pipeline([pg_step("read", "read", query="SELECT no_such_fn(id) FROM failures_cli_people")])
    result = pg_proj.run(str(path))
    assert result.returncode == 6
    assert result.stderr.splitlines()[:2] == [
        f"{path} OML503 step 'read': the database rejected the SQL: function no_such_fn(integer) does not exist",
        "    hint: correct the SQL in this step's query and run again"]


def durations(document: dict[str, Any]) -> list[float]:
    """Take each step's `duration_ms` out of a `--json` document (the only value a run cannot fix)."""
    taken = [step.pop("duration_ms") for step in document["steps"]]
    assert all(isinstance(ms, float) and ms >= 0 for ms in taken), taken
    return taken


def test_json_of_a_failed_run_names_step_code_message_and_hint(pg_proj: RunProject, api: ApiServer) -> None:
    """An API copy that succeeds and a PostgreSQL copy that fails, independent of each other: stdout
    is the JSON document only; the same problem is on stderr as a person reads it."""
    path = pg_proj.pipeline([
        rest_step(api, "/all", data_path="data.items"), sql_step("pick", "SELECT id, name FROM input_df ORDER BY id"),
        csv_step("write-items", "write", "out/items.csv"),
        pg_step("read", "read", query="SELECT id, emial FROM failures_cli_people"),
        {**csv_step("write-people", "write", "out/people.csv"), "needs": ["read"]}])
    result = pg_proj.run(str(path), "--json")
    assert result.returncode == 6, result.stderr
    document = json.loads(result.stdout)
    durations(document)
    problem = {"code": "OML502", "message": 'column "emial" does not exist',
               "hint": "columns the database knows: email, id (did you mean 'email'?)"}
    assert document == {
        **pipeline_json(path), "status": "failed", "sample": None, "session": str(pg_proj.last_session()),
        "problems": [{"step": "read", "severity": "error", **problem}], "issues": [],
        "steps": [
            step_json("get", "rest.extractor", 23, [("id", "BIGINT"), ("name", "VARCHAR"),
                                                    ("meta", "STRUCT(rank BIGINT, tags VARCHAR[])")]),
            step_json("pick", "duckdb.processor", 23, [("id", "BIGINT"), ("name", "VARCHAR")], rows_in=23),
            step_json("write-items", "filesystem.csv_writer", 23, [], target=file_target("out/items.csv", 23)),
            {**step_json("read", "postgres.extractor", 0, []), "status": "failed", "problem": problem},
            {**step_json("write-people", "filesystem.csv_writer", 0, [],
                         target=file_target("out/people.csv", 0, kept=False)),
             "status": "skipped", "skipped_because": "read"},
        ]}
    assert result.stderr.splitlines()[-4:] == [
        f"{path} OML502 step 'read': column \"emial\" does not exist",
        "    hint: columns the database knows: email, id (did you mean 'email'?)",
        f"session: {pg_proj.last_session()}", "osiris: error: the run failed at step 'read'"]
    assert (pg_proj.root / "out" / "items.csv").read_text() == "id,name\n" + "".join(
        f"{r['id']},{r['name']}\n" for r in RECORDS)
    assert not (pg_proj.root / "out" / "people.csv").exists()


def step_json(step_id: str, component: str, rows: int, columns: list[tuple[str, str]],
              rows_in: int | None = None, target: dict[str, Any] | None = None,
              fused_into: str | None = None) -> dict[str, Any]:
    return {"id": step_id, "component": component, "status": "ok",
            "rows_in": rows if rows_in is None else rows_in, "rows_out": rows,
            "columns": [{"name": name, "type": kind} for name, kind in columns],
            "problem": None, "warnings": [], "skipped_because": None, "target": target,
            **({"fused_into": fused_into} if fused_into else {})}


def file_target(path: str, rows: int, kept: bool = True) -> dict[str, Any]:
    """A CSV writer's target as `--json` gives it (issue 30: what was written where)."""
    return {"kind": "file", "name": path, "write_mode": "replace", "connection": None, "rows": rows, "kept": kept}


def pipeline_json(path: Path) -> dict[str, Any]:
    """The pipeline as `--json` names it: the path given, its name, and the sha256 of its bytes."""
    return {"pipeline": str(path), "pipeline_name": path.stem, "pipeline_sha256": hashlib.sha256(path.read_bytes()).hexdigest()}


def test_json_of_a_successful_run_is_the_whole_document_and_stdout_holds_nothing_else(proj: RunProject) -> None:
    path = proj.pipeline([csv_step("read-people", "read", "data/people.csv"),
                          sql_step("count-cities", "SELECT city, count(*) AS people FROM input_df GROUP BY city "
                                                   "ORDER BY city"),
                          csv_step("write-cities", "write", "out/cities.csv")])
    result = proj.run(str(path), "--json")
    assert result.returncode == 0, result.stderr
    document = json.loads(result.stdout)
    durations(document)
    assert document == {
        **pipeline_json(path), "status": "succeeded", "sample": None, "session": str(proj.last_session()),
        "problems": [], "issues": [],
        "steps": [step_json("read-people", "filesystem.csv_extractor", 3,
                            [("id", "BIGINT"), ("name", "VARCHAR"), ("city", "VARCHAR")],
                            fused_into="count-cities"),  # read by its query, counted by DuckDB (ADR 0202)
                  step_json("count-cities", "duckdb.processor", 2, [("city", "VARCHAR"), ("people", "BIGINT")],
                            rows_in=3),
                  step_json("write-cities", "filesystem.csv_writer", 2, [], target=file_target("out/cities.csv", 2))]}
    assert re.fullmatch(r"read-people  running \(filesystem.csv_extractor\)\nread-people  ok  3 rows  \d+\.\d s\n"
                        r"count-cities  running \(duckdb.processor\)\ncount-cities  ok  2 rows  \d+\.\d s\n"
                        r"write-cities  running \(filesystem.csv_writer\)\nwrite-cities  ok  2 rows  \d+\.\d s\n"
                        rf"session: {re.escape(str(proj.last_session()))}\n", result.stderr), result.stderr


def test_json_of_a_sample_run_lists_its_warning_as_a_problem(proj: RunProject) -> None:
    (proj.root / "data" / "orders.csv").write_text("order_id,person\n10,3\n11,3\n")
    path = proj.pipeline([
        csv_step("read-people", "read", "data/people.csv"), csv_step("read-orders", "read", "data/orders.csv"),
        sql_step("join", "SELECT * FROM df_read_people p JOIN df_read_orders o ON o.person = p.id",
                 needs=["read-people", "read-orders"])])
    result = proj.run(str(path), "--sample", "1", "--json")
    assert result.returncode == 0, result.stderr
    document = json.loads(result.stdout)
    warning = {"code": "OML513", "message": "the transform returned no rows from sampled inputs (read-people: "
                                            "1 row, read-orders: 1 row); the samples may share no keys",
               "hint": "sample more rows (--sample 1000), or filter the driving table's query so that the "
                       "samples match"}
    assert (document["status"], document["sample"]) == ("succeeded", 1)
    assert document["problems"] == [{"step": "join", "severity": "warning", **warning}]
    assert document["steps"][2]["warnings"] == [warning]


def test_json_of_an_invalid_pipeline_gives_its_issues_and_runs_nothing(proj: RunProject) -> None:
    path = proj.pipeline([{"id": "x", "component": "filesystem.csv_extractor", "mode": "read", "config": {}}])
    result = proj.run(str(path), "--json")
    assert result.returncode == 1
    document = json.loads(result.stdout)
    assert document == {
        "pipeline": str(path), "status": "invalid", "sample": None, "session": None, "steps": [], "problems": [],
        "issues": [{"code": "OML303", "severity": "error", "tier": 3, "path": "/steps/0/config/path",
                    "line": 7, "column": 3,
                    "message": "required field 'path' is missing for filesystem.csv_extractor",
                    "hint": "add path: <CSV file, relative to the project (or base_dir), e.g. data/orders.csv; "
                            "a directory in discover mode>", "value": None}]}
    assert "OML303" in result.stderr and "invalid: fix it before running" in result.stderr
    assert not (proj.root / ".osiris" / "sessions").exists()
