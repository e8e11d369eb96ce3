"""`osiris mcp` against the real PostgreSQL (the `postgres_server` fixture), as a subprocess driven by
the SDK's stdio client: `run_sample` proves a replace write and leaves the target as it was,
`discovery_request` reads names and types into the catalog, and the password, which reaches the
server only through `${PG_PASSWORD}`, is in no result, no session file and not on stderr."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest
import yaml

from tests.mcp_client import McpServer
from tests.run_helpers import RunProject, pg_step


@pytest.fixture
def pg(postgres_server) -> Iterator[psycopg.Connection]:
    with psycopg.connect(postgres_server.dsn(), autocommit=True) as conn:
        conn.execute("DROP TABLE IF EXISTS mcp_orders, mcp_target")
        conn.execute("CREATE TABLE mcp_orders (id integer PRIMARY KEY, amount numeric(8,2), placed date)")
        conn.execute("INSERT INTO mcp_orders VALUES (1, 9.50, '2026-01-02'), (2, 20.00, '2026-01-03'), "
                     "(3, 7.25, NULL)")
        conn.execute("CREATE TABLE mcp_target (id integer PRIMARY KEY, amount numeric(8,2), placed date)")
        conn.execute("INSERT INTO mcp_target VALUES (100, 1.00, '2020-01-01')")
        yield conn


def checksum(pg: psycopg.Connection, table: str) -> str:
    row = pg.execute(f"SELECT count(*) || ':' || coalesce(md5(string_agg(t::text, '|' ORDER BY t::text)), '') "
                     f"FROM {table} t").fetchone()
    assert row is not None
    return str(row[0])


def test_run_sample_and_discovery_on_postgres(tmp_path: Path, postgres_server, pg) -> None:
    project = RunProject(tmp_path / "project", postgres=postgres_server)
    oml = yaml.safe_dump({"oml_version": "0.1.0", "name": "copy-orders", "steps": [
        pg_step("read-orders", "read", table="mcp_orders"),
        pg_step("write-orders", "write", table="mcp_target", write_mode="replace")]}, sort_keys=False)
    before = checksum(pg, "mcp_target")
    server = McpServer.start(project.root, project.env)
    try:
        sampled = server.call("run_sample", {"oml": oml, "rows": 2})
        discovered = server.call("discovery_request", {"connection": "@postgres.default", "tables": ["mcp_orders"]})
        again = server.call("discovery_request", {"connection": "@postgres.default", "tables": ["mcp_orders"]})
    finally:
        stderr = server.close()

    assert checksum(pg, "mcp_target") == before  # the replace was proven, then rolled back
    data = sampled.data
    assert data["status"] == "succeeded", sampled.text
    assert [(s["id"], s["status"], s["rows_in"], s["rows_out"]) for s in data["steps"]] == [
        ("read-orders", "ok", 2, 2), ("write-orders", "ok", 2, 2)]
    assert data["steps"][0]["columns"] == [{"name": "id", "type": "INTEGER"}, {"name": "amount", "type": "DECIMAL(8,2)"},
                                           {"name": "placed", "type": "DATE"}]
    assert [message.split("  ")[0] for _, _, message in sampled.progress] == [
        "running (oml from the assistant) on 2 rows a source", "step 'read-orders' running (postgres.extractor)",
        "read-orders", "step 'write-orders' running (postgres.writer)", "write-orders"]
    assert "9.50" not in sampled.text and "2026-01-02" not in sampled.text  # no row values

    table = discovered.data
    assert (table["catalog"], table["cached"], table["table_count"], table["missing"]) == (
        "postgres.default", False, 1, [])
    assert table["tables"]["mcp_orders"]["columns"] == [
        {"name": "id", "type": "integer", "nullable": False}, {"name": "amount", "type": "numeric(8,2)", "nullable": True},
        {"name": "placed", "type": "date", "nullable": True}]
    assert table["tables"]["mcp_orders"]["primary_key"] == ["id"]
    assert table["path"] == ".osiris/catalog/postgres.default.json"
    on_disk = json.loads((project.root / table["path"]).read_text())
    assert on_disk["tables"]["mcp_orders"] == table["tables"]["mcp_orders"]
    assert again.data["cached"] is True and again.data["path"] is None
    assert discovered.progress[0] == (0, None, "reading the tables of @postgres.default")

    password = project.secrets[0]
    for call in (sampled, discovered, again):
        assert password not in call.text + json.dumps(call.result.structured_content)
    assert password not in stderr and "Traceback" not in stderr
    project.assert_no_secrets()
