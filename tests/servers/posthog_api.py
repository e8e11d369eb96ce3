"""A local stand-in for PostHog's HogQL query API (127.0.0.1, a free port, one thread a request).

PostHog cannot run on these machines, so posthog.extractor is tested against this stand-in. It is
NOT PostHog: it serves only the endpoint the driver calls, with PostHog's request and response
shapes, and runs each HogQL query on an in-memory DuckDB holding the four tables the driver reads:

    POST /api/projects/<id>/query/   {"query": {"kind": "HogQLQuery", "query": "SELECT ...", "values": {...}}}
        200 {"results": [[...], ...], "columns": [...], "types": [[name, type], ...], "hasMore": false, ...}
        400 a HogQL error; 401 a wrong or missing key; 403 a key without the query:read scope;
        404 an unknown project or path; 429 when a test asked for throttling (with Retry-After)

As in PostHog, `properties` columns are JSON text (HogQL's StringJSON fields), datetimes are ISO
8601 strings in the project's time zone (UTC here), UUIDs are strings, a query without LIMIT gets
LIMIT 100 and none returns more than 50,000 rows. Error bodies carry DRF's `type`, `code` and
`detail`. HogQL is translated to DuckDB SQL only as far as the driver's queries need: string
literals (with HogQL's backslash escapes), `$`-prefixed column names, `toDateTime(s[, tz])` and
`{placeholder}`s, whose `values` are bound as DuckDB parameters (never pasted into the SQL).

Bounded: request bodies up to 64 KiB, at most 8 requests at a time, the last 2,000 requests
recorded (method, path, headers, JSON body) for tests to assert what the driver sent.
"""

from __future__ import annotations

import json
import re
import threading
import uuid
from collections import deque
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import urlsplit

import duckdb

API_KEY = "phx_Planted0personal0key0b4e7c2a9d1f"  # planted: tests scan every file and line for it
NO_SCOPE_KEY = "phx_Planted0noscope0key0e1f2a3b4c5d"  # a valid key without the query:read scope
PROJECT_ID = "4242"
MAX_BODY = 64 << 10
MAX_CONCURRENT = 8
DEFAULT_LIMIT, MAX_LIMIT = 100, 50_000
_QUERY_PATH = re.compile(r"^/api/projects/([^/]+)/query/?$")

START = datetime(2024, 3, 1, tzinfo=UTC)
EVENT_NAMES = ["$pageview", "signup", "purchase", "$autocapture", "it's a \\ test"]
N_EVENTS, N_PERSONS, N_SESSIONS, N_DISTINCT_IDS = 250, 120, 110, 130
DUPLICATE_OF = 40  # events[40] is stored twice (same uuid and timestamp), as ClickHouse may hold it


def _id(kind: int, n: int) -> str:
    return str(uuid.UUID(f"0190{kind:04x}-0000-7000-8000-{n:012x}"))


def _events() -> list[dict[str, Any]]:
    rows = []
    for i in range(N_EVENTS):  # three events share each timestamp: paging must break the ties by uuid
        properties: dict[str, Any] = {"$browser": ["Chrome", "Firefox"][i % 2], "$current_url": f"https://example.com/p/{i}"}
        if i % 5 == 2:
            properties["amount"] = i
        rows.append({"uuid": _id(1, i), "event": EVENT_NAMES[i % len(EVENT_NAMES)],
                     "timestamp": START + timedelta(minutes=11 * ((i + 1) // 3), microseconds=123456),
                     "distinct_id": f"user-{i % 20}", "person_id": _id(2, i % N_PERSONS),
                     "properties": json.dumps(properties)})
    return rows


EVENTS = _events()
PERSONS = [{"id": _id(2, i), "created_at": START + timedelta(hours=i // 2),
            "properties": json.dumps({"email": f"p{i}@example.com", "plan": ["free", "pro"][i % 2]}),
            "is_identified": i % 3 != 0} for i in range(N_PERSONS)]
SESSIONS = [{"session_id": _id(3, i), "$start_timestamp": START + timedelta(minutes=30 * (i // 2)),
             "$end_timestamp": START + timedelta(minutes=30 * (i // 2) + 12), "$session_duration": 720,
             "$pageview_count": i % 7, "$entry_current_url": f"https://example.com/p/{i}",
             "distinct_id": f"user-{i % 20}"} for i in range(N_SESSIONS)]
DISTINCT_IDS = [{"distinct_id": f"user-{i}", "person_id": _id(2, i % N_PERSONS)} for i in range(N_DISTINCT_IDS)]

_SCHEMA = {
    "events": ("uuid UUID, event VARCHAR, timestamp TIMESTAMPTZ, distinct_id VARCHAR, person_id UUID, "
               "properties VARCHAR", EVENTS + [EVENTS[DUPLICATE_OF]]),
    "persons": ("id UUID, created_at TIMESTAMPTZ, properties VARCHAR, is_identified BOOLEAN", PERSONS),
    "sessions": ('session_id VARCHAR, "$start_timestamp" TIMESTAMPTZ, "$end_timestamp" TIMESTAMPTZ, '
                 '"$session_duration" BIGINT, "$pageview_count" BIGINT, "$entry_current_url" VARCHAR, '
                 "distinct_id VARCHAR", SESSIONS),
    "person_distinct_ids": ("distinct_id VARCHAR, person_id UUID", DISTINCT_IDS),
}
_CLICKHOUSE_TYPES = {"UUID": "UUID", "VARCHAR": "String", "BOOLEAN": "Bool", "BIGINT": "Int64",
                     "TIMESTAMP WITH TIME ZONE": "DateTime64(6, 'UTC')"}


@dataclass
class Seen:
    method: str
    path: str
    headers: dict[str, str]
    body: Any = None

    @property
    def hogql(self) -> str:
        return str(((self.body or {}).get("query") or {}).get("query", ""))


@dataclass
class PostHogStandIn:
    url: str = ""
    requests: deque[Seen] = field(default_factory=lambda: deque(maxlen=2000))
    faults: deque[tuple[int, dict[str, str]]] = field(default_factory=deque)  # answers before the next queries
    db: Any = None  # the _Database: a test may add rows (`db.con`, under `db.lock`)
    ignore_seek: bool = False  # planted fault: answer as if the query had no seek condition (page 1 again)
    blank_column: str | None = None  # planted fault: every row answered has this column NULL
    _server: ThreadingHTTPServer | None = None

    def queries(self) -> list[str]:
        """The HogQL of every query request received, in order."""
        return [r.hogql for r in self.requests if r.method == "POST"]

    def fail_next(self, status: int, times: int = 1, retry_after: str | None = None) -> None:
        """Answer the next `times` query requests with `status` (429 throttles, 5xx break)."""
        headers = {"retry-after": retry_after} if retry_after is not None else {}
        self.faults.extend([(status, headers)] * times)

    def reset(self) -> None:
        self.requests.clear()
        self.faults.clear()
        self.ignore_seek, self.blank_column = False, None

    def stop(self) -> None:
        if self._server:
            self._server.shutdown()
            self._server.server_close()


def start_posthog() -> PostHogStandIn:
    standin = PostHogStandIn()
    database = standin.db = _Database()

    class Handler(_Handler):
        state, db = standin, database
        slots = threading.BoundedSemaphore(MAX_CONCURRENT)

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    standin._server = server
    standin.url = f"http://127.0.0.1:{server.server_address[1]}"
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return standin


class HogQLError(Exception):
    """A query the stand-in (like PostHog) refuses: 400 with PostHog's validation_error body."""


class _Database:
    """The four tables in DuckDB, and HogQL run on them."""

    def __init__(self) -> None:
        self.con = duckdb.connect()
        self.lock = threading.Lock()
        self.con.execute("SET TimeZone = 'UTC'")
        self.con.execute(
            "CREATE MACRO hog_datetime(s) AS CAST(s AS TIMESTAMPTZ), "
            r"(s, tz) AS CASE WHEN regexp_matches(s, '(Z|[+-]\d\d:?\d\d)$') THEN CAST(s AS TIMESTAMPTZ) "
            "ELSE timezone(tz, CAST(s AS TIMESTAMP)) END")
        for table, (columns, rows) in _SCHEMA.items():
            self.con.execute(f"CREATE TABLE {table} ({columns})")
            names = ", ".join(f'"{name}"' for name in rows[0])
            marks = ", ".join("?" for _ in rows[0])
            self.con.executemany(f"INSERT INTO {table} ({names}) VALUES ({marks})", [list(r.values()) for r in rows])

    def query(self, hogql: str, values: dict[str, Any] | None = None) -> dict[str, Any]:
        bound: list[Any] = []
        sql = to_duckdb(hogql, values or {}, bound)
        with self.lock:
            try:
                cursor = self.con.execute(sql, bound)
                rows = cursor.fetchall()
            except duckdb.Error as error:
                raise HogQLError(str(error).splitlines()[0]) from None
            described = cursor.description or []
        columns = [d[0] for d in described]
        types = [[d[0], _CLICKHOUSE_TYPES.get(str(d[1]), str(d[1]))] for d in described]
        return {"results": [[_json_value(v) for v in row] for row in rows], "columns": columns, "types": types,
                "hasMore": False, "limit": None, "offset": None, "is_cached": False, "error": None,
                "hogql": hogql, "query": hogql, "clickhouse": sql, "timings": [], "modifiers": {}}


_TOKENS = re.compile(r"'(?:[^'\\]|\\.|'')*'|\$\w+|\btoDateTime\s*\(|;|\{\w+\}", re.IGNORECASE | re.DOTALL)
_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "0": "\0", "b": "\b", "f": "\f"}
_LIMIT = re.compile(r"\bLIMIT\s+(\d+)\s*$", re.IGNORECASE)
_SEEK = re.compile(r" (?:AND|WHERE) \(\S+ > .*\)\) ORDER BY")  # the driver's seek, dropped by ignore_seek


def to_duckdb(hogql: str, values: dict[str, Any] | None = None, bound: list[Any] | None = None) -> str:
    """The driver's HogQL as DuckDB SQL: literals re-quoted, `$names` quoted, `{placeholder}`s bound
    from `values` (appended to `bound`, as HogQL binds them), LIMIT defaulted and capped."""
    if not hogql.lstrip().upper().startswith("SELECT"):
        raise HogQLError("Syntax error: expected a SELECT query")

    def swap(match: re.Match[str]) -> str:
        token = match.group(0)
        if token == ";":
            raise HogQLError("Syntax error: a query is a single SELECT")
        if token.startswith("{"):
            if values is None or token[1:-1] not in values or bound is None:
                raise HogQLError(f"Placeholder {token} is not defined in values")
            bound.append(values[token[1:-1]])
            return "?"
        if token.startswith("'"):
            return "'" + unescape(token[1:-1]).replace("'", "''") + "'"
        if token.startswith("$"):
            return f'"{token}"'
        return "hog_datetime("

    sql = _TOKENS.sub(swap, hogql.strip())
    limit = _LIMIT.search(sql)
    if limit is None:
        return f"{sql} LIMIT {DEFAULT_LIMIT}"
    return sql[:limit.start()] + f"LIMIT {min(int(limit.group(1)), MAX_LIMIT)}"


def unescape(body: str) -> str:
    """A HogQL string literal's text: `\\x` escapes and doubled quotes undone."""
    out, i = [], 0
    while i < len(body):
        char = body[i]
        if char == "\\" and i + 1 < len(body):
            out.append(_ESCAPES.get(body[i + 1], body[i + 1]))
            i += 2
        elif char == "'" and body[i + 1:i + 2] == "'":
            out.append("'")
            i += 2
        else:
            out.append(char)
            i += 1
    return "".join(out)


def _json_value(value: Any) -> Any:
    if isinstance(value, uuid.UUID):
        return str(value)
    if isinstance(value, datetime):
        return value.astimezone(UTC).isoformat().replace("+00:00", "Z")
    return value


def _error(kind: str, code: str, detail: str) -> dict[str, Any]:
    return {"type": kind, "code": code, "detail": detail, "attr": None}


class _Handler(BaseHTTPRequestHandler):
    state: PostHogStandIn
    db: _Database
    slots: threading.BoundedSemaphore
    timeout = 10  # seconds a connection may stay silent

    def log_message(self, *args: object) -> None:
        pass

    def do_GET(self) -> None:
        self._guarded()

    def do_POST(self) -> None:
        self._guarded()

    def _guarded(self) -> None:
        if not self.slots.acquire(timeout=5):
            return self.reply(503, _error("server_error", "busy", "Too many concurrent requests."))
        try:
            self._handle()
        finally:
            self.slots.release()

    def _handle(self) -> None:
        length = int(self.headers.get("content-length") or 0)
        if length > MAX_BODY:
            return self.reply(413, _error("invalid_request", "too_large", "Request body too large."))
        raw = self.rfile.read(length) if length else b""
        try:
            body = json.loads(raw) if raw else None
        except ValueError:
            return self.reply(400, _error("invalid_request", "parse_error", "JSON parse error."))
        path = urlsplit(self.path).path
        seen = Seen(self.command, path, {k.lower(): v for k, v in self.headers.items()}, body)
        self.state.requests.append(seen)
        match = _QUERY_PATH.match(path)
        if match is None or self.command != "POST":
            return self.reply(404, _error("invalid_request", "not_found", "Not found."))
        key = seen.headers.get("authorization", "").removeprefix("Bearer ")
        if key not in (API_KEY, NO_SCOPE_KEY):
            return self.reply(401, _error("authentication_error", "authentication_failed",
                                          "Personal API key found in request Authorization header is invalid."))
        if match.group(1) != PROJECT_ID:
            return self.reply(404, _error("invalid_request", "not_found", "Project not found."))
        if key == NO_SCOPE_KEY:
            return self.reply(403, _error("permission_denied", "permission_denied",
                                          "API key missing required scope 'query:read'"))
        if self.state.faults:
            status, headers = self.state.faults.popleft()
            detail = "Request was throttled." if status == 429 else "Server error."
            return self.reply(status, _error("throttled_error" if status == 429 else "server_error",
                                             "throttled" if status == 429 else "error", detail), headers)
        self._query(body)

    def _query(self, body: Any) -> None:
        query = body.get("query") if isinstance(body, dict) else None
        if not isinstance(query, dict) or query.get("kind") != "HogQLQuery" or not isinstance(query.get("query"), str):
            return self.reply(400, _error("validation_error", "invalid_input", "Expected a HogQLQuery."))
        hogql = _SEEK.sub(" ORDER BY", query["query"]) if self.state.ignore_seek else query["query"]
        try:
            values = query.get("values")
            answer = self.db.query(hogql, values if isinstance(values, dict) else None)
            if self.state.blank_column in answer["columns"]:
                at = answer["columns"].index(self.state.blank_column)
                answer["results"] = [[None if i == at else v for i, v in enumerate(row)] for row in answer["results"]]
            self.reply(200, answer)
        except HogQLError as error:
            self.reply(400, _error("validation_error", "invalid_input", str(error)))

    def reply(self, status: int, payload: Any, headers: dict[str, str] | None = None) -> None:
        data = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(data)
