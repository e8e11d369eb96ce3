"""supabase.extractor and supabase.writer through the Supabase REST API (PostgREST, `/rest/v1`).

Every request carries the key twice, as `apikey` and `Authorization: Bearer`, and the schema as
`Accept-Profile` / `Content-Profile`. Retries and errors are those of the HTTP drivers
(osiris.run.http); a 404 on a table is OML501 with the closest table names.

Reading pages with `limit` and `offset` (plus the step's `select`, `filter` and `order`) until a page
comes back empty or shorter than the first (a project's max-rows setting may cap pages below
`limit`); set `order` for a stable order across pages. A sample of N asks for exactly N. An
incremental read adds `<cursor>=gt.<value>` and, without an `order`, orders by the cursor.

When the connection names the project's PostgreSQL database (`pg_dsn`, or host, database, user and
password: osiris.run.drivers.supabase_postgres), the writer goes there instead, in one transaction,
and `create_if_missing` creates a missing table. Otherwise it writes over REST, which cannot create
tables: a missing table is OML501 whose hint is the CREATE TABLE statement to run by hand.

Over REST, writing sends the input table in `batch_size` JSON arrays built by DuckDB (`to_json`):
- append: POST;
- upsert: POST `?on_conflict=<primary_key>` with `Prefer: resolution=merge-duplicates`;
- replace: DELETE every row (`<first key>=not.is.null`, which passes Supabase's rule that a DELETE
  needs a filter), then POST. Like public Osiris, replace needs `primary_key`.
The REST API has no transactions: a failure part-way leaves the batches already sent, and the
error says how many rows were written. Before anything is written the key columns and the input's
columns are checked against the table (`select=...&limit=0`), so a wrong key or column fails before
a replace deletes anything.

A sample run of the writer writes nothing: it runs those checks and reports what would be
written. That proves the URL, the key, that the key may read the table, that the table exists and
has every input column and key column. It does not prove write permission (row-level security on
INSERT), type conversions or constraints, which only a real write reveals.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING
from urllib.parse import quote

from osiris.oml.incremental import incremental_of
from osiris.oml.values import Config, Scalar
from osiris.problems import key_not_in_input_problem, keys_needed_problem, uncreatable_target_problem
from osiris.run.driver import ColumnInfo, Family, RuntimeProblem, StepContext, StepOutcome, TableInfo
from osiris.run.counts import row_count
from osiris.run.drivers import postgres
from osiris.run.drivers.sql_common import input_columns, key_list
from osiris.run.drivers.supabase_postgres import ENDPOINT_FIELDS as DATABASE_ENDPOINT_FIELDS
from osiris.run.drivers.supabase_postgres import database_fields, json_columns, write_through_database
from osiris.run.spool import quote_ident
from osiris.run.http import ENDPOINT_FIELDS as HTTP_ENDPOINT_FIELDS
from osiris.run.http import HttpClient, safe_url
from osiris.run.http import client_for as http_client
from osiris.run.fields import integer, mapping, optional_text, text, texts
from osiris.run.json_records import Record, RecordSpool, read_pages, spooled_outcome
from osiris.suggest import did_you_mean, listing

if TYPE_CHECKING:
    import httpx

Params = Mapping[str, Scalar] | list[tuple[str, Scalar]]  # a request's query-string parameters


def rest_root(config: Config) -> str:
    base = config.get("url") or f"https://{config.get('project_id')}.supabase.co"
    return str(base).rstrip("/") + "/rest/v1"


# the client settings the supabase specs do not offer (they give `timeout` and `retries`)
CLIENT_SETTINGS: Config = {"retry_delay": 1.0, "validate_ssl": True, "max_response_mb": 64}


def client_for(config: Config, secrets: tuple[str, ...]) -> HttpClient:
    key = str(config.get("key") or "")
    schema = text(config, "schema")
    headers = {"apikey": key, "Authorization": f"Bearer {key}", "Accept-Profile": schema, "Content-Profile": schema}
    return http_client(config, secrets, headers, CLIENT_SETTINGS)


def catalog(client: HttpClient, config: Config) -> dict[str, TableInfo]:
    """Tables of the schema from the OpenAPI root (`GET /rest/v1/`)."""
    spec = client.json(client.send("GET", rest_root(config) + "/"))
    found: dict[str, TableInfo] = {}
    definitions = spec.get("definitions", {}) if isinstance(spec, Mapping) else {}
    for name, definition in definitions.items():
        required = set(definition.get("required", []))
        columns, keys = [], []
        for column, prop in definition.get("properties", {}).items():
            columns.append(ColumnInfo(column, str(prop.get("format") or prop.get("type")), column not in required))
            if "<pk/>" in str(prop.get("description", "")):
                keys.append(column)
        found[name] = TableInfo(name, columns, keys)
    return found


class SupabaseDriver:
    def run(self, ctx: StepContext) -> StepOutcome:
        with client_for(ctx.config, ctx.secrets) as client:
            if ctx.component == "supabase.writer":
                return _write(ctx, client)
            return _read(ctx, client)

    def discover(self, config: Config, tables: list[str] | None) -> list[TableInfo]:
        with client_for(config, ()) as client:
            try:
                known = catalog(client, config)
            except RuntimeProblem as problem:
                if problem.value not in (401, 403, 404) or not config.get("tables"):
                    raise
                known = {name: _sampled_table(client, config, name) for name in texts(config, "tables")}
            for name in tables or []:
                if name not in known:
                    raise _unknown_table(client, config, name, known)
            return [known[name] for name in (tables or sorted(known))]


def _sampled_table(client: HttpClient, config: Config, name: str) -> TableInfo:
    """A known table (`tables`) when the OpenAPI root is closed: columns from one row, JSON types."""
    rows = client.json(_send(client, {**config, "table": name}, "GET", params={"select": "*", "limit": 1}))
    first = rows[0] if isinstance(rows, list) and rows and isinstance(rows[0], Mapping) else {}
    kinds = {bool: "boolean", int: "integer", float: "number", str: "string"}
    return TableInfo(name, [ColumnInfo(c, kinds.get(type(v), "json" if v is not None else "unknown"))
                            for c, v in first.items()])


def _table_url(config: Config) -> str:
    return f"{rest_root(config)}/{quote(str(config['table']), safe='')}"


def _send(client: HttpClient, config: Config, method: str, params: Params, *,
          headers: Mapping[str, str] | None = None, content: bytes | None = None,
          idempotent: bool = True) -> httpx.Response:
    """One request to the step's table; a 404 becomes OML501 (unknown table)."""
    try:
        return client.send(method, _table_url(config), params=params, headers=headers, content=content,
                           idempotent=idempotent)
    except RuntimeProblem as problem:
        if problem.value == 404:
            raise _unknown_table(client, config, str(config["table"])) from None
        raise


def _unknown_table(client: HttpClient, config: Config, name: str,
                   known: Mapping[str, TableInfo] | None = None) -> RuntimeProblem:
    if known is None:
        try:
            known = catalog(client, config)
        except RuntimeProblem:  # the key may not read the OpenAPI root; the message still stands
            known = {}
    schema = text(config, "schema")
    hint = f"Tables in '{schema}': {listing(sorted(known))}." if known else "Check the table name and schema."
    return client.problem("OML501", f"unknown table '{name}' in the schema '{schema}'{did_you_mean(name, known)}",
                          hint)


def _read(ctx: StepContext, client: HttpClient) -> StepOutcome:
    with RecordSpool(ctx.work_dir) as spool:
        read_pages(_pages(ctx, client), ctx, spool)
        return spooled_outcome(ctx, spool, client.notes, None if spool.count else _table_columns(client, ctx.config))


# PostgREST's column formats as DuckDB types, for the empty table of a read that got no row
_DUCKDB_TYPES = {"smallint": "SMALLINT", "integer": "INTEGER", "bigint": "BIGINT", "boolean": "BOOLEAN",
                 "real": "FLOAT", "double precision": "DOUBLE", "date": "DATE", "uuid": "UUID",
                 "timestamp without time zone": "TIMESTAMP", "timestamp with time zone": "TIMESTAMPTZ",
                 "json": "JSON", "jsonb": "JSON"}


def _select(config: Config) -> str:
    return text(config, "select")


def _table_columns(client: HttpClient, config: Config) -> list[tuple[str, str]] | None:
    """The columns of the step's table (those `select` names, when it is a plain list), from the
    OpenAPI root: an empty read (an incremental run with nothing new) still has the table's columns,
    so the steps after it run. None when the root is closed or `select` is more than a list."""
    select = _select(config)
    names = None if select == "*" else [n.strip() for n in select.split(",")]
    if names is not None and not all(n.replace("_", "").isalnum() for n in names):
        return None
    try:
        table = catalog(client, config).get(str(config["table"]))
    except RuntimeProblem:
        return None
    if table is None:
        return None
    kinds = {c.name: _DUCKDB_TYPES.get(c.type, "VARCHAR") for c in table.columns}
    if names is not None and not all(n in kinds for n in names):
        return None
    return [(n, kinds[n]) for n in (names or list(kinds))]


def _pages(ctx: StepContext, client: HttpClient) -> Iterator[list[Record]]:
    """Pages of `limit` rows from `offset` until a short page (or the sample is complete)."""
    config = ctx.config
    size = integer(config, "limit")
    offset = integer(config, "offset")
    params: list[tuple[str, Scalar]] = [("select", _select(config)), *_filters(config), *_after_cursor(ctx)]
    incremental = incremental_of(config)
    order = optional_text(config, "order") or (f"{incremental.cursor}.asc" if incremental else None)
    if order:
        params.append(("order", order))
    read, first = 0, 0
    while True:
        limit = size if ctx.sample is None else min(size, ctx.sample - read)
        response = _send(client, config, "GET", params=[*params, ("limit", limit), ("offset", offset)])
        rows = client.json(response)
        if not isinstance(rows, list):
            raise client.problem("OML515", f"invalid API response from {_where(config)}: not a list of rows",
                                 "Check url: it must be the project's URL, https://<project>.supabase.co.")
        if rows:
            yield rows
        read += len(rows)
        offset += len(rows)
        first = first or len(rows)
        # The server's max-rows may cap a page below `limit`: the end is an empty page or one shorter
        # than the first, never merely a page shorter than `limit`.
        if not rows or len(rows) < first or (ctx.sample is not None and read >= ctx.sample):
            return


def _filters(config: Config) -> list[tuple[str, Scalar]]:
    """The step's PostgREST `filter` as query-string pairs: a scalar as it is (httpx writes it), any
    other value as its text, as httpx would have written it."""
    return [(name, value if value is None or isinstance(value, (str, int, float)) else str(value))
            for name, value in mapping(config, "filter").items()]


def _after_cursor(ctx: StepContext) -> list[tuple[str, str]]:
    """An incremental read's filter (docs/run-again.md): `<cursor>=gt.<value>`, a query-string
    parameter PostgREST binds as a value of its SQL (beside any filter of the step on that column)."""
    if ctx.read_after is None:
        return []
    cursor, value = ctx.read_after
    return [(cursor, f"gt.{value}")]


def _where(config: Config) -> str:
    return safe_url(_table_url(config))


def _write(ctx: StepContext, client: HttpClient) -> StepOutcome:
    config = ctx.config
    mode = text(config, "write_mode")
    source, described = input_columns(ctx)
    names = [name for name, _ in described]
    keys = key_list(config.get("primary_key"))
    _check_keys(config, mode, keys, names)
    as_json, columns = json_columns(ctx, source, described)
    wants_ddl = bool(config.get("create_if_missing"))
    http_sql = config.get("ddl_channel") == "http_sql"
    database = database_fields(config)
    try:
        if database is not None:
            outcome = write_through_database(ctx, database, as_json, create=wants_ddl and not http_sql)
            if ctx.sample is None:
                return outcome
            proven = "written in one transaction and rolled back: table, columns, keys, types and constraints proven"
            return StepOutcome(rows_in=outcome.rows_in, rows_out=0,
                               warnings=[_sample_note(config, mode, outcome.rows_in, proven)])
        _check_target(client, config, keys, names)
    except RuntimeProblem as problem:
        if problem.code == "OML501" and wants_ddl:
            raise _cannot_create(config, columns, keys, http_sql) from None
        raise
    total = row_count(ctx.con, source)
    if ctx.sample is not None:
        return StepOutcome(rows_in=total, rows_out=0,
                           warnings=[_sample_note(config, mode, total, "table, columns and keys checked")])
    if mode == "replace":
        _send(client, config, "DELETE", params={keys[0]: "not.is.null"}, headers={"Prefer": "return=minimal"})
    written = _post_batches(ctx, client, quote_ident(source), mode, keys)
    return StepOutcome(rows_in=total, rows_out=written, warnings=list(client.notes))


def _sample_note(config: Config, mode: str, total: int, proven: str) -> str:
    verb = {"append": "appended to", "upsert": "upserted into", "replace": "written, replacing all rows of"}
    return f"sample: nothing was written; {total} rows would be {verb[mode]} '{config['table']}' ({proven})"


def _cannot_create(config: Config, columns: list[tuple[str, str]], keys: list[str],
                   http_sql: bool) -> RuntimeProblem:
    """A missing table that create_if_missing cannot create here: the one line that says why."""
    table = str(config["table"])
    reason = ("ddl_channel 'http_sql' is not supported: Osiris creates Supabase tables only through the "
              "project's Postgres connection" if http_sql else
              "create_if_missing needs the project's Postgres connection to create it")
    fix = "use ddl_channel: auto with pg_dsn" if http_sql else "add pg_dsn"
    return uncreatable_target_problem(
        table, reason, f"{fix} (or host, port, database, user and password) in the step's supabase connection, "
                       f"or create it in the Supabase SQL editor: {create_table_sql(config, columns, keys)}")


def create_table_sql(config: Config, columns: list[tuple[str, str]], keys: list[str]) -> str:
    """The PostgreSQL DDL for a table shaped like the input, as the Postgres path runs it."""
    target = f"{quote_ident(text(config, 'schema'))}.{quote_ident(str(config['table']))}"
    return postgres.create_table_sql(target, columns, keys) + ";"


def _check_keys(config: Config, mode: str, keys: list[str], names: list[str]) -> None:
    """Fail before anything is written when the mode lacks keys or the input lacks a key column."""
    table = config["table"]
    if mode in ("upsert", "replace") and not keys:
        raise keys_needed_problem(mode, table)
    missing = [k for k in keys if k not in names]
    if missing:
        raise key_not_in_input_problem(missing[0], "supabase.writer", names)


def _check_target(client: HttpClient, config: Config, keys: list[str], names: list[str]) -> None:
    """Fail before writing over REST when the table lacks a key or input column."""
    if keys:
        try:
            _send(client, config, "GET", params={"select": ",".join(keys), "limit": 0})
        except RuntimeProblem as problem:
            if problem.value != 400:
                raise
            raise _missing_key(client, config, keys) from None
    _send(client, config, "GET", params={"select": ",".join(names), "limit": 0})


def _missing_key(client: HttpClient, config: Config, keys: list[str]) -> RuntimeProblem:
    table = str(config["table"])
    try:
        columns = [c.name for c in catalog(client, config).get(table, TableInfo(table, [])).columns]
    except RuntimeProblem:
        columns = []
    absent = [k for k in keys if k not in columns] or keys
    hint = f"The table's columns are: {listing(columns)}." if columns else "Check primary_key against the table."
    return client.problem("OML512", f"key column '{absent[0]}' is not in the table '{table}'"
                          f"{did_you_mean(absent[0], columns)}", hint)


def _post_batches(ctx: StepContext, client: HttpClient, source: str, mode: str, keys: list[str]) -> int:
    config = ctx.config
    prefer = text(config, "prefer")
    params: dict[str, str] = {}
    if mode in ("upsert", "replace"):
        ignore = prefer == "resolution=ignore-duplicates"
        prefer = ("resolution=ignore-duplicates" if ignore else "resolution=merge-duplicates") + ",return=minimal"
        params["on_conflict"] = ",".join(keys)
    headers = {"Prefer": prefer, "Content-Type": "application/json"}
    size = integer(config, "batch_size")
    cursor = ctx.con.cursor()
    cursor.execute(f"SELECT CAST(to_json(t) AS VARCHAR) FROM (SELECT * FROM {source}) t")
    written = 0
    try:
        while rows := cursor.fetchmany(size):
            body = "[" + ",".join(row[0] for row in rows) + "]"
            try:
                _send(client, config, "POST", params=params, headers=headers, content=body.encode(),
                      idempotent=mode != "append")
            except RuntimeProblem as problem:
                problem.hint += (f" {written} rows were written before this batch; the REST API has no "
                                 "transactions, so they stay.")
                raise
            written += len(rows)
            ctx.progress(written)
    finally:
        cursor.close()
    return written


DRIVER = SupabaseDriver()
FAMILY = Family("supabase", "Supabase", ("supabase.extractor", "supabase.writer"), kind="database",
                discoverable=True, dialect="postgres",
                endpoints=("url", "project_id", *HTTP_ENDPOINT_FIELDS, *DATABASE_ENDPOINT_FIELDS))
