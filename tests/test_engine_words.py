"""What an engine says is not trusted either (docs/security.md, "What an engine says"): a cell value
planted in the data (`Ann-CANARY-7731`) that an engine, a database or an API repeats in its error
text reaches none of the outputs: the retry request the LLM gets, the terminal (stderr), the trail
(events.jsonl, dry_run.json) and the MCP result. A matrix: every error source x every output, each
cell run for real (DuckDB, PostgreSQL 15, MariaDB, a local HTTP API, the real SDK against the fake
Messages API, the real MCP client). The problem's code still reaches them, so each run did fail
where it was meant to."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import psycopg
import pymysql
import pytest
import yaml

from osiris.trust.engine_words import Known, filtered, shown_columns, vocabulary
from tests.fake_anthropic import Reply
from tests.run_helpers import RunProject, csv_step, mysql_step, pg_step, sql_step
from tests.sample_project import SampleProject, pipeline
from tests.support import shows_number

CANARY = "Ann-CANARY-7731"
PIECES = (CANARY, "CANARY")  # and 7731 as a number of its own (shows_number)
ROWS = f"id,name,email\n1,{CANARY},{CANARY}@x.org\n"


def read() -> dict[str, Any]:
    return csv_step("read", "read", "rows.csv")


def transform(query: str) -> list[dict[str, Any]]:
    return [read(), sql_step("pick", query, needs=["read"])]


def answering(status: int, payload: Any) -> Iterator[str]:
    """A local API answering every GET with `status` and `payload` as JSON, for as long as it yields."""

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: object) -> None:
            pass

        def do_GET(self) -> None:
            body = json.dumps(payload).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()


@pytest.fixture(scope="module")
def api_url() -> Iterator[str]:
    """An API whose error body quotes a record: `400 {"error": "customer Ann-CANARY-7731 is locked"}`."""
    yield from answering(400, {"error": f"customer {CANARY} is locked", "code": "locked"})


def pg_unique(postgres: Any) -> list[dict[str, Any]]:
    with psycopg.connect(postgres.dsn(), autocommit=True) as conn:
        conn.execute("DROP TABLE IF EXISTS ew_people")
        conn.execute("CREATE TABLE ew_people (id integer, name text, email text UNIQUE)")
        conn.execute("INSERT INTO ew_people VALUES (9, 'x', %s)", (f"{CANARY}@x.org",))
    return [read(), pg_step("write", "write", table="ew_people") | {"needs": ["read"]}]


def maria_table(mariadb: Any) -> None:
    conn = pymysql.connect(**mariadb.connection(), autocommit=True)
    with conn.cursor() as cursor:
        cursor.execute("DROP TABLE IF EXISTS ew_people")
        cursor.execute("CREATE TABLE ew_people (id int, name varchar(64), email varchar(64) UNIQUE)")
        cursor.execute("INSERT INTO ew_people VALUES (9, %s, %s)", (CANARY, f"{CANARY}@x.org"))
    conn.close()


def maria_xpath(mariadb: Any) -> list[dict[str, Any]]:
    """MariaDB quotes a bad XPath, built here from a cell, in its error: `XPATH syntax error: '!Ann...'`."""
    maria_table(mariadb)
    return [mysql_step("read", "read", query="SELECT ExtractValue('<a/>', concat('!', name)) AS v FROM ew_people")]


def maria_duplicate(mariadb: Any) -> list[dict[str, Any]]:
    """`Duplicate entry 'Ann...@x.org' for key 'email'`: a sample write goes to a temporary table
    without the key, so only a full run meets it."""
    maria_table(mariadb)
    return [read(), mysql_step("write", "write", table="ew_people") | {"needs": ["read"]}]


# source -> (its steps, given the servers; the code of the problem it meets)
SOURCES: dict[str, tuple[Callable[[dict[str, Any]], list[dict[str, Any]]], str]] = {
    # error(name) itself is off the allowlist (OML408); these allowed functions quote a cell in their errors
    "duckdb strptime": (lambda s: transform("SELECT strptime(name, '%Y') AS e FROM df_read"), "OML50"),
    "duckdb json": (lambda s: transform("SELECT json_extract(name, '$.a') AS j FROM df_read"), "OML50"),
    "duckdb regexp": (lambda s: transform("SELECT regexp_matches('x', name || '(') AS m FROM df_read"), "OML50"),
    "duckdb cast": (lambda s: transform("SELECT CAST(name AS INTEGER) AS n FROM df_read"), "OML504"),
    "postgres unique": (lambda s: pg_unique(s["postgres"]), "OML514"),
    "mariadb xpath": (lambda s: maria_xpath(s["mariadb"]), "OML503"),
    "api error body": (lambda s: [{"id": "read", "component": "rest.extractor", "mode": "read",
                                   "config": {"base_url": s["api"], "endpoint": "/customers"}}], "OML508"),
}


@pytest.fixture
def servers(postgres_server: Any, mariadb_server: Any, api_url: str) -> dict[str, Any]:
    return {"postgres": postgres_server, "mariadb": mariadb_server, "api": api_url}


def assert_unseen(where: str, text: str) -> None:
    for piece in PIECES:
        assert piece not in text, f"{piece!r} reached {where}: {text[:2000]}"
    assert not shows_number(text, "7731"), f"7731 reached {where}: {text[:2000]}"


def trail_text(root: Path) -> str:
    files = [p for p in (root / ".osiris").rglob("*") if p.is_file() and p.suffix in (".json", ".jsonl", ".yaml")]
    assert any(p.name == "events.jsonl" for p in files) and any(p.name == "dry_run.json" for p in files)
    return "\n".join(p.read_text(encoding="utf-8", errors="replace") for p in files)


@pytest.mark.parametrize("source", SOURCES)
def test_run_sample_tells_the_terminal_and_the_trail_no_value(tmp_path: Path, servers: dict[str, Any],
                                                                source: str) -> None:
    make, code = SOURCES[source]
    proj = RunProject(tmp_path / "p", postgres=servers["postgres"], mariadb=servers["mariadb"])
    (proj.root / "rows.csv").write_text(ROWS, encoding="utf-8")

    done = proj.run(str(proj.pipeline(make(servers))), "--sample", "5")

    assert done.returncode == 6, done.stderr
    assert code in done.stderr
    assert_unseen("the terminal (stderr)", done.stderr)
    assert_unseen("the trail", trail_text(proj.root))


def test_a_full_run_tells_a_mariadb_duplicate_without_the_value(tmp_path: Path, servers: dict[str, Any]) -> None:
    proj = RunProject(tmp_path / "p", mariadb=servers["mariadb"])
    (proj.root / "rows.csv").write_text(ROWS, encoding="utf-8")

    done = proj.run(str(proj.pipeline(maria_duplicate(servers["mariadb"]))))

    assert done.returncode == 6, done.stderr
    assert "OML514" in done.stderr and "Duplicate entry" in done.stderr
    assert_unseen("the terminal (stderr)", done.stderr)
    run = (proj.last_session() / "artifacts" / "run.json").read_text(encoding="utf-8")
    assert_unseen("run.json", run + (proj.last_session() / "events.jsonl").read_text(encoding="utf-8"))


@pytest.mark.parametrize("source", SOURCES)
def test_the_retry_request_and_dry_run_json_carry_no_value(tmp_path: Path, servers: dict[str, Any], fake_api: Any,
                                                            source: str) -> None:
    make, code = SOURCES[source]
    proj = SampleProject(tmp_path / "p", fake_api, postgres=servers["postgres"], mariadb=servers["mariadb"])
    (proj.root / "rows.csv").write_text(ROWS, encoding="utf-8")
    answer = pipeline(*make(servers))
    fake_api.add(Reply(answer), Reply(answer))

    done = proj.osiris("generate", "copy the people", "--dry-run")

    assert len(fake_api.requests) == 2, done.stderr
    retry = json.dumps(fake_api.requests[1].body)
    assert code in retry
    assert_unseen("the retry request", retry)
    assert_unseen("the terminal (stderr)", done.stderr)
    assert_unseen("the trail", trail_text(proj.root))


@pytest.mark.parametrize("source", SOURCES)
def test_mcp_run_sample_returns_no_value(tmp_path: Path, servers: dict[str, Any], mcp_in: Any, source: str,
                                         monkeypatch: pytest.MonkeyPatch) -> None:
    make, code = SOURCES[source]
    proj = RunProject(tmp_path / "p", postgres=servers["postgres"], mariadb=servers["mariadb"])
    for name, value in proj.env.items():
        monkeypatch.setenv(name, value)
    (proj.root / "rows.csv").write_text(ROWS, encoding="utf-8")
    oml = yaml.safe_dump({"oml_version": "0.1.0", "name": "people", "steps": make(servers)}, sort_keys=False)

    call = mcp_in(proj.root).call("run_sample", {"oml": oml, "rows": 5})

    shown = json.dumps(call.data)
    assert call.data["status"] == "failed" and code in shown
    assert_unseen("the MCP result", shown)


def test_a_column_made_from_data_is_shown_as_column_n(tmp_path: Path) -> None:
    """PIVOT turns cells into column names; what is shown names them by position. The engine is run
    without validation (the SQL allowlist may refuse PIVOT there, and again at run time: then the
    step fails, and its problem names no cell either)."""
    from osiris.run.duckdb_run import RunOptions, run_pipeline

    root = tmp_path / "p"
    root.mkdir()
    (root / "rows.csv").write_text(ROWS, encoding="utf-8")
    steps = transform("SELECT * FROM (PIVOT df_read ON name USING count(*))")
    result = run_pipeline({"steps": steps}, RunOptions(connections={}, env={}, base_dir=root, sample=5), Quiet())
    pick = result.steps[1]
    assert pick.status in ("ok", "failed")
    if pick.status == "ok":  # the engine ran it: the data-made name is hidden everywhere it is shown
        assert [name for name, _ in pick.columns] == ["id", "email", "column_3"]
        assert pick.preview is not None and pick.preview[0] == ["id", "email", "column_3"]
    assert_unseen("the step's columns", json.dumps([pick.columns, pick.preview[0] if pick.preview else []]))


class Quiet:
    def step_started(self, step: Any) -> None: ...
    def step_progress(self, step: Any, rows: int) -> None: ...
    def step_finished(self, step: Any) -> None: ...


def test_the_filter_keeps_known_words_and_withholds_the_rest() -> None:
    known = Known.of({"query": "SELECT error(name) FROM df_read"}).more(["email"])
    assert filtered(f"Invalid Input Error: {CANARY}", known) == "Invalid Input Error: (…)"
    assert filtered(f"missing ): {CANARY}(", known) == "missing ): (…)("
    assert filtered(f"Duplicate entry '{CANARY}@x.org' for key 'email'", known) == \
        "Duplicate entry '(…)' for key 'email'"
    assert filtered('Referenced column "nme" not found in FROM clause! Candidate bindings: "df_read.name"', known) == \
        'Referenced column "(…)" not found in FROM clause! Candidate bindings: "df_read.name"'
    assert filtered("Could not convert string 'Ann' to INT32", known) == "Could not convert string '(…)' to INT32"
    assert filtered("value 12345 is out of range", known) == "value (…) is out of range"  # a number is a literal too
    assert filtered("ünïcode 😀", known) == "(…)"
    assert filtered(f"{CANARY}", None) == CANARY  # outside a run (the person's own discover): as it is
    assert not {"ann", "canary", "7731"} & vocabulary()
    assert shown_columns(["name", CANARY, "total amount", "count_star()", "7731"], known.more(["total amount"])) == \
        ["name", "column_2", "total amount", "count_star()", "column_5"]


@pytest.fixture(scope="module")
def keyed_api_url() -> Iterator[str]:
    """An API whose records are keyed by data: `{"items": [{"id": 1, "Ann-CANARY-7731": 2}]}`."""
    yield from answering(200, {"items": [{"id": 1, CANARY: 2}]})


def test_the_dry_run_facts_show_a_key_made_from_data_as_column_n(tmp_path: Path, fake_api: Any,
                                                                  keyed_api_url: str) -> None:
    """A wrong data_path makes the dry run describe the response's first record for the retry: its
    key `Ann-CANARY-7731` (a customer's name used as a key) is data, shown as `column_2`; `id` stays."""
    proj = SampleProject(tmp_path / "p", fake_api)
    answer = pipeline({"id": "read", "component": "rest.extractor", "mode": "read",
                       "config": {"base_url": keyed_api_url, "endpoint": "/customers", "data_path": "data"}})
    fake_api.add(Reply(answer), Reply(answer))

    done = proj.osiris("generate", "copy the customers", "--dry-run")

    assert len(fake_api.requests) == 2, done.stderr
    retry = json.dumps(fake_api.requests[1].body)
    assert "OML509" in retry
    assert "keys of the first record (values withheld): id (number), column_2 (number)" in retry
    assert_unseen("the retry request", retry)
    assert_unseen("the terminal (stderr)", done.stderr)
    assert_unseen("the trail", trail_text(proj.root))
