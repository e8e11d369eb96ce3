"""A PostgREST-compatible stand-in, backed by the real PostgreSQL of tests/servers/postgres.py.

No Supabase or PostgREST server can be installed on these machines, so the supabase drivers are
tested against this stand-in. It is NOT PostgREST: it speaks PostgREST's wire format for only the
subset the drivers use, and every statement runs in the real PostgreSQL, one transaction per request:

    GET    /rest/v1/                 the OpenAPI (swagger 2.0) root: definitions of every table,
                                     primary keys marked `<pk/>` in the description as PostgREST does
    GET    /rest/v1/<table>          select=a,b | * ; <col>=eq|neq|gt|gte|lt|lte|is|in.<v> ;
                                     order=col.desc,... ; limit ; offset
    POST   /rest/v1/<table>          insert a JSON array; `Prefer: resolution=merge-duplicates` (or
                                     ignore-duplicates) with `on_conflict=a,b` makes it an upsert
    DELETE /rest/v1/<table>?filters  a filter is required, like Supabase's pg-safeupdate

Both `apikey` and `Authorization: Bearer` must carry the key (401 otherwise); `Accept-Profile` /
`Content-Profile` pick the schema. Tests may set `max_rows` (PostgREST's db-max-rows), `fail_posts`
(the next N POSTs answer 500), `object_pages` (rows come wrapped in an object) and
`openapi_open = False` (the root answers `openapi_closed_status`, 401 as Supabase does for
non-service keys). Errors carry PostgREST's codes: PGRST205 (unknown table, 404),
PGRST204 (unknown column in a body, 400), 42703 (unknown column in select/filters, 400), and the
PostgreSQL SQLSTATE otherwise (409 for unique violations, 400 for the rest).
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qsl, urlsplit

from tests.servers.http_apis import Seen

KEY = "sb-Planted-service-key-5e2a9c7d1f3b"  # planted: tests scan every message for it
RESERVED = {"select", "order", "limit", "offset", "on_conflict", "columns"}
OPERATORS = {"eq": "=", "neq": "<>", "gt": ">", "gte": ">=", "lt": "<", "lte": "<="}


class RestError(Exception):
    def __init__(self, status: int, code: str, message: str) -> None:
        super().__init__(message)
        self.status, self.code, self.message = status, code, message


@dataclass
class PostgrestStandIn:
    dsn: str
    url: str = ""
    key: str = KEY
    requests: list[Seen] = field(default_factory=list)
    max_rows: int | None = None  # PostgREST's db-max-rows: caps every page below `limit`
    fail_posts: int = 0  # answer the next N POSTs 500 before touching the database
    openapi_open: bool = True  # False: the root answers 401, as Supabase does for non-service keys
    openapi_closed_status: int = 401  # what a closed root answers (a proxy may say 403 or 404)
    object_pages: bool = False  # True: a GET of a table answers a JSON object, as a server that is not PostgREST may
    _server: ThreadingHTTPServer | None = None

    def stop(self) -> None:
        if self._server:
            self._server.shutdown()
            self._server.server_close()


def start_postgrest(dsn: str) -> PostgrestStandIn:
    standin = PostgrestStandIn(dsn)

    class Handler(_Handler):
        state = standin

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    standin._server = server
    standin.url = f"http://127.0.0.1:{server.server_address[1]}"
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return standin


@contextmanager
def running_standin(dsn: str) -> Iterator[PostgrestStandIn]:
    """A stand-in serving the database at `dsn` for the length of the `with` block."""
    standin = start_postgrest(dsn)
    try:
        yield standin
    finally:
        standin.stop()


def reset(standin: PostgrestStandIn, setup: str) -> PostgrestStandIn:
    """Run `setup` (SQL) in the stand-in's database and forget the requests seen so far."""
    import psycopg

    with psycopg.connect(standin.dsn) as con:
        con.execute(setup)
    standin.requests.clear()
    return standin


def query_rows(standin: PostgrestStandIn, query: str) -> list[tuple[Any, ...]]:
    """The rows of `query` in the stand-in's PostgreSQL (what the tests check writes against)."""
    import psycopg

    with psycopg.connect(standin.dsn) as con:
        return con.execute(query).fetchall()


class _Handler(BaseHTTPRequestHandler):
    state: PostgrestStandIn

    def log_message(self, *args: object) -> None:
        pass

    def do_GET(self) -> None:
        self._handle()

    def do_POST(self) -> None:
        self._handle()

    def do_DELETE(self) -> None:
        self._handle()

    def _handle(self) -> None:
        import psycopg

        parts = urlsplit(self.path)
        query = parse_qsl(parts.query, keep_blank_values=True)
        length = int(self.headers.get("content-length") or 0)
        body = json.loads(self.rfile.read(length)) if length else None
        headers = {k.lower(): v for k, v in self.headers.items()}
        self.state.requests.append(Seen(self.command, parts.path, dict(query), headers, body))
        if headers.get("apikey") != self.state.key or headers.get("authorization") != f"Bearer {self.state.key}":
            return self._reply(401, {"message": "Invalid API key", "hint": "Double check your Supabase key."})
        if self.command == "POST" and self.state.fail_posts > 0:
            self.state.fail_posts -= 1
            return self._reply(500, {"message": "upstream failure"})
        schema = headers.get("accept-profile") or headers.get("content-profile") or "public"
        table = parts.path.removeprefix("/rest/v1").strip("/")
        try:
            with psycopg.connect(self.state.dsn) as con:
                if not table:
                    if not self.state.openapi_open:
                        return self._reply(self.state.openapi_closed_status,
                                           {"message": "OpenAPI root needs the service_role key"})
                    return self._reply(200, _openapi(con, schema))
                columns = _columns(con, schema, table)
                if not columns:
                    raise RestError(404, "PGRST205", f"Could not find the table '{schema}.{table}' in the schema cache")
                if self.command == "GET" and self.state.max_rows is not None:
                    cap = self.state.max_rows
                    query = [(n, str(min(int(v), cap)) if n == "limit" else v) for n, v in query]
                    query += [] if any(n == "limit" for n, _ in query) else [("limit", str(cap))]
                status, payload = _ACTIONS[self.command](con, schema, table, columns, query, body, headers)
                if self.command == "GET" and self.state.object_pages:
                    payload = {"rows": payload}
            # Answer only after the transaction committed (leaving `with`), as PostgREST does: a client that
            # reads the database right after its last write must see that write.
            self._reply(status, payload)
        except RestError as exc:
            self._reply(exc.status, {"code": exc.code, "message": exc.message, "details": None, "hint": None})
        except psycopg.Error as exc:
            state = exc.sqlstate or "XX000"
            status = 409 if state == "23505" else 403 if state == "42501" else 400
            self._reply(status, {"code": state, "message": str(exc).splitlines()[0], "details": None, "hint": None})

    def _reply(self, status: int, payload: Any) -> None:
        data = b"" if payload is None else json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("content-type", "application/json; charset=utf-8")
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


def _columns(con: Any, schema: str, table: str) -> dict[str, str]:
    rows = con.execute(
        "SELECT column_name, data_type FROM information_schema.columns WHERE table_schema = %s AND table_name = %s"
        " ORDER BY ordinal_position",
        [schema, table],
    ).fetchall()
    return dict(rows)


def _openapi(con: Any, schema: str) -> dict[str, Any]:
    rows = con.execute(
        """SELECT c.table_name, c.column_name, c.data_type, c.is_nullable = 'NO',
                  EXISTS (SELECT 1 FROM information_schema.table_constraints tc
                          JOIN information_schema.key_column_usage k USING (constraint_schema, constraint_name)
                          WHERE tc.constraint_type = 'PRIMARY KEY' AND k.table_schema = c.table_schema
                            AND k.table_name = c.table_name AND k.column_name = c.column_name)
           FROM information_schema.columns c JOIN information_schema.tables t USING (table_schema, table_name)
           WHERE c.table_schema = %s ORDER BY c.table_name, c.ordinal_position""",
        [schema],
    ).fetchall()
    definitions: dict[str, Any] = {}
    for table, column, kind, not_null, is_pk in rows:
        spec = definitions.setdefault(table, {"type": "object", "required": [], "properties": {}})
        prop: dict[str, Any] = {"format": kind, "type": _json_type(kind)}
        if is_pk:
            prop["description"] = "Note:\nThis is a Primary Key.<pk/>"
        spec["properties"][column] = prop
        if not_null:
            spec["required"].append(column)
    return {"swagger": "2.0", "info": {"title": "standin", "version": "0"},
            "paths": {"/": {}, **{f"/{t}": {} for t in definitions}}, "definitions": definitions}


def _json_type(kind: str) -> str:
    if kind in ("integer", "bigint", "smallint"):
        return "integer"
    if kind in ("numeric", "real", "double precision"):
        return "number"
    return "boolean" if kind == "boolean" else "string"


def _where(query: list[tuple[str, str]], columns: dict[str, str], table: str) -> tuple[Any, list[Any]]:
    from psycopg import sql

    parts, values = [], []
    for name, raw in query:
        if name in RESERVED:
            continue
        if name not in columns:
            raise RestError(400, "42703", f"column {table}.{name} does not exist")
        negate, _, rest = raw.partition("not.") if raw.startswith("not.") else ("", "", raw)
        op, _, value = rest.partition(".")
        ident = sql.Identifier(name)
        if op == "is":
            clause = sql.SQL("{} IS {}").format(ident, sql.SQL({"null": "NULL", "true": "TRUE", "false": "FALSE"}[value]))
        elif op == "in":
            items = value.strip("()").split(",")
            clause = sql.SQL("{}::text = ANY(%s)").format(ident)
            values.append(items)
        else:
            clause = sql.SQL("{} {} %s").format(ident, sql.SQL(OPERATORS[op]))
            values.append(value)
        parts.append(sql.SQL("NOT ({})").format(clause) if raw.startswith("not.") else clause)
    return (sql.SQL(" AND ").join(parts) if parts else None), values


def _select(con: Any, schema: str, table: str, columns: dict[str, str], query: list[tuple[str, str]],
            body: Any, headers: dict[str, str]) -> tuple[int, Any]:
    from psycopg import sql

    params = dict(query)
    wanted = [c for c in params.get("select", "*").split(",") if c and c != "*"]
    for name in wanted:
        if name not in columns:
            raise RestError(400, "42703", f"column {table}.{name} does not exist")
    cols = sql.SQL(", ").join(map(sql.Identifier, wanted)) if wanted else sql.SQL("*")
    where, values = _where(query, columns, table)
    statement = sql.SQL("SELECT {} FROM {}.{}").format(cols, sql.Identifier(schema), sql.Identifier(table))
    if where is not None:
        statement += sql.SQL(" WHERE ") + where
    if params.get("order"):
        terms = []
        for term in params["order"].split(","):
            name, _, direction = term.partition(".")
            terms.append(sql.SQL("{} {}").format(sql.Identifier(name), sql.SQL("DESC" if direction == "desc" else "ASC")))
        statement += sql.SQL(" ORDER BY ") + sql.SQL(", ").join(terms)
    statement += sql.SQL(" LIMIT {} OFFSET {}").format(int(params.get("limit", 1000000)), int(params.get("offset", 0)))
    wrapped = sql.SQL("SELECT coalesce(json_agg(r), '[]'::json) FROM ({}) r").format(statement)
    return 200, con.execute(wrapped, values).fetchone()[0]


def _insert(con: Any, schema: str, table: str, columns: dict[str, str], query: list[tuple[str, str]],
            body: Any, headers: dict[str, str]) -> tuple[int, Any]:
    from psycopg import sql

    rows = body if isinstance(body, list) else [body]
    names = list(rows[0]) if rows else []
    for name in names:
        if name not in columns:
            raise RestError(400, "PGRST204", f"Could not find the '{name}' column of '{table}' in the schema cache")
    target = sql.SQL("{}.{}").format(sql.Identifier(schema), sql.Identifier(table))
    idents = sql.SQL(", ").join(map(sql.Identifier, names))
    statement = sql.SQL("INSERT INTO {} ({}) SELECT {} FROM json_populate_recordset(NULL::{}, %s::json)").format(
        target, idents, idents, target)
    prefer = headers.get("prefer", "")
    conflict = dict(query).get("on_conflict")
    if "resolution=" in prefer:
        keys = conflict.split(",") if conflict else _primary_key(con, schema, table)
        key_idents = sql.SQL(", ").join(map(sql.Identifier, keys))
        if "merge-duplicates" in prefer:
            updates = sql.SQL(", ").join(sql.SQL("{0} = EXCLUDED.{0}").format(sql.Identifier(n)) for n in names)
            statement += sql.SQL(" ON CONFLICT ({}) DO UPDATE SET {}").format(key_idents, updates)
        else:
            statement += sql.SQL(" ON CONFLICT ({}) DO NOTHING").format(key_idents)
    con.execute(statement, [json.dumps(rows)])
    return 201, None


def _primary_key(con: Any, schema: str, table: str) -> list[str]:
    rows = con.execute(
        "SELECT a.attname FROM pg_index i JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = ANY(i.indkey)"
        " WHERE i.indrelid = %s::regclass AND i.indisprimary",
        [f'"{schema}"."{table}"'],
    ).fetchall()
    return [r[0] for r in rows]


def _delete(con: Any, schema: str, table: str, columns: dict[str, str], query: list[tuple[str, str]],
            body: Any, headers: dict[str, str]) -> tuple[int, Any]:
    from psycopg import sql

    where, values = _where(query, columns, table)
    if where is None:
        raise RestError(400, "21000", "DELETE requires a WHERE clause")
    con.execute(sql.SQL("DELETE FROM {}.{} WHERE ").format(sql.Identifier(schema), sql.Identifier(table)) + where,
                values)
    return 204, None


_ACTIONS = {"GET": _select, "POST": _insert, "DELETE": _delete}
