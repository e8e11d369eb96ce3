"""`discovery_request` reaches what `osiris discover` reaches (issue 27): a REST connection's
endpoint paths, a GraphQL connection's schema, and CSV files of the project, through a real
`python -m osiris mcp` subprocess driven by the SDK's own stdio client. A CSV path from the
assistant is held to the trust boundary: files planted outside the project (in this test's temp
dir, never a system path), behind a link, hidden or not CSV are tool errors, and the server goes on
serving. The planted tokens and file contents are looked for in every result and the session.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml

from tests.mcp_client import Call, McpServer
from tests.servers.graphql_api import TOKEN as GQL_TOKEN
from tests.servers.graphql_api import GraphQLApi, graphql_api
from tests.servers.http_apis import CELL_CANARY
from tests.servers.http_apis import TOKEN as REST_TOKEN
from tests.servers.http_apis import ApiServer, start_api
from tests.support import shows_number

OUTSIDE_VALUE = "outside-Planted-3f1c9e"  # the header of a CSV file outside the project
HIDDEN_VALUE = "hidden-Planted-8d2b41"  # the first line of a hidden file inside it


class Served:
    def __init__(self, root: Path, outside: Path, rest: ApiServer, gql: GraphQLApi) -> None:
        self.root, self.outside, self.rest, self.gql = root, outside, rest, gql
        self.server = McpServer.start(root, {"REST_TOKEN": REST_TOKEN, "GQL_TOKEN": GQL_TOKEN})
        self.calls: list[Call] = []

    def call(self, arguments: dict[str, object]) -> Call:
        done = self.server.call("discovery_request", arguments)
        self.calls.append(done)
        return done


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    base = tmp_path_factory.mktemp("mcp-discovery")
    root, outside = base / "project", base / "outside"
    (root / "data").mkdir(parents=True)
    outside.mkdir()
    (root / "data" / "customers.csv").write_text("id,email,active\n1,a@example.org,true\n2,b@example.org,false\n")
    (root / "data" / "notes.txt").write_text("id,text\n1,x\n")
    (root / ".env.csv").write_text(f"{HIDDEN_VALUE},x\n1,2\n")
    (outside / "secret.csv").write_text(f"{OUTSIDE_VALUE},b\n1,2\n")
    (root / "data" / "linked.csv").symlink_to(outside / "secret.csv")
    rest = start_api()
    with graphql_api() as gql:
        connections = {
            "rest": {"helpdesk": {"base_url": rest.url, "auth_type": "bearer", "auth_token": "${REST_TOKEN}"}},
            "graphql": {"helpdesk": {"endpoint": gql.endpoint, "auth_type": "bearer", "auth_token": "${GQL_TOKEN}"}}}
        (root / ".osiris.yaml").write_text(yaml.safe_dump({"connections": connections}), encoding="utf-8")
        state = Served(root, outside, rest, gql)
        try:
            yield state
        finally:
            state.server.close()
            rest.stop()


def catalog(root: Path, name: str) -> dict[str, object]:
    data: dict[str, object] = json.loads((root / ".osiris" / "catalog" / f"{name}.json").read_text(encoding="utf-8"))
    return data


def test_the_tool_says_what_it_reads(served: Served) -> None:
    tool = served.server.tools()["discovery_request"]
    properties = tool.input_schema["properties"]
    assert list(properties) == ["connection", "tables", "file", "refresh", "timeout_seconds"]
    assert "for a @rest connection the endpoint paths to read (required)" in properties["tables"]["description"]
    described = " ".join((tool.description or "").split())
    assert "A @rest connection: name the endpoint paths in tables" in described
    assert "A @graphql connection: its schema by introspection" in described
    assert "Or a CSV file of the project (file)" in described


def test_a_rest_connection_is_read_by_its_endpoint_paths(served: Served) -> None:
    before = len(served.rest.hits("/tickets"))  # other tests of the module may have read it, in any order
    done = served.call({"connection": "@rest.helpdesk", "tables": ["/tickets"], "refresh": True})
    data = done.data
    assert (data["catalog"], data["connection"], data["cached"], data["path"], data["missing"]) == (
        "rest.helpdesk", "@rest.helpdesk", False, ".osiris/catalog/rest.helpdesk.json", [])
    entry = data["tables"]["/tickets"]
    assert (entry["data_path"], entry["paging"]["cursor_path"]) == ("tickets", "meta.next_cursor")
    assert [c["name"] for c in entry["columns"]] == ["id", "subject", "requester", "tags", "due"]
    assert {"name": "requester.email", "type": "string"} in entry["fields"]
    assert catalog(served.root, "rest.helpdesk")["tables"] == data["tables"]
    assert [hit.headers["authorization"] for hit in served.rest.hits("/tickets")[before:]] == [f"Bearer {REST_TOKEN}"]
    assert done.progress[0] == (0, None, "reading the endpoints of @rest.helpdesk")


def test_a_rest_connection_without_paths_is_a_tool_error_and_the_server_goes_on(served: Served) -> None:
    done = served.call({"connection": "@rest.helpdesk"})
    assert done.error
    assert done.text == 'discovery_request: name the endpoint path(s) to read, e.g. tables: ["/customers"]'
    served.call({"connection": "@rest.helpdesk", "tables": ["/tickets"]})
    again = served.call({"connection": "@rest.helpdesk", "tables": ["/tickets"]})
    assert not again.error and again.data["cached"] is True and "/tickets" in again.data["tables"]


def test_a_graphql_connection_is_read_by_introspection(served: Served) -> None:
    before = len(served.gql.requests)
    done = served.call({"connection": "@graphql.helpdesk", "tables": ["tickets"], "refresh": True})
    entry = done.data["tables"]["tickets"]
    assert (entry["data_path"], entry["returns"], entry["paging"]["pagination_path"]) == (
        "data.tickets.nodes", "TicketConnection!", "data.tickets.pageInfo")
    assert [c["name"] for c in entry["columns"]] == ["id", "subject", "priority", "requester", "tags", "score"]
    assert done.progress[0] == (0, None, "reading the query fields of @graphql.helpdesk")
    assert [r["headers"]["authorization"] for r in served.gql.requests[before:]] == [f"Bearer {GQL_TOKEN}"]


def test_a_csv_file_of_the_project(served: Served) -> None:
    data = served.call({"file": "data/customers.csv", "refresh": True}).data  # another test may have read it
    assert (data["catalog"], data["connection"], data["path"]) == (
        "csv.customers", "data/customers.csv", ".osiris/catalog/csv.customers.json")
    assert data["tables"] == {"customers": {"columns": [
        {"name": "id", "type": "BIGINT", "nullable": True}, {"name": "email", "type": "VARCHAR", "nullable": True},
        {"name": "active", "type": "BOOLEAN", "nullable": True}], "primary_key": []}}
    assert served.call({"file": "data/customers.csv"}).data["cached"] is True


@pytest.mark.parametrize("given, said", [
    ("../outside/secret.csv", "file '../outside/secret.csv' goes up with '..': files stay inside the project"),
    ("data/linked.csv", "file 'data/linked.csv' leads out of the project through a symbolic link: files stay "
                        "inside the project"),
    (".osiris.yaml", "file '.osiris.yaml' names Osiris's own settings file: files stay inside the project"),
])
def test_a_file_outside_the_project_is_a_tool_error(served: Served, given: str, said: str) -> None:
    done = served.call({"file": given})
    assert done.error
    assert done.text == (f"discovery_request: {said}; give a CSV file's path relative to the project folder, "
                         "e.g. data/customers.csv")


def test_an_absolute_path_hidden_and_other_files_are_refused(served: Served) -> None:
    planted = served.outside / "secret.csv"
    absolute = served.call({"file": str(planted)})
    assert absolute.text == (f"discovery_request: file '{planted}' is an absolute path: files stay inside the "
                             "project; give a CSV file's path relative to the project folder, e.g. data/customers.csv")
    assert served.call({"file": ".env.csv"}).text == (
        "discovery_request: '.env.csv' is hidden or inside a hidden folder; Osiris reads no hidden files for an "
        "assistant")
    assert served.call({"file": "data/notes.txt"}).text == (
        "discovery_request: 'data/notes.txt' is not a .csv file; discovery_request reads CSV files, "
        "e.g. data/customers.csv")
    assert served.call({"file": "data/none.csv"}).text == (
        "discovery_request: 'data/none.csv' is not a file in the project (no such file)")
    both = served.call({"file": "data/customers.csv", "connection": "@rest.helpdesk"})
    assert both.text == ("discovery_request: give one of connection (e.g. @postgres.default) or file (a CSV file "
                         "in the project, e.g. data/customers.csv)")
    assert served.call({}).text == both.text
    assert not [p for p in (served.root / ".osiris" / "catalog").glob("*") if "secret" in p.name or "env" in p.name]
    assert served.call({"file": "data/customers.csv"}).data["table_count"] == 1  # still serving


def test_no_token_nor_refused_content_in_any_result_or_the_session(served: Served) -> None:
    """Every call of the module so far is in the scan, and the test makes one of each kind itself, so
    that it proves the same whichever tests ran before it."""
    for arguments in ({"connection": "@rest.helpdesk", "tables": ["/tickets"], "refresh": True},
                      {"connection": "@graphql.helpdesk", "tables": ["tickets"], "refresh": True},
                      {"connection": "@rest.helpdesk"}, {"file": "data/customers.csv", "refresh": True},
                      {"file": "../outside/secret.csv"}, {"file": "data/linked.csv"}, {"file": ".env.csv"},
                      {"file": str(served.outside / "secret.csv")}):
        served.call(arguments)
    sent = "\n".join(call.text + json.dumps(call.result.structured_content) for call in served.calls)
    files = [p for p in (served.root / ".osiris").rglob("*") if p.is_file()]
    kept = "\n".join(p.read_text(encoding="utf-8", errors="replace") for p in files)
    assert any(p.parent.name == "catalog" for p in files) and any("sessions" in p.parts for p in files)
    for never in (REST_TOKEN, GQL_TOKEN, OUTSIDE_VALUE, HIDDEN_VALUE):
        assert never not in sent and never not in kept, never


def test_a_servers_error_reaches_the_assistant_with_known_words_only(served: Served) -> None:
    """A 400 body quoting a record and holding ESC sequences (a clipboard write, a title, a clear
    screen): the tool error keeps Osiris's line and the known words, never the value nor an ESC
    (docs/security.md, "What an engine says")."""
    done = served.call({"connection": "@rest.helpdesk", "tables": ["/quote-cell"], "refresh": True})

    assert done.error
    assert done.text.startswith("discovery_request: cannot discover @rest.helpdesk: "), done.text
    assert "Bad Request from GET" in done.text and "/quote-cell" in done.text, done.text
    for piece in (CELL_CANARY, "CANARY", "\x1b", "u001b", "52;c", "aGk"):
        assert piece not in done.text, done.text
    assert not shows_number(done.text, "7731"), done.text  # not by chance inside the server's port
