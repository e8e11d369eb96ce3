"""Issue 26: know an API before the first answer. `osiris discover @rest.NAME /path` reads one
authenticated page of the local helpdesk API (tests/servers/http_apis.py, `/tickets`: nested
records, cursor paging, bearer only) into the catalog, and a scripted model that uses only what the
request prompt then tells it writes a pipeline whose sample run passes at the first attempt, through
`generate --dry-run`, the real SDK and the fake Messages API. No token and no value anywhere.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import yaml

from tests.api_fixtures import api, api_server  # noqa: F401  (fixtures)
from tests.fake_anthropic import Reply
from tests.inprocess import run_inprocess
from tests.run_helpers import set_connection
from tests.sample_project import SampleProject, generated_at_first_attempt, last_user_message, read_pick_write, request_text
from tests.servers.http_apis import TICKETS, TOKEN, ApiServer
from tests.support import clean_env

VALUES = [TICKETS[0]["subject"], TICKETS[0]["requester"]["email"], TICKETS[0]["requester"]["name"], "tag1"]
EXPECTED_ENTRY = {
    "columns": [
        {"name": "id", "type": "integer", "nullable": False},
        {"name": "subject", "type": "string", "nullable": False},
        {"name": "requester", "type": "object", "nullable": False},
        {"name": "tags", "type": "array of string", "nullable": False},
        {"name": "due", "type": "string|null", "nullable": True},
    ],
    "primary_key": [],
    "data_path": "tickets",
    "data_paths": ["tickets"],
    "records_seen": 5,
    "fields": [{"name": "requester.email", "type": "string"}, {"name": "requester.name", "type": "string"}],
    "paging": {"style": "cursor", "cursor_path": "meta.next_cursor", "page_fields": ["meta.per_page"]},
    "duckdb_types": {"id": "BIGINT", "subject": "VARCHAR", "requester": 'STRUCT(email VARCHAR, "name" VARCHAR)',
                     "tags": "VARCHAR[]", "due": "DATE"},
}


def helpdesk_settings(root: Path, api: ApiServer, extra: dict[str, Any] | None = None) -> None:
    set_connection(root, "rest", "helpdesk", {"base_url": api.url, "auth_type": "bearer",
                                              "auth_token": "${HELPDESK_TOKEN}"}, extra)


def discover(root: Path, *args: str, token: str = TOKEN) -> Any:
    return run_inprocess("discover", *args, cwd=root, env=clean_env(HELPDESK_TOKEN=token))


def test_discover_writes_where_the_records_are_their_keys_and_the_paging(tmp_path: Path, api: ApiServer) -> None:
    helpdesk_settings(tmp_path, api)
    done = discover(tmp_path, "@rest.helpdesk", "/tickets")
    assert (done.returncode, done.stdout, done.stderr) == (
        0, ".osiris/catalog/rest.helpdesk.json: 1 endpoint (/tickets)\n", "")
    text = (tmp_path / ".osiris" / "catalog" / "rest.helpdesk.json").read_text(encoding="utf-8")
    catalog = json.loads(text)
    assert (catalog["connection"], catalog["family"]) == ("@rest.helpdesk", "rest")
    assert catalog["tables"] == {"/tickets": {**EXPECTED_ENTRY, "base_url": api.url}}
    assert [hit.headers["authorization"] for hit in api.hits("/tickets")] == [f"Bearer {TOKEN}"]  # one request
    for never in [TOKEN, *VALUES]:
        assert never not in text


def test_an_endpoint_path_is_required_and_a_query_string_becomes_params(tmp_path: Path, api: ApiServer) -> None:
    helpdesk_settings(tmp_path, api)
    done = discover(tmp_path, "@rest.helpdesk")
    assert (done.returncode, done.stderr) == (
        2, "osiris: error: name the endpoint path(s) to read, e.g. osiris discover @rest.helpdesk /customers\n")
    assert discover(tmp_path, "@rest.helpdesk", "/tickets?cursor=10").returncode == 0
    assert api.hits("/tickets")[0].query == {"cursor": "10"}
    catalog = json.loads((tmp_path / ".osiris" / "catalog" / "rest.helpdesk.json").read_text(encoding="utf-8"))
    assert catalog["tables"]["/tickets?cursor=10"]["records_seen"] == 2


def test_a_rejected_token_is_one_line_without_it(tmp_path: Path, api: ApiServer) -> None:
    helpdesk_settings(tmp_path, api)
    done = discover(tmp_path, "@rest.helpdesk", "/tickets", token="tok-Wrong-0123456789")
    assert done.returncode == 6
    assert done.stderr == (f"osiris: error: cannot discover @rest.helpdesk: authentication failed: GET "
                           f"{api.url}/tickets answered 401 Unauthorized (Check the connection's credentials "
                           "(auth_token, auth_username or key) and auth_type.)\n")
    assert "tok-Wrong" not in done.stderr
    assert not (tmp_path / ".osiris" / "catalog").exists()


def test_the_request_prompt_tells_the_path_the_paging_and_each_key(tmp_path: Path, api: ApiServer) -> None:
    from osiris.catalog.store import list_catalogs
    from osiris.prompt.schema import API_NOTE, schema_section

    helpdesk_settings(tmp_path, api)
    discover(tmp_path, "@rest.helpdesk", "/tickets")
    section = schema_section("copy the helpdesk tickets to a csv", list_catalogs(tmp_path), 2000)
    assert API_NOTE in section
    body = section.split("```yaml\n", 1)[1].split("\n```", 1)[0].splitlines()
    assert body[1:] == [
        "  endpoint /tickets: data_path 'tickets' (5 records seen); paging: pagination: cursor, cursor_path: "
        "meta.next_cursor (cursor_param is the API's query parameter for it, default cursor)",
        "    id integer (DuckDB BIGINT)",
        "    subject string (DuckDB VARCHAR)",
        '    requester object (DuckDB STRUCT(email VARCHAR, "name" VARCHAR))',
        "    tags array of string (DuckDB VARCHAR[])",
        "    due string|null (ISO 8601 text; DuckDB DATE)",  # the form it arrives in (issue 41)
        "    requester.email string",
        "    requester.name string",
    ]
    small = schema_section("copy the helpdesk tickets to a csv", list_catalogs(tmp_path), 110)
    assert small.count("\n    ") < 8 and "more keys)" in small  # cut to the budget, one line per key kept


def empty_answer_project(root: Path, api: ApiServer) -> tuple[Any, Path]:  # noqa: F811
    """A project with the helpdesk's catalog discovered and a pipeline that copies /tickets from a
    cursor past its last page (an empty answer) to out.csv: the project and the pipeline's path."""
    from tests.run_helpers import RunProject, csv_step

    proj = RunProject(root)
    helpdesk_settings(root, api)
    proj.planted("HELPDESK_TOKEN", TOKEN)
    step = {"id": "get", "component": "rest.extractor", "mode": "read",
            "config": {"connection": "@rest.helpdesk", "endpoint": "/tickets", "data_path": "tickets",
                       "params": {"cursor": 100}}}
    path = proj.pipeline([step, csv_step("write", "write", "out.csv")])
    assert discover(root, "@rest.helpdesk", "/tickets").returncode == 0
    return proj, path


def test_an_endpoint_that_returns_no_records_writes_the_catalogs_columns_not_an_invented_one(
        tmp_path: Path, api: ApiServer) -> None:
    proj, path = empty_answer_project(tmp_path, api)

    done = proj.run(str(path))

    assert done.returncode == 0, done.stderr
    assert (tmp_path / "out.csv").read_text(encoding="utf-8") == "id,subject,requester,tags,due\n"
    assert ("the API returned no records; the output table is empty, with the columns of its catalog"
            in done.stdout + done.stderr)


def test_an_empty_answer_writes_the_catalogs_columns_when_the_run_starts_in_a_subfolder(
        tmp_path: Path, api: ApiServer) -> None:
    """The catalog is the project's, wherever `osiris run` starts (here a folder inside the project):
    an empty answer writes its columns, not `record` (issue 35)."""
    proj, path = empty_answer_project(tmp_path, api)
    elsewhere = tmp_path / "pipelines"
    elsewhere.mkdir()

    done = run_inprocess("run", str(path), cwd=elsewhere, env=clean_env(**proj.env))

    assert done.returncode == 0, done.stderr
    assert (tmp_path / "out.csv").read_text(encoding="utf-8") == "id,subject,requester,tags,due\n"
    assert ("the API returned no records; the output table is empty, with the columns of its catalog"
            in done.stdout + done.stderr)


def literal_model(body: dict[str, Any]) -> Reply:
    """Writes a pipeline from the request prompt alone: the connection, endpoint, data_path and
    cursor_path it tells, and a nested email field read the way its note says."""
    prompt = request_text(body)
    connection = re.search(r"^(@rest\.\w+) \(rest, discovered", prompt, re.MULTILINE)
    endpoint = re.search(r"endpoint (\S+): data_path '([^']*)'.*?cursor_path: (\S+)", prompt)
    email = re.search(r"^ {4}(\w+)\.(\w*email\w*) string$", prompt, re.MULTILINE)
    assert connection and endpoint and email, prompt
    read = {"component": "rest.extractor",
            "config": {"connection": connection.group(1), "endpoint": endpoint.group(1),
                       "data_path": endpoint.group(2), "pagination": "cursor", "cursor_path": endpoint.group(3)}}
    return Reply(read_pick_write(read, f"SELECT id, subject, {email.group(1)}.{email.group(2)} AS email FROM input_df"))


def test_a_model_using_only_the_prompt_passes_the_sample_run_at_the_first_attempt(
        tmp_path: Path, fake_api: Any, api: ApiServer) -> None:
    proj = SampleProject(tmp_path / "p", fake_api)
    helpdesk_settings(proj.root, api)
    proj.planted("HELPDESK_TOKEN", TOKEN)
    assert discover(proj.root, "@rest.helpdesk", "/tickets").returncode == 0
    fake_api.add(literal_model)

    done = generated_at_first_attempt(
        proj, fake_api, "copy the helpdesk tickets with the requester's email to output/tickets.csv", [TOKEN, *VALUES])

    assert "'fetch-tickets' failed" not in done.stderr
    pipeline = yaml.safe_load(done.stdout)
    assert pipeline["steps"][1]["config"]["query"] == "SELECT id, subject, requester.email AS email FROM input_df"
    dry_run = proj.attempt_file(1, 1, "dry_run.json")
    assert [(s["id"], s["rows_out"]) for s in dry_run["steps"]][:2] == [("fetch-tickets", 10), ("pick", 10)]
    assert TOKEN not in json.dumps([r.body for r in fake_api.requests])


def test_mentioned_connections_finds_an_api_by_its_alias() -> None:
    from osiris.chat.discover_offer import mentioned_connections

    connections = {"rest": {"helpdesk": {}, "billing": {}}, "mysql": {"default": {}}}
    assert mentioned_connections("copy the Helpdesk tickets", connections) == ["@rest.helpdesk"]
    assert mentioned_connections("tickets from @rest.billing", connections) == ["@rest.billing"]
    assert mentioned_connections("copy the tickets", connections) == []


def test_the_chat_asks_for_an_endpoint_path_and_the_request_carries_what_it_read(
        project: Path, fake_api: Any, api: ApiServer) -> None:
    from tests.sample_project import chat_typing

    helpdesk_settings(project, api)
    done = chat_typing(project, fake_api, "copy the helpdesk tickets to a csv\ntickets\nn\n", HELPDESK_TOKEN=TOKEN)
    assert done.returncode == 0, done.stderr
    assert ("No catalog for @rest.helpdesk yet. Read one page of an endpoint now, so that the pipeline knows where "
            "its records are? Its path (e.g. /tickets), or Enter to skip: ") in done.stdout
    assert "Read 1 endpoint of @rest.helpdesk into .osiris/catalog/rest.helpdesk.json." in done.stdout
    assert [hit.path for hit in api.hits("/tickets")] == ["/tickets"]
    assert "  endpoint /tickets: data_path 'tickets' (5 records seen)" in last_user_message(fake_api.requests[0])
    assert TOKEN not in done.stdout + done.stderr
