"""What a model needs to know of each source (issue 41), in the request the fake Messages API receives
(the real anthropic SDK, tests/fake_anthropic.py): the form a date or time value arrives in (a
PostgreSQL `timestamptz` or `timestamp`, a MySQL `DATETIME`, `TIMESTAMP`, `TIME` or `YEAR`, a
GraphQL `DateTime`, an API key's ISO text, a Supabase column), a page's largest size (an extractor's
spec, a GraphQL argument's description) and what supabase.writer's modes do. Each source is read by
`osiris discover` from a real server: PostgreSQL 15, MariaDB, the local GraphQL and REST APIs;
Supabase's catalog is written as discovery writes it (its stand-in is covered by tests/test_discover*)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from osiris.catalog import Catalog, write_catalog
from osiris.prompt.date_forms import ISO_NOTE, column_form
from tests.api_fixtures import api, api_server  # noqa: F401  (fixtures)
from tests.conftest import TEST_API_KEY, osiris_here
from tests.engine_samples import VALID, fenced
from tests.fake_anthropic import Reply
from tests.run_helpers import RunProject, csv_step, mysql_step, pg_step, set_connection
from tests.servers.graphql_api import graphql_api
from tests.servers.graphql_api import TOKEN as GQL_TOKEN
from tests.servers.http_apis import TOKEN as REST_TOKEN
from tests.servers.http_apis import ApiServer
from tests.support import clean_env


def sent_request(project: Path, fake_api: Any, request: str, **env: str) -> str:
    """The last user message of the one call `osiris generate request` makes."""
    fake_api.add(Reply(fenced(VALID)))
    done = osiris_here("generate", request, cwd=project, env=clean_env(ANTHROPIC_API_KEY=TEST_API_KEY, **env))
    assert done.returncode == 0, done.stderr
    content = fake_api.requests[-1].body["messages"][-1]["content"]
    return content if isinstance(content, str) else "".join(block.get("text", "") for block in content)


def discovered(project: Path, reference: str, *names: str, **env: str) -> None:
    done = osiris_here("discover", reference, *names, cwd=project, env=clean_env(**env))
    assert done.returncode == 0, done.stderr


def database_request(project: Path, fake_api: Any, family: str, server: Any, table: str, request: str) -> str:
    """The request sent after `osiris discover @family.default table` on `server`."""
    set_connection(project, family, "default", {**server.connection(), "password": "${DB_PASSWORD}"})
    discovered(project, f"@{family}.default", table, DB_PASSWORD=server.password)
    return sent_request(project, fake_api, request, DB_PASSWORD=server.password)


ENGINE_NAMES = {"TIMESTAMPTZ": "TIMESTAMP WITH TIME ZONE", "TIMETZ": "TIME WITH TIME ZONE"}


def assert_a_run_makes_what_the_prompt_says(tmp_path: Path, family: str, table: str, **servers: Any) -> None:
    """Each column whose prompt says `arrives as X` is an X column of the reading step in a real run."""
    import json

    proj = RunProject(tmp_path / "run", **servers)
    discovered(proj.root, f"@{family}.default", table, **proj.env)
    catalog = json.loads((proj.root / ".osiris" / "catalog" / f"{family}.default.json").read_text())
    said = {}
    for column in catalog["tables"][table]["columns"]:
        form = column_form(family, column["type"])
        if form.startswith("arrives as "):
            named = form.removeprefix("arrives as ").split(",")[0]
            said[column["name"]] = ENGINE_NAMES.get(named, named)
    step = pg_step if family == "postgres" else mysql_step
    result = proj.run(str(proj.pipeline([step("read", "read", query=f"SELECT * FROM {table}"),
                                         csv_step("write", "write", "out.csv")])))
    assert result.returncode == 0, result.stderr
    made = {name: kind for name, kind in proj.step_columns("read") if name in said}
    assert made == said and len(said) >= 4


def test_postgres_date_and_time_columns_say_the_form_they_arrive_in(project: Path, fake_api: Any,
                                                                     postgres_server: Any) -> None:
    import psycopg

    with psycopg.connect(postgres_server.dsn(), autocommit=True) as con:
        con.execute("DROP TABLE IF EXISTS d41_visits")
        con.execute("CREATE TABLE d41_visits (id integer PRIMARY KEY, seen timestamptz, booked timestamp(3), "
                    "opens time, closes timetz, stay interval, day date)")
        con.execute("INSERT INTO d41_visits VALUES (1, '2024-06-01 12:07+02', '2024-06-01 12:07:00.5', '08:00', "
                    "'18:00+02', '-1 day 02:00', '2024-06-01')")
    assert_a_run_makes_what_the_prompt_says(project.parent, "postgres", "d41_visits", postgres=postgres_server)
    sent = database_request(project, fake_api, "postgres", postgres_server, "d41_visits", "count the d41_visits per day")
    assert ("  d41_visits(id integer PK, seen timestamp with time zone (arrives as TIMESTAMPTZ, an instant in UTC), "
            "booked timestamp(3) without time zone (arrives as TIMESTAMP, no zone), opens time without time zone "
            "(arrives as TIME), closes time with time zone (arrives as TIMETZ), stay interval (arrives as INTERVAL), "
            "day date)") in sent
    assert ISO_NOTE not in sent  # said only where an API's text is shown


def test_mariadb_date_and_time_columns_say_the_form_they_arrive_in(project: Path, fake_api: Any,
                                                                    mariadb_server: Any) -> None:
    mariadb_server.execute("DROP TABLE IF EXISTS d41_shifts",
                           "CREATE TABLE d41_shifts (id INT PRIMARY KEY, made DATETIME(6), seen TIMESTAMP NULL, "
                           "took TIME, yr YEAR, day DATE)",
                           "INSERT INTO d41_shifts VALUES (1, '2024-06-01 12:07:00.5', '2024-06-01 12:07:00', "
                           "'-838:59:59', 2024, '2024-06-01')")
    assert_a_run_makes_what_the_prompt_says(project.parent, "mysql", "d41_shifts", mariadb=mariadb_server)
    sent = database_request(project, fake_api, "mysql", mariadb_server, "d41_shifts", "sum the d41_shifts per yr")
    assert ("  d41_shifts(id int(11) PK, made datetime(6) (arrives as TIMESTAMP, no zone), seen timestamp (arrives "
            "as TIMESTAMPTZ, an instant in UTC), took time (arrives as INTERVAL, may be negative or over "
            "24 hours (838:59:59)), yr year(4) (arrives as BIGINT, the year's number (2024)), day date)") in sent


def test_a_graphql_datetime_is_iso_text_and_an_arguments_page_limit_is_told(project: Path, fake_api: Any) -> None:
    with graphql_api() as gql:
        set_connection(project, "graphql", "helpdesk", {"endpoint": gql.endpoint, "auth_type": "bearer",
                                                        "auth_token": "${HELPDESK_TOKEN}"})
        discovered(project, "@graphql.helpdesk", "events", HELPDESK_TOKEN=GQL_TOKEN)
        sent = sent_request(project, fake_api, "copy the helpdesk events to a csv", HELPDESK_TOKEN=GQL_TOKEN)
    assert "    node.at string (GraphQL DateTime!: ISO 8601 text)\n" in sent  # was `any`: a custom scalar
    assert "  query field events(first: Int = 20 (at most 50)): EventConnection; " in sent  # its description's limit
    assert ISO_NOTE in sent
    assert "- graphql.extractor:" not in sent  # no page-size field in its spec: the schema's argument says it


def test_an_api_keys_iso_text_says_what_the_engine_makes_of_it_and_the_page_limit_is_told(
        project: Path, fake_api: Any, api: ApiServer) -> None:
    set_connection(project, "rest", "helpdesk", {"base_url": api.url, "auth_type": "bearer",
                                                 "auth_token": "${HELPDESK_TOKEN}"})
    discovered(project, "@rest.helpdesk", "/tickets", HELPDESK_TOKEN=REST_TOKEN)
    sent = sent_request(project, fake_api, "copy the helpdesk tickets from the rest api", HELPDESK_TOKEN=REST_TOKEN)
    assert "    due string|null (ISO 8601 text; DuckDB DATE)\n" in sent
    assert ISO_NOTE in sent
    assert ("- rest.extractor: without page_size the API's own page size applies; an API may cap a page below "
            "page_size; a page holds at most 10,000 rows (page_size 1..10000)") in sent


SUPABASE = Catalog("supabase.default", "supabase", "@supabase.default", "2026-11-27T08:00:00Z", {"visits": {
    "columns": [{"name": "id", "type": "bigint", "nullable": False},
                {"name": "seen", "type": "timestamp with time zone", "nullable": True},
                {"name": "booked", "type": "timestamp without time zone", "nullable": True},
                {"name": "closes", "type": "time with time zone", "nullable": True}],
    "primary_key": ["id"]}})  # as the supabase driver's discovery writes PostgREST's OpenAPI formats


def test_supabase_columns_say_their_text_and_the_writer_says_what_its_modes_do(project: Path, fake_api: Any) -> None:
    write_catalog(project, SUPABASE)
    sent = sent_request(project, fake_api, "upsert the visits into supabase")
    assert ("  visits(id bigint PK, seen timestamp with time zone (ISO 8601 text with an offset), booked timestamp "
            "without time zone (ISO 8601 text, no zone), closes time with time zone (text 12:07:00+02, arrives as "
            "VARCHAR))") in sent
    assert ISO_NOTE in sent
    writer = next(line for line in sent.splitlines() if line.startswith("- supabase.writer: "))
    assert ("replace deletes every row (DELETE: the table, its column types and keys stay), then inserts; "
            "upsert inserts new keys and, for a key that exists, updates only the columns the input has") in writer
    assert "the REST API has no transaction: a failure part-way keeps the batches already sent" in writer
    assert "so their case is kept" in writer
    assert "- supabase.extractor: " in sent and "a page holds at most 1,000 rows (limit 1..1000, default 1000)" in sent


def test_a_graphql_arguments_limit_is_read_from_the_ways_apis_write_it() -> None:
    from osiris.run.graphql_schema import argument_entry

    def entry(description: str | None, kind: str = "Int", default: str | None = None) -> dict[str, Any]:
        ref = {"kind": "SCALAR", "name": kind, "ofType": None}
        return argument_entry({"name": "first", "type": ref, "description": description, "defaultValue": default})

    for said, largest in [("Events a page, at most 50", 50), ("Page size (maximum of 100)", 100),
                          ("Returns up to 1,000 items", 1000), ("Between 1 and 250.", 250), ("max: 20", 20),
                          ("The number of items, limited to 500", 500)]:
        assert entry(said)["max"] == largest, said
    assert entry("Returns the first n elements from the list.") == {"name": "first", "type": "Int"}
    assert entry(None, default="10") == {"name": "first", "type": "Int", "default": "10"}
    assert "max" not in entry("at most 50 characters", kind="String")  # a limit only on a number
