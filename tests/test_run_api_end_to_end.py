"""`osiris run` end to end (in process through cli.main, validation included) for the API components: rest and
graphql against the local API of tests/servers/http_apis.py, with each pagination style, and
supabase against the PostgREST-COMPATIBLE STAND-IN of tests/servers/postgrest.py (the real
PostgREST cannot be installed here; the stand-in is backed by the real PostgreSQL 15).

Credentials come from `${NAME}` references set in the run's environment; every test asserts the
exit code, the bytes of the CSV written or the rows landed, and that no planted secret reached the
output or the session files.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import psycopg
import pytest
import yaml

from tests.api_fixtures import api, api_server  # noqa: F401  (fixtures)
from tests.run_helpers import RunProject, csv_step, sql_step
from tests.servers.http_apis import RECORDS, TOKEN, ApiServer
from tests.servers.postgrest import KEY, PostgrestStandIn, start_postgrest
from tests.test_run_http_drivers import SENT, STYLES

ITEMS_CSV = "id,name\n" + "".join(f"{r['id']},{r['name']}\n" for r in RECORDS)


@pytest.fixture
def proj(tmp_path: Path) -> RunProject:
    project = RunProject(tmp_path / "project")
    project.env.update({"API_TOKEN": TOKEN, "SUPABASE_KEY": KEY})
    project.secrets += [TOKEN, KEY]
    return project


def use_connections(proj: RunProject, connections: dict[str, Any]) -> None:
    """Secrets come from a connection (inline ones are OML310), resolved from `${NAME}` at run time."""
    (proj.root / ".osiris.yaml").write_text(yaml.safe_dump({"connections": connections}), encoding="utf-8")


def rest_step(api: ApiServer, endpoint: str, **config: Any) -> dict[str, Any]:
    return {"id": "get", "component": "rest.extractor", "mode": "read",
            "config": {"base_url": api.url, "endpoint": endpoint, **config}}


def to_csv(first: dict[str, Any], path: str = "out.csv") -> list[dict[str, Any]]:
    return [first, sql_step("pick", "SELECT id, name FROM input_df ORDER BY id"), csv_step("write", "write", path)]


@pytest.mark.parametrize("style", list(STYLES))
def test_rest_each_pagination_style_runs_end_to_end(proj: RunProject, api: ApiServer, style: str) -> None:
    endpoint, extra = STYLES[style]
    result = proj.run(str(proj.pipeline(to_csv(rest_step(api, endpoint, **extra)))))
    assert result.returncode == 0, result.stderr
    assert (proj.root / "out.csv").read_text() == ITEMS_CSV
    assert [r.query for r in api.hits(endpoint)] == SENT[style]
    assert "get  ok  23 rows" in result.stdout


@pytest.mark.parametrize("style", list(STYLES))
def test_rest_sample_of_each_style_stops_paging_and_writes_under_the_session(proj: RunProject, api: ApiServer,
                                                                            style: str) -> None:
    endpoint, extra = STYLES[style]
    result = proj.run(str(proj.pipeline(to_csv(rest_step(api, endpoint, **extra)))), "--sample", "7")
    assert result.returncode == 0, result.stderr
    assert not (proj.root / "out.csv").exists()
    assert "get  ok  7 rows" in result.stdout
    if style != "none":
        assert len(api.hits(endpoint)) == 2  # pages of 5: the second page completes the sample


def test_rest_bearer_token_comes_from_the_environment(proj: RunProject, api: ApiServer) -> None:
    # the connection says where its token goes (issue 22); the step may repeat base_url, not change it
    use_connections(proj, {"rest": {"api": {"base_url": api.url, "auth_token": "${API_TOKEN}"}}})
    step = rest_step(api, "/bearer", data_path="items", auth_type="bearer", connection="@rest.api")
    result = proj.run(str(proj.pipeline(to_csv(step))))
    assert result.returncode == 0, result.stderr
    assert (proj.root / "out.csv").read_text() == ITEMS_CSV
    assert api.hits("/bearer")[0].headers["authorization"] == f"Bearer {TOKEN}"


GRAPHQL = {"query": "query Items($first: Int, $after: String) { items(first: $first, after: $after) { nodes pageInfo } }",
           "variables": {"first": 5}, "data_path": "data.items.nodes", "auth_type": "bearer",
           "connection": "@graphql.api"}


@pytest.fixture
def gql(proj: RunProject, api: ApiServer) -> RunProject:
    # the connection says where its token goes (issue 22); the steps may repeat endpoint, not change it
    use_connections(proj, {"graphql": {"api": {"endpoint": f"{api.url}/graphql", "auth_token": "${API_TOKEN}"}}})
    return proj


def graphql_step(api: ApiServer, **config: Any) -> dict[str, Any]:
    return {"id": "get", "component": "graphql.extractor", "mode": "read",
            "config": {"endpoint": f"{api.url}/graphql", **GRAPHQL, **config}}


def test_graphql_cursor_pagination_runs_end_to_end(gql: RunProject, api: ApiServer) -> None:
    proj = gql
    step = graphql_step(api, pagination_enabled=True, pagination_path="data.items.pageInfo")
    result = proj.run(str(proj.pipeline(to_csv(step))))
    assert result.returncode == 0, result.stderr
    assert (proj.root / "out.csv").read_text() == ITEMS_CSV
    assert [r.body["variables"] for r in api.hits("/graphql")] == (
        [{"first": 5}] + [{"first": 5, "after": str(n)} for n in range(5, 25, 5)])
    assert api.hits("/graphql")[0].headers["authorization"] == f"Bearer {TOKEN}"


def test_graphql_without_pagination_runs_end_to_end(gql: RunProject, api: ApiServer) -> None:
    proj = gql
    result = proj.run(str(proj.pipeline(to_csv(graphql_step(api, pagination_enabled=False)))))
    assert result.returncode == 0, result.stderr
    assert (proj.root / "out.csv").read_text() == "id,name\n" + "".join(
        f"{r['id']},{r['name']}\n" for r in RECORDS[:5])
    assert len(api.hits("/graphql")) == 1


EMPTY_PAGE = {"first": 5, "after": "100"}  # past the 23 records: the server answers {"nodes": []}


@pytest.mark.parametrize("selection, flatten, header", [
    ("id ...Naming", True, "id,label,title\n"),
    ("id meta { rank tags }", False, "id,meta\n"),
])
def test_graphql_empty_answer_writes_the_columns_its_query_selects(gql: RunProject, api: ApiServer, selection: str,
                                                                  flatten: bool, header: str) -> None:
    """No record came, so only the query says what the records hold: the CSV's header is the fields
    it selects at data_path (aliases, a named fragment spread; nested kept whole without flattening),
    where it was `record` before."""
    proj = gql
    query = ("query Items($first: Int, $after: String) { items(first: $first, after: $after) { "
             f"nodes {{ {selection} }} pageInfo {{ hasNextPage endCursor }} }} }} "
             "fragment Naming on Item { label: name ... on Item { title: name } }")
    step = graphql_step(api, query=query, variables=EMPTY_PAGE, flatten_result=flatten, pagination_enabled=True,
                        pagination_path="data.items.pageInfo")
    result = proj.run(str(proj.pipeline([step, csv_step("write", "write", "out.csv")])))
    assert result.returncode == 0, result.stderr
    assert (proj.root / "out.csv").read_bytes() == header.encode()
    assert ("OML513 warning: step 'get': the API returned no records; the output table is empty, with the "
            "columns of the query's selection at data_path") in result.stderr
    assert api.hits("/graphql")[0].body["variables"] == EMPTY_PAGE


def test_graphql_empty_answer_whose_columns_the_query_cannot_tell_fails_naming_the_field(
        gql: RunProject, api: ApiServer) -> None:
    """Flattened, `meta { rank }` is columns meta_rank if the API answers an object and one column
    meta if it answers a list: with no record to show which, the step fails (OML539) and nothing
    is written, rather than a made-up `record` column."""
    proj = gql
    query = ("query Items($first: Int, $after: String) { items(first: $first, after: $after) { "
             "nodes { id meta { rank } } pageInfo { hasNextPage endCursor } } }")
    step = graphql_step(api, query=query, variables=EMPTY_PAGE)
    path = proj.pipeline([step, csv_step("write", "write", "out.csv")])
    result = proj.run(str(path))
    assert result.returncode == 6, result.stderr
    assert result.stderr.splitlines()[:2] == [
        f"{path} OML539 step 'get': the API returned no records at data_path 'data.items.nodes', and which "
        "columns they have cannot be told from the query: 'meta' has a sub-selection, and with flatten_result it "
        "becomes columns (meta_...) if the API answers an object, one column (meta) if it answers a list",
        "    hint: name each field the records hold in the query's selection at data_path (an alias or a field "
        "becomes a column), or set flatten_result: false to keep a nested field as one column; nothing was written"]
    assert not (proj.root / "out.csv").exists()
    assert "write  skipped (its input 'get' did not complete)" in result.stdout


SUPABASE_SETUP = """
DROP TABLE IF EXISTS users, users_copy;
CREATE TABLE users (id int PRIMARY KEY, name text NOT NULL);
INSERT INTO users SELECT g, 'user' || g FROM generate_series(1, 25) g;
CREATE TABLE users_copy (id int PRIMARY KEY, name text NOT NULL);
"""


@pytest.fixture(scope="module")
def standin(postgres_server: Any) -> Iterator[PostgrestStandIn]:
    server = start_postgrest(postgres_server.fresh_database("supabase_end_to_end"))
    yield server
    server.stop()


@pytest.fixture
def sb(standin: PostgrestStandIn, proj: RunProject) -> PostgrestStandIn:
    with psycopg.connect(standin.dsn) as con:
        con.execute(SUPABASE_SETUP)
    standin.requests.clear()
    use_connections(proj, {"supabase": {"sb": {"url": standin.url, "key": "${SUPABASE_KEY}"}}})
    return standin


def supabase_step(step_id: str, oml_mode: str, sb: PostgrestStandIn, **config: Any) -> dict[str, Any]:
    component = "supabase.extractor" if oml_mode == "read" else "supabase.writer"
    return {"id": step_id, "component": component, "mode": oml_mode,
            "config": {"connection": "@supabase.sb", **config}}


def table(sb: PostgrestStandIn, name: str) -> list[tuple]:
    with psycopg.connect(sb.dsn) as con:
        return con.execute(f"SELECT * FROM {name} ORDER BY id").fetchall()


def test_supabase_reads_in_pages_and_upserts_twice(proj: RunProject, sb: PostgrestStandIn) -> None:
    steps = [supabase_step("read", "read", sb, table="users", limit=10, order="id.asc"),
             sql_step("rename", "SELECT id, name || '-copied' AS name FROM input_df"),
             supabase_step("write", "write", sb, table="users_copy", write_mode="upsert", primary_key="id",
                           batch_size=10)]
    path = proj.pipeline(steps)
    assert proj.run(str(path)).returncode == 0
    assert [(r.query["limit"], r.query["offset"]) for r in sb.requests
            if r.method == "GET" and r.path == "/rest/v1/users"] == [
        ("10", "0"), ("10", "10"), ("10", "20")]
    assert table(sb, "users_copy") == [(i, f"user{i}-copied") for i in range(1, 26)]
    path.write_text(path.read_text().replace("-copied", "-again"))
    result = proj.run(str(path))
    assert result.returncode == 0, result.stderr
    assert table(sb, "users_copy") == [(i, f"user{i}-again") for i in range(1, 26)]


def test_supabase_sample_changes_nothing(proj: RunProject, sb: PostgrestStandIn) -> None:
    steps = [supabase_step("read", "read", sb, table="users", order="id.asc"),
             supabase_step("write", "write", sb, table="users", write_mode="upsert", primary_key="id")]
    before = table(sb, "users")
    result = proj.run(str(proj.pipeline(steps)), "--sample", "5")
    assert result.returncode == 0, result.stderr
    assert table(sb, "users") == before
    assert "read  ok  5 rows" in result.stdout
