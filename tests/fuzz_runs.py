"""Seeded fuzzed *valid* pipelines through a real `osiris run` (issue 25): CSV files with odd
contents and options, transforms with SQL that can fail on data, CSV writers with every option, and
REST reads from a local API whose answers are fuzzed (nesting, nulls, mixed types, huge numbers,
escaped lone surrogates, statuses). Each run must end as the docs say: exit 0, 1 (invalid) or 6
(a step failed, one OML line); never exit 5, a Python exception's name, a traceback, or a hang.

    with FuzzApi() as api:
        for pipeline, files in runs(seed=9, count=100, api_url=api.url): ...
    findings(result)  # what a run showed that it must not

`tests/test_fuzz_runs.py` runs a few dozen in every test run; `bench/fuzz.py --runs N` the campaign.
"""

from __future__ import annotations

import json
import random
import re
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlparse

RAW_NAME = re.compile(r"\b[A-Z][A-Za-z]*(?:Error|Exception)\b|Traceback|File \"")
UNMAPPED = "stopped at an internal error"  # OML105: a library error no driver mapped (osiris/run/duckdb_run.py)

TEXTS = ["plain", "", " lead", "trail ", "a,b", 'q"uote', "line\nbreak", "cr\rhere", "#hash", "\\x00", "李小龍",
         "e\u0301", "\u202etxt", "NULL", "null", "NaN", "-0", "1e309", "9" * 40, "2024-02-30", "true", "\x1b[31m"]
VALUES = [0, -1, 2 ** 63, -(2 ** 63) - 1, 10 ** 40, 1.5, float("1e308"), True, None, "", "x", [1, "a"], {"k": None},
          [], {}, "\ud800", "a\u0000b", {"deep": {"er": {"still": [1, {"x": 2}]}}}]
QUERIES = [
    "SELECT * FROM input_df",
    "SELECT * FROM input_df ORDER BY 1 DESC",
    "SELECT count(*) AS n, min(a) AS lo FROM input_df",
    "SELECT a, 1 / 0 AS boom FROM input_df",
    "SELECT CAST(a AS INTEGER) AS n FROM input_df",
    "SELECT CAST(b AS DATE) AS d FROM input_df",
    "SELECT a || b AS ab, length(b) AS len FROM input_df WHERE a IS NOT NULL",
    "SELECT * FROM input_df WHERE 1 = 0",
    "SELECT a, b, a AS a2 FROM input_df LIMIT 2",
    "SELECT list_value(a, b) AS l, struct_pack(x := a) AS s FROM input_df",
    "SELECT repeat(b, 1000) AS wide FROM input_df",
    "SELECT a::BLOB AS raw FROM input_df",
    "SELECT TIMESTAMPTZ '2024-06-01 03:07:00+02' AS at, INTERVAL 3 DAY AS span FROM input_df",
    "SELECT 'é' AS \"naïve col\", '' AS \" \" FROM input_df",
]
PG_SOURCE = (  # what a fuzzed PostgreSQL read reads: the types that need care on their way to a file
    "DROP TABLE IF EXISTS fuzz_src; CREATE TABLE fuzz_src (id int PRIMARY KEY, n numeric, d double precision, "
    "day date, at timestamptz, span interval, raw bytea, doc jsonb, tags text[], note text); "
    "INSERT INTO fuzz_src VALUES (1, 'NaN', 'Infinity', '4713-01-01 BC', '-infinity', '1 year 2 mons', "
    "'\\x00ff', '{\"a\": [1, null]}', '{a,NULL,\"b c\"}', E'tab\\there'), "
    "(2, 1e30, -0.0, 'infinity', '2024-06-01 03:07:00+02', '-3 days', '', 'null', '{}', '#hash'), "
    "(3, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL); "
    "DROP TABLE IF EXISTS fuzz_dst, fuzz_new; CREATE TABLE fuzz_dst (a text PRIMARY KEY, b text)")
PG_QUERIES = ["SELECT * FROM fuzz_src", "SELECT id, n FROM fuzz_src", "SELECT id, day, at FROM fuzz_src",
              "SELECT id, raw, doc, tags FROM fuzz_src", "SELECT id, span, note FROM fuzz_src WHERE id > 1",
              "SELECT id, d FROM fuzz_src WHERE id = 2", "SELECT id, note FROM fuzz_src"]
MYSQL_SOURCE = [  # what a fuzzed MySQL read reads, and the MySQL tables fuzzed writes go to (MariaDB)
    "SET SESSION sql_mode = ''",  # lets the zero date in, as old data holds it
    "DROP TABLE IF EXISTS fuzz_src, fuzz_dst, fuzz_new, fuzz_mirror",
    "CREATE TABLE fuzz_src (id INT PRIMARY KEY, big BIGINT UNSIGNED, n DECIMAL(65,30), f FLOAT, day DATE, "
    "at DATETIME(6), ts TIMESTAMP NULL, span TIME(6), flags BIT(8), raw BLOB, doc JSON, kind ENUM('a','b'), "
    "yr YEAR, note TEXT) DEFAULT CHARSET=utf8mb4",
    "INSERT INTO fuzz_src VALUES (1, 18446744073709551615, -12345678901234567890123456789012345.123456789012345678901234567890, "
    "1.5, '0000-00-00', '9999-12-31 23:59:59.999999', '2038-01-19 03:14:07', '-838:59:59', b'10100101', x'00ff', "
    "'{\"a\": [1, null]}', 'b', 1901, 'tab\there 😀'), "
    "(2, 0, 0, -0, '2024-02-29', '1000-01-01 00:00:00', NULL, '24:00:00.5', b'0', '', 'null', 'a', 2155, '#hash'), "
    "(3, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL)",
    "CREATE TABLE fuzz_dst (a VARCHAR(255) PRIMARY KEY, b TEXT) DEFAULT CHARSET=utf8mb4",
    "CREATE TABLE fuzz_mirror (id INT PRIMARY KEY, n DECIMAL(65,30), d DOUBLE, day DATE, at DATETIME(6), "
    "span TIME(6), raw BLOB, doc JSON, tags TEXT, note TEXT) DEFAULT CHARSET=utf8mb4",
]
MYSQL_QUERIES = ["SELECT * FROM fuzz_src", "SELECT id, big, n FROM fuzz_src", "SELECT id, day, at, ts FROM fuzz_src",
                 "SELECT id, span, flags, raw FROM fuzz_src", "SELECT id, doc, kind, yr, note FROM fuzz_src WHERE id > 1",
                 "SELECT id, f, note FROM fuzz_src"]
CSV_OPTIONS = {"delimiter": [",", ";", "|", "\t"], "header": [True, False], "quoting": ["minimal", "all", "nonnumeric"],
               "encoding": ["utf-8", "utf-16", "ascii", "latin-1"], "newline": ["lf", "crlf"]}


class FuzzApi:
    """A local JSON API: `GET /items?seed=N` answers a fuzzed body for N; `/status/NNN` answers NNN."""

    def __enter__(self) -> FuzzApi:
        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: object) -> None:
                pass

            def do_GET(self) -> None:  # noqa: N802 (http.server's name)
                url = urlparse(self.path)
                if url.path.startswith("/status/"):
                    status, body = int(url.path.rsplit("/", 1)[1]), b'{"error": "fuzzed"}'
                else:
                    seed = int((parse_qs(url.query).get("seed") or ["0"])[0])
                    status, body = 200, api_body(random.Random(seed))
                self.send_response(status)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        threading.Thread(target=self._server.serve_forever, daemon=True).start()
        self.url = f"http://127.0.0.1:{self._server.server_address[1]}"
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()


def api_body(rng: random.Random) -> bytes:
    """A JSON answer: usually {"items": [records]}, sometimes something else where they should be."""
    records = [{rng.choice(["id", "name", "Name", "n.m", "", "über"]): rng.choice(VALUES) for _ in range(3)}
               for _ in range(rng.randint(0, 5))]
    shape = rng.random()
    payload: Any = {"items": records}
    if shape < 0.1:
        payload = {"items": rng.choice(VALUES)}
    elif shape < 0.2:
        payload = records
    text = json.dumps(payload, allow_nan=True)
    if rng.random() < 0.1:
        text = text.replace("0", "0" * rng.randint(1, 5000), 1)  # a long number
    return text.encode("utf-8", "surrogatepass")


def runs(seed: int, count: int, api_url: str, postgres: bool = False, mysql: bool = False
         ) -> Iterator[tuple[int, dict[str, Any], dict[str, bytes]]]:
    """(number, pipeline, files to write in the project) for `count` runs from `seed`; with
    `postgres`, some read `fuzz_src` (PG_SOURCE) or write `fuzz_dst` through `@postgres.default`;
    with `mysql`, some read MariaDB's `fuzz_src` (MYSQL_SOURCE) or write its tables through
    `@mysql.default` (a PostgreSQL read straight into one takes the direct route where it can)."""
    for number in range(count):
        rng = random.Random(f"{seed}-{number}")
        files = {"in.csv": _csv_bytes(rng)}
        source = rng.random()
        if postgres and source < 0.25:
            first = {"id": "read", "component": "postgres.extractor", "mode": "read",
                     "config": {"connection": "@postgres.default", "query": rng.choice(PG_QUERIES)}}
        elif mysql and source < 0.4:
            first = {"id": "read", "component": "mysql.extractor", "mode": "read",
                     "config": {"connection": "@mysql.default", "query": rng.choice(MYSQL_QUERIES)}}
        else:
            first = _csv_read(rng) if source < 0.8 else _rest_read(rng, api_url, number)
        steps = [first]
        if rng.random() < 0.7:
            steps.append({"id": "shape", "component": "duckdb.processor", "mode": "transform",
                          "config": {"query": rng.choice(QUERIES)}})
        target = rng.random()
        steps.append(_pg_write(rng) if postgres and target < 0.3 else
                     _mysql_write(rng) if mysql and target < 0.6 else _csv_write(rng))
        yield number, {"oml_version": "0.1.0", "name": f"fuzz-{seed}-{number}", "steps": steps}, files


def load_sources(postgres: Any, mariadb: Any) -> None:
    """PG_SOURCE into the test PostgreSQL and MYSQL_SOURCE into the test MariaDB (tests/servers)."""
    import psycopg

    with psycopg.connect(postgres.dsn(), autocommit=True) as conn:
        conn.execute(PG_SOURCE)
    maria = mariadb.connect(autocommit=True)
    with maria.cursor() as cursor:
        for statement in MYSQL_SOURCE:
            cursor.execute(statement)
    maria.close()


def findings(returncode: int, stdout: str, stderr: str) -> list[str]:
    """What a run must never show: exit 5, an exception's name or traceback, an unmapped library error."""
    found = []
    if returncode not in (0, 1, 6):
        found.append(f"exit {returncode}")
    raw = RAW_NAME.search(stdout + stderr)
    if raw:
        found.append(f"raw name {raw.group(0)!r}")
    if UNMAPPED in stderr:
        found.append("unmapped library error")
    return found


def _csv_bytes(rng: random.Random) -> bytes:
    rows = ["a,b"] + [f"{_cell(rng)},{_cell(rng)}" for _ in range(rng.randint(0, 6))]
    text = "\n".join(rows) + rng.choice(["\n", "", "\r\n"])
    if rng.random() < 0.05:
        return b"\xff\xfe" + text.encode("utf-16-le", "surrogatepass")
    if rng.random() < 0.05:
        return text.encode("latin-1", "replace")
    return text.encode("utf-8", "surrogatepass")


def _cell(rng: random.Random) -> str:
    text = rng.choice(TEXTS + [str(v) for v in VALUES if not isinstance(v, dict | list)])
    return '"' + text.replace('"', '""') + '"' if any(c in text for c in ',"\n\r') else text


def _csv_read(rng: random.Random) -> dict[str, Any]:
    config: dict[str, Any] = {"path": "in.csv"}
    if rng.random() < 0.2:
        config["delimiter"] = rng.choice([";", "|"])
    if rng.random() < 0.2:
        config["header"] = rng.choice([True, False])
    if rng.random() < 0.2:
        config["dtype"] = {rng.choice(["a", "b", "zz"]): rng.choice(["INTEGER", "VARCHAR", "DATE", "DOUBLE", "BOOLEAN"])}
    if rng.random() < 0.1:
        config["limit"] = rng.randint(0, 3)
    return {"id": "read", "component": "filesystem.csv_extractor", "mode": "read", "config": config}


def _rest_read(rng: random.Random, api_url: str, number: int) -> dict[str, Any]:
    endpoint = f"/status/{rng.choice([400, 404, 410, 422])}" if rng.random() < 0.15 else "/items"
    config: dict[str, Any] = {"base_url": api_url, "endpoint": endpoint, "params": {"seed": number},
                              "data_path": rng.choice(["items", "items", "items.0", "missing", ""])}
    if not config["data_path"]:
        del config["data_path"]
    if rng.random() < 0.2:
        config["max_retries"] = 0
    return {"id": "read", "component": "rest.extractor", "mode": "read", "config": config}


def _pg_write(rng: random.Random) -> dict[str, Any]:
    config: dict[str, Any] = {"connection": "@postgres.default", "table": rng.choice(["fuzz_dst", "fuzz_new"]),
                              "write_mode": rng.choice(["append", "replace", "upsert"]),
                              "create_if_missing": rng.random() < 0.7}
    if config["write_mode"] == "upsert":
        config["primary_key"] = [rng.choice(["a", "id", "n"])]
    return {"id": "write", "component": "postgres.writer", "mode": "write", "config": config}


def _mysql_write(rng: random.Random) -> dict[str, Any]:
    config: dict[str, Any] = {"connection": "@mysql.default", "table": rng.choice(["fuzz_dst", "fuzz_new", "fuzz_mirror"]),
                              "mode": rng.choice(["append", "replace", "replace", "upsert"]),
                              "create_table": rng.random() < 0.7}
    if config["mode"] == "upsert":
        config["upsert_keys"] = [rng.choice(["a", "id"])]
    return {"id": "write", "component": "mysql.writer", "mode": "write", "config": config}


def _csv_write(rng: random.Random) -> dict[str, Any]:
    config: dict[str, Any] = {"path": rng.choice(["out.csv", "out/deep/file.csv", "out é.csv"])}
    for key, choices in CSV_OPTIONS.items():
        if rng.random() < 0.3:
            config[key] = rng.choice(choices)
    return {"id": "write", "component": "filesystem.csv_writer", "mode": "write", "config": config}


def run_one(root: Path, pipeline: dict[str, Any], files: dict[str, bytes], postgres: Any = None,
            mariadb: Any = None) -> tuple[int, str, str]:
    """`osiris run` of `pipeline` in a fresh project under `root` (in process), with `postgres` and
    `mariadb` (test servers) as `@postgres.default` and `@mysql.default`: exit code, stdout, stderr."""
    import shutil

    import yaml

    from tests.inprocess import run_inprocess
    from tests.support import clean_env

    from tests.run_helpers import RunProject

    shutil.rmtree(root, ignore_errors=True)
    project = RunProject(root, postgres=postgres, mariadb=mariadb)
    for name, data in files.items():
        (root / name).write_bytes(data)
    (root / "p.yaml").write_text(yaml.safe_dump(pipeline, sort_keys=False, allow_unicode=True), encoding="utf-8")
    result = run_inprocess("run", "p.yaml", cwd=root, env=clean_env(**project.env))
    return result.returncode, result.stdout, result.stderr
