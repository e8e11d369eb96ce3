"""Issue 42, items 10 and 11 (docs/security.md, "What you see"): what a server says reaches the
terminal escaped, and a connection's own token, echoed back by its server as a name, is masked in
`osiris discover`'s output, its catalog file and the `run --sample` preview header.

A hostile API on 127.0.0.1 (this file's own handler): a REST endpoint answering 400 with terminal
commands in its body, a GraphQL endpoint whose error holds the same, a REST endpoint whose records
have a key equal to the bearer token, and a GraphQL schema with a query field named after it.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.inprocess import run_inprocess
from tests.servers.graphql_api import fields, list_of, named, scalar
from tests.servers.json_api import send_json, serving
from tests.support import clean_env

TOKEN = "tok-Echoed-5b7e2c9a41"
CLIPBOARD = "\x1b]52;c;cm0gLXJmIH4=\x07"  # OSC 52: write "rm -rf ~" to the clipboard
TITLE = "\x1b]0;owned\x07"  # OSC 0: the window title
CLEAR = "\x1b[2J"  # erase the screen
HOSTILE = f"bad request{CLIPBOARD}{TITLE}{CLEAR} end"
FIELD_SCHEMA = {"__schema": {"queryType": {"name": "Query"}, "types": [
    {"kind": "OBJECT", "name": "Query", "fields": fields((f"f_{TOKEN}", list_of(named("Row"))))},
    {"kind": "OBJECT", "name": "Row", "fields": fields(("id", scalar("Int")), (f"c_{TOKEN}", scalar("String")))},
    {"kind": "SCALAR", "name": "Int", "fields": None}, {"kind": "SCALAR", "name": "String", "fields": None},
]}}


class Hostile(BaseHTTPRequestHandler):
    def log_message(self, *args: object) -> None:
        pass

    def do_GET(self) -> None:  # noqa: N802 (http.server's name)
        if self.path.startswith("/bad"):
            return self._raw(400, HOSTILE.encode())
        token = str(self.headers.get("authorization", "")).removeprefix("Bearer ")
        send_json(self, 200, {"items": [{"id": 1, token: "x", f"k_{token}": 2}]})

    def do_POST(self) -> None:  # noqa: N802
        self.rfile.read(int(self.headers.get("content-length") or 0))
        if self.path.startswith("/bad"):
            return send_json(self, 200, {"errors": [{"message": HOSTILE}], "data": None})
        send_json(self, 200, {"data": FIELD_SCHEMA})

    def _raw(self, status: int, body: bytes) -> None:
        self.send_response(status)
        self.send_header("content-type", "text/plain")
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


@pytest.fixture(scope="module")
def hostile() -> Iterator[str]:
    with serving(Hostile) as url:
        yield url


def discover(root: Path, *args: str) -> Any:
    return run_inprocess("discover", *args, cwd=root, env=clean_env(ECHO_TOKEN=TOKEN))


def settings(root: Path, url: str) -> None:
    bearer = {"auth_type": "bearer", "auth_token": "${ECHO_TOKEN}"}
    (root / ".osiris.yaml").write_text(yaml.safe_dump({"connections": {
        "rest": {"echo": {"base_url": url, **bearer}},
        "graphql": {"echo": {"endpoint": f"{url}/graphql", **bearer}, "bad": {"endpoint": f"{url}/bad", **bearer}},
    }}))


@pytest.mark.parametrize("args", [("@rest.echo", "/bad"), ("@graphql.bad",)], ids=["rest-400", "graphql-error"])
def test_a_servers_error_reaches_the_terminal_escaped(tmp_path, hostile, args):
    """Item 10: `osiris: error: cannot discover ...` quoting a server shows ESC as \\x1b, BEL as \\x07."""
    settings(tmp_path, hostile)
    done = discover(tmp_path, *args)
    assert done.returncode == 6
    assert done.stderr.startswith(f"osiris: error: cannot discover {args[0]}")
    assert "\x1b" not in done.stderr and "\x07" not in done.stderr
    assert "\\x1b]52;c;" in done.stderr and "\\x1b[2J" in done.stderr
    assert done.stderr.count("\n") == 1


@pytest.mark.parametrize("args, catalog", [
    (("@rest.echo", "/items"), "rest.echo"), (("@graphql.echo",), "graphql.echo"), (("@graphql.echo", "--json"), "graphql.echo"),
])
def test_a_token_echoed_back_as_a_name_is_masked_in_discover_and_its_catalog(tmp_path, hostile, args, catalog):
    """Item 11: a server that names a key, a field or a column after the connection's own token."""
    settings(tmp_path, hostile)
    done = discover(tmp_path, *args)
    assert done.returncode == 0, done.stderr
    text = (tmp_path / ".osiris" / "catalog" / f"{catalog}.json").read_text(encoding="utf-8")
    assert "***" in text and ("***" in done.stdout) is catalog.startswith("graphql")  # REST prints its path
    for shown in (done.stdout, done.stderr, text):
        assert TOKEN not in shown and TOKEN[:12] not in shown


def test_a_token_echoed_back_as_a_column_is_masked_in_the_sample_preview(tmp_path, hostile):
    """Item 11: the `run --sample` preview header (and the trail) show the column's name masked."""
    settings(tmp_path, hostile)
    pipeline = tmp_path / "p.yaml"
    pipeline.write_text(yaml.safe_dump({"oml_version": "0.1.0", "name": "echo", "steps": [
        {"id": "get-items", "component": "rest.extractor", "mode": "read",
         "config": {"connection": "@rest.echo", "endpoint": "/items", "data_path": "items"}}]}))
    done = run_inprocess("run", str(pipeline), "--sample", "2", cwd=tmp_path, env=clean_env(ECHO_TOKEN=TOKEN))
    assert done.returncode == 0, done.stderr
    assert "***" in done.stdout + done.stderr
    trail = [p.read_text(errors="replace") for p in (tmp_path / ".osiris").rglob("*") if p.is_file()]
    for shown in (done.stdout, done.stderr, *trail):
        assert TOKEN not in shown and TOKEN[:12] not in shown


def test_the_catalog_of_an_echoing_server_is_json_a_reader_can_load(tmp_path, hostile):
    settings(tmp_path, hostile)
    assert discover(tmp_path, "@rest.echo", "/items").returncode == 0
    columns = json.loads((tmp_path / ".osiris" / "catalog" / "rest.echo.json").read_text())["tables"]["/items"]["columns"]
    assert [c["name"] for c in columns] == ["id", "***", "k_***"]
