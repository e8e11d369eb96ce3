"""Issue 42, item 12 (docs/security.md, "Endpoints"): the run-time check covers every field a driver
reads to pick where it connects, so no such field can bypass it.

- the walk: every family's `FAMILY` declaration and every spec's `x-connection-fields`, and the
  config keys each driver module reads (found in its source), are covered by `endpoint_fields`;
- what the code really reads: `database_fields` (supabase.writer's PostgreSQL) and the HTTP
  client's config are called with a mapping that records each key asked for;
- the attack as written: with validation skipped, a supabase.writer step sets `host`/`port` (or
  `pg_host`/`pg_port`) to a listener of this test; the run stops with OML518 and the listener is
  never connected to.
"""

from __future__ import annotations

import re
import socket
import threading
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import pytest

from osiris.registry import load_registry
from osiris.run.display import Listeners
from osiris.run.drivers import families
from osiris.run.duckdb_run import RunOptions, run_pipeline
from osiris.trust.endpoints import endpoint_fields
from tests.effective_config import effective

ENDPOINTISH = re.compile(r"(^|_)(host|hostname|server|port|url|uri|dsn|endpoint|region|account|ssl|sslmode|"
                         r"validate_ssl|verify_ssl|project_id|base_dir|socket)$")
# Fields that look like an endpoint but are not one, each with the reason.
NOT_ENDPOINTS = {
    ("rest", "endpoint"): "a path under the connection's base_url; join_url keeps it there (osiris/run/http.py)",
    ("rest", "base_dir"): "where catalog_columns looks for the project's catalog (column types), not where it connects",
}
DRIVERS = Path(__file__).resolve().parent.parent / "osiris" / "run" / "drivers"
_CONFIG_KEY = re.compile(r"config(?:\.get\(|\[)\s*[\"']([a-z_]+)[\"']")
_IMPORTED = re.compile(r"from osiris\.run\.(http|drivers\.\w+) import")


def covered(family: str) -> frozenset[str]:
    """The fields the run-time check covers for every component of `family` (the narrowest)."""
    registry = load_registry()
    specs = [registry.get(name) for name in families()[family].components]
    sets = [endpoint_fields(spec) for spec in specs if spec is not None]
    return frozenset.intersection(*sets) if sets else frozenset()


def read_keys(family: str) -> set[str]:
    """The config keys the family's driver modules, and the shared modules they import from
    (osiris.run.http, sql_base, ...; another family's module is checked as that family), read as
    their source names them."""
    own = [p for p in DRIVERS.glob("*.py") if p.stem == family or p.stem.startswith(family + "_")]
    texts = {path: path.read_text(encoding="utf-8") for path in own}
    for text in list(texts.values()):
        for module in _IMPORTED.findall(text):
            if module.removeprefix("drivers.") in families():
                continue
            path = DRIVERS.parent / f"{module.replace('drivers.', 'drivers/')}.py"
            texts.setdefault(path, path.read_text(encoding="utf-8"))
    return {key for text in texts.values() for key in _CONFIG_KEY.findall(text)}


@pytest.mark.parametrize("family", sorted(families()))
def test_every_endpoint_field_a_family_declares_or_reads_is_covered(family):
    facts = families()[family]
    registry = load_registry()
    declared = {field for name in facts.components if (spec := registry.get(name)) is not None
                for field in spec.connection_fields}
    endpointish = {key for key in read_keys(family) | declared | set(facts.endpoints)
                   if ENDPOINTISH.search(key) and (family, key) not in NOT_ENDPOINTS}
    if family in ("duckdb",):
        endpointish &= set(facts.endpoints)  # the engine reads no connection: only what it declares
    missing = endpointish - covered(family)
    assert missing == set(), f"{family}: {sorted(missing)} can move where the connection goes but are not checked"


class Recording(Mapping[str, Any]):
    """A config that remembers every key the code asks for."""

    def __init__(self, data: dict[str, Any]) -> None:
        self.data, self.asked = data, set[str]()

    def __getitem__(self, key: str) -> Any:
        self.asked.add(key)
        return self.data[key]

    def get(self, key: str, default: Any = None) -> Any:
        self.asked.add(key)
        return self.data.get(key, default)

    def __contains__(self, key: object) -> bool:
        self.asked.add(str(key))
        return key in self.data

    def __iter__(self) -> Iterator[str]:
        return iter(self.data)

    def __len__(self) -> int:
        return len(self.data)


def test_what_the_supabase_and_http_code_really_reads_is_covered():
    from osiris.run.drivers.supabase import CLIENT_SETTINGS
    from osiris.run.drivers.supabase_postgres import database_fields
    from osiris.run.http import client_for

    config = Recording(effective("supabase.extractor", {"host": "db", "database": "postgres", "user": "u", "password": "p"}))
    database_fields(config)
    client_for(config, (), {}, CLIENT_SETTINGS)
    asked = {key for key in config.asked if ENDPOINTISH.search(key)}
    assert {"pg_host", "pg_port", "host", "port", "pg_dsn", "validate_ssl"} <= asked
    assert asked - covered("supabase") == set()
    for family in ("rest", "graphql", "posthog"):
        assert "validate_ssl" in covered(family)


@pytest.fixture
def listener() -> Iterator[tuple[int, list[str]]]:
    """A TCP port of this test: every connection to it is recorded (it must stay empty)."""
    server = socket.create_server(("127.0.0.1", 0))
    server.settimeout(0.2)
    heard: list[str] = []
    stop = threading.Event()

    def accept() -> None:
        while not stop.is_set():
            try:
                conn, _ = server.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            heard.append("connected")
            conn.close()

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    yield server.getsockname()[1], heard
    stop.set()
    thread.join(timeout=5)
    server.close()


@pytest.mark.parametrize("moved", [("host", "port"), ("pg_host", "pg_port")])
def test_a_supabase_writer_cannot_send_its_database_login_elsewhere(tmp_path, listener, moved):
    """Item 12 as written: validation skipped, the step points the connection's PostgreSQL at this
    test's listener. The run-time check refuses it (OML518) before anything connects."""
    port, heard = listener
    connection = {"url": "http://127.0.0.1:9", "key": "${SUPA_KEY}", "pg_host": "127.0.0.1", "pg_port": 9,
                  "pg_database": "postgres", "pg_user": "u", "pg_password": "${PG_PW}"}
    host, port_field = moved
    steps = [{"id": "shape", "component": "duckdb.processor", "mode": "transform", "config": {"query": "SELECT 1 AS id"}},
             {"id": "write", "component": "supabase.writer", "mode": "write", "needs": ["shape"],
              "config": {"connection": "@supabase.main", "table": "t", host: "localhost", port_field: port}}]
    options = RunOptions(connections={"supabase": {"main": connection}},
                         env={"SUPA_KEY": "key-Planted-8d1e0f", "PG_PW": "pw-Planted-2b7c"}, base_dir=tmp_path)
    result = run_pipeline({"steps": steps}, options, Listeners())
    [problem] = [step.problem for step in result.steps if step.problem is not None]
    assert problem.code == "OML518" and f"'{host}' says where @supabase.main connects" in problem.message
    assert heard == []
