"""Issue 26 for GraphQL: `osiris discover @graphql.NAME [FIELD...]` reads the endpoint's schema by
introspection (one authenticated POST) into the catalog, the request prompt tells each query field's
data_path, paging and keys, and a scripted model that uses only that prompt writes a pipeline whose
sample run passes at the first attempt (the real SDK against the fake Messages API). The local API is
tests/servers/graphql_api.py; its bearer token is planted and looked for everywhere.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.fake_anthropic import Reply
from tests.inprocess import run_inprocess
from tests.run_helpers import set_connection
from tests.sample_project import SampleProject, generated_at_first_attempt, read_pick_write, request_text
from tests.servers.graphql_api import REFUSED, TICKETS, TOKEN, GraphQLApi, graphql_api
from tests.support import clean_env

VALUES = [TICKETS[0]["subject"], TICKETS[0]["requester"]["email"], "User 1", "tag1"]
TICKETS_ENTRY = {
    "columns": [{"name": name, "type": kind, "nullable": kind.endswith("|null")} for name, kind in (
        ("id", "string"), ("subject", "string"), ("priority", "string|null"), ("requester", "object"),
        ("tags", "array of string"), ("score", "number|null"))],
    "primary_key": [],
    "returns": "TicketConnection!",
    "arguments": [{"name": "first", "type": "Int"}, {"name": "after", "type": "String"}],
    "data_path": "data.tickets.nodes",
    "record_type": "Ticket",
    "graphql_types": {"id": "ID!", "subject": "String!", "priority": "Priority", "requester": "Person!",
                      "tags": "[String!]!", "score": "Float", "requester.email": "String!",
                      "requester.name": "String", "requester.manager": "Person",
                      "requester.manager.email": "String!", "requester.manager.name": "String",
                      "requester.manager.manager": "Person"},
    "fields": [{"name": "requester.email", "type": "string"}, {"name": "requester.name", "type": "string|null"},
               {"name": "requester.manager", "type": "object|null"},
               {"name": "requester.manager.email", "type": "string"},
               {"name": "requester.manager.name", "type": "string|null"},
               {"name": "requester.manager.manager", "type": "object|null"}],
    "paging": {"style": "graphql", "pagination_path": "data.tickets.pageInfo", "cursor_variable": "after"},
    "enum_values": {"priority": ["LOW", "HIGH"]},
}


@pytest.fixture(scope="module")
def served() -> Iterator[GraphQLApi]:
    with graphql_api() as api:
        yield api


@pytest.fixture
def gql(served: GraphQLApi) -> GraphQLApi:
    served.requests.clear()
    served.introspection, served.wide, served.pad_mb = True, 0, 0
    return served


def settings(root: Path, api: GraphQLApi, extra: dict[str, Any] | None = None) -> None:
    set_connection(root, "graphql", "helpdesk", {"endpoint": api.endpoint, "auth_type": "bearer",
                                                 "auth_token": "${HELPDESK_TOKEN}"}, extra)


def discover(root: Path, *args: str, token: str = TOKEN) -> Any:
    return run_inprocess("discover", *args, cwd=root, env=clean_env(HELPDESK_TOKEN=token))


def catalog_text(root: Path) -> str:
    return (root / ".osiris" / "catalog" / "graphql.helpdesk.json").read_text(encoding="utf-8")


def test_discover_records_each_query_field_with_its_records_keys_types_and_paging(tmp_path: Path,
                                                                                  gql: GraphQLApi) -> None:
    settings(tmp_path, gql)
    done = discover(tmp_path, "@graphql.helpdesk")
    assert (done.returncode, done.stdout, done.stderr) == (
        0, ".osiris/catalog/graphql.helpdesk.json: 4 query fields (agents, events, me, tickets)\n", "")
    text = catalog_text(tmp_path)
    catalog = json.loads(text)
    assert (catalog["connection"], catalog["family"]) == ("@graphql.helpdesk", "graphql")
    assert catalog["tables"]["tickets"] == TICKETS_ENTRY
    assert {name: (t["returns"], t["data_path"]) for name, t in catalog["tables"].items()} == {
        "agents": ("[Person!]!", "data.agents"), "me": ("Person", "data.me"),
        "events": ("EventConnection", "data.events.edges"),
        "tickets": ("TicketConnection!", "data.tickets.nodes")}  # `version: String!` returns no records
    events = catalog["tables"]["events"]  # a connection with edges: each record holds its node
    assert (events["record_type"], events["columns"], events["fields"], events["paging"]) == (
        "EventEdge", [{"name": "cursor", "type": "string", "nullable": False},
                      {"name": "node", "type": "object", "nullable": False}],
        [{"name": "node.at", "type": "any"}, {"name": "node.kind", "type": "string|null"}],
        {"style": "graphql", "pagination_path": "data.events.pageInfo"})  # no `after` argument to name
    assert len(gql.requests) == 1  # one POST, authenticated, asking for the schema only
    sent = gql.requests[0]
    assert (sent["path"], sent["headers"]["authorization"]) == ("/graphql", f"Bearer {TOKEN}")
    assert "__schema" in sent["body"]["query"] and "tickets" not in sent["body"]["query"]
    for never in [TOKEN, *VALUES]:
        assert never not in text + done.stdout + done.stderr


def test_named_fields_only_and_a_missing_one_is_a_warning(tmp_path: Path, gql: GraphQLApi) -> None:
    settings(tmp_path, gql)
    done = discover(tmp_path, "@graphql.helpdesk", "Tickets", "nope")
    assert (done.returncode, done.stdout, done.stderr) == (
        0, ".osiris/catalog/graphql.helpdesk.json: 1 query field (tickets)\n",
        "osiris: warning: query field 'nope' was not found on @graphql.helpdesk\n")
    assert list(json.loads(catalog_text(tmp_path))["tables"]) == ["tickets"]


def test_introspection_turned_off_is_one_line_and_exit_6(tmp_path: Path, gql: GraphQLApi) -> None:
    settings(tmp_path, gql)
    gql.introspection = False
    done = discover(tmp_path, "@graphql.helpdesk")
    assert (done.returncode, done.stdout) == (6, "")
    assert done.stderr == (
        f"osiris: error: cannot discover @graphql.helpdesk: the GraphQL endpoint {gql.endpoint} does not answer "
        f"introspection (OML531): {REFUSED} (Osiris reads a GraphQL schema by introspection; ask the API's owner "
        "to allow it for this token, or write the query from the API's documentation and check it with osiris "
        "run --sample)\n")
    assert not (tmp_path / ".osiris" / "catalog").exists()


def test_a_schema_is_kept_within_bounds_and_its_answer_within_the_clients_size_cap(tmp_path: Path,
                                                                                   gql: GraphQLApi) -> None:
    settings(tmp_path, gql)
    gql.wide = 150
    assert discover(tmp_path, "@graphql.helpdesk").returncode == 0
    tables = json.loads(catalog_text(tmp_path))["tables"]
    assert len(tables) == 100 and "wide96" in tables and "wide97" not in tables  # the first 100 fields
    assert len(tables["wide1"]["columns"]) == 200 and tables["wide1"]["fields"] == []  # 200 keys at most

    settings(tmp_path, gql, {"connections": {}})
    config = yaml.safe_load((tmp_path / ".osiris.yaml").read_text(encoding="utf-8"))
    config["connections"]["graphql"]["helpdesk"]["max_response_mb"] = 1
    (tmp_path / ".osiris.yaml").write_text(yaml.safe_dump(config), encoding="utf-8")
    gql.pad_mb = 2
    done = discover(tmp_path, "@graphql.helpdesk", "--refresh")
    assert (done.returncode, done.stdout) == (6, "")
    assert done.stderr == (  # the HTTP client's own cap and words (docs/run-http.md)
        f"osiris: error: cannot discover @graphql.helpdesk: the response of POST {gql.endpoint} is larger than "
        "max_response_mb (1 MB decoded); not read further (Ask for smaller pages (the API's page-size parameter "
        "in params), or raise max_response_mb in the step if the API really sends pages this large.)\n")


def test_a_connection_without_an_endpoint_is_one_line(tmp_path: Path) -> None:
    (tmp_path / ".osiris.yaml").write_text(yaml.safe_dump({"connections": {"graphql": {"bare": {"auth_type": "none"}}}}))
    done = discover(tmp_path, "@graphql.bare")
    assert (done.returncode, done.stderr) == (
        6, "osiris: error: cannot discover @graphql.bare: the connection has no endpoint (set endpoint: "
           "https://.../graphql for the connection in .osiris.yaml)\n")


def test_a_rejected_token_is_one_line_without_it(tmp_path: Path, gql: GraphQLApi) -> None:
    settings(tmp_path, gql)
    done = discover(tmp_path, "@graphql.helpdesk", token="gql-Wrong-0123456789")
    assert done.returncode == 6
    assert done.stderr == (f"osiris: error: cannot discover @graphql.helpdesk: authentication failed: POST "
                           f"{gql.endpoint} answered 401 Unauthorized (Check the connection's credentials "
                           "(auth_token, auth_username or key) and auth_type.)\n")
    assert "gql-Wrong" not in done.stderr


def test_the_request_prompt_tells_the_field_its_data_path_paging_and_each_key(tmp_path: Path,
                                                                              gql: GraphQLApi) -> None:
    from osiris.catalog.store import list_catalogs
    from osiris.prompt.schema import API_NOTE, GRAPHQL_NOTE, schema_section

    settings(tmp_path, gql)
    discover(tmp_path, "@graphql.helpdesk", "tickets")
    section = schema_section("copy the helpdesk tickets to a csv", list_catalogs(tmp_path), 2000)
    assert GRAPHQL_NOTE in section and API_NOTE not in section
    body = section.split("```yaml\n", 1)[1].split("\n```", 1)[0].splitlines()
    assert body[0].startswith("@graphql.helpdesk (graphql, discovered ")
    assert body[1:9] == [
        "  query field tickets(first: Int, after: String): TicketConnection!; data_path 'data.tickets.nodes' "
        "(records of type Ticket); paging: pagination_enabled: true, pagination_path: data.tickets.pageInfo, "
        "pagination_variable_name: after (ask for pageInfo { hasNextPage endCursor })",
        "    id string (GraphQL ID!)",
        "    subject string (GraphQL String!)",
        "    priority string|null (GraphQL Priority), one of: LOW, HIGH",  # the enum's values (issue 41)
        "    requester object (GraphQL Person!)",
        "    tags array of string (GraphQL [String!]!)",
        "    score number|null (GraphQL Float)",
        "    requester.email string (GraphQL String!)",
    ]
    small = schema_section("copy the helpdesk tickets", list_catalogs(tmp_path), 120)
    assert "more keys)" in small and small.count("\n    ") < 8  # cut to the budget


def literal_model(body: dict[str, Any]) -> Reply:
    """Writes a pipeline from the request prompt alone: the connection, field, arguments, data_path and
    pageInfo path it tells, the nested email selected and read as its note says (flattened, `_`)."""
    prompt = request_text(body)
    connection = re.search(r"^(@graphql\.\w+) \(graphql, discovered", prompt, re.MULTILINE)
    field = re.search(r"query field (\w+)\(first: Int, after: String\).*?data_path '([^']*)'.*?"
                      r"pagination_path: (\S+), pagination_variable_name: (\w+)", prompt)
    email = re.search(r"^ {4}(\w+)\.(\w*email\w*) string ", prompt, re.MULTILINE)
    assert connection and field and email, prompt
    name, data_path, page_info, variable = field.groups()
    query = (f"query Q($first: Int, ${variable}: String) {{ {name}(first: $first, {variable}: ${variable}) "
             f"{{ nodes {{ id subject {email.group(1)} {{ {email.group(2)} }} }} "
             "pageInfo { hasNextPage endCursor } } }")
    read = {"component": "graphql.extractor",
            "config": {"connection": connection.group(1), "query": query, "variables": {"first": 3},
                       "data_path": data_path, "pagination_enabled": True, "pagination_path": page_info,
                       "pagination_variable_name": variable}}
    return Reply(read_pick_write(read, f"SELECT id, subject, {email.group(1)}_{email.group(2)} AS email FROM input_df"))


def test_a_model_using_only_the_prompt_passes_the_sample_run_at_the_first_attempt(
        tmp_path: Path, fake_api: Any, gql: GraphQLApi) -> None:
    proj = SampleProject(tmp_path / "p", fake_api)
    settings(proj.root, gql)
    proj.planted("HELPDESK_TOKEN", TOKEN)
    assert discover(proj.root, "@graphql.helpdesk").returncode == 0
    fake_api.add(literal_model)

    done = generated_at_first_attempt(
        proj, fake_api, "copy the helpdesk tickets with the requester's email to output/tickets.csv", [TOKEN, *VALUES])

    assert yaml.safe_load(done.stdout)["steps"][1]["config"]["query"] == (
        "SELECT id, subject, requester_email AS email FROM input_df")
    dry_run = proj.attempt_file(1, 1, "dry_run.json")
    assert [(s["id"], s["rows_out"]) for s in dry_run["steps"]][:2] == [("fetch-tickets", 7), ("pick", 7)]
    assert len(gql.requests) == 1 + 3  # the discovery, then the sample's three pages of 3, 3 and 1 tickets
    assert TOKEN not in json.dumps([r.body for r in fake_api.requests])


def test_the_chat_offers_to_read_a_graphql_schema_and_the_request_carries_what_it_read(
        project: Path, fake_api: Any, gql: GraphQLApi) -> None:
    """As it offers database and REST discovery (issue 26): a request naming the connection's alias
    gets the offer once; yes reads the schema (one POST), and the first request to the model holds it."""
    from tests.sample_project import chat_typing, last_user_message

    settings(project, gql)
    done = chat_typing(project, fake_api, "copy the helpdesk tickets to a csv\ny\nn\n", HELPDESK_TOKEN=TOKEN)
    assert done.returncode == 0, done.stderr
    assert ("No schema catalog for @graphql.helpdesk yet. Read its query fields (its schema) now, so that the "
            "pipeline uses real names? [y/N] ") in done.stdout
    assert "Read 4 query fields of @graphql.helpdesk into .osiris/catalog/graphql.helpdesk.json." in done.stdout
    assert len(gql.requests) == 1 and "__schema" in gql.requests[0]["body"]["query"]
    assert ("  query field tickets(first: Int, after: String): TicketConnection!; data_path 'data.tickets.nodes'"
            in last_user_message(fake_api.requests[0]))
    assert TOKEN not in done.stdout + done.stderr


def test_mentioned_connections_finds_a_graphql_api_by_its_alias() -> None:
    from osiris.chat.discover_offer import mentioned_connections

    connections = {"graphql": {"helpdesk": {}}, "posthog": {"default": {}}}
    assert mentioned_connections("copy the Helpdesk tickets", connections) == ["@graphql.helpdesk"]
    assert mentioned_connections("copy the default events", connections) == []  # a PostHog alias is no API name
