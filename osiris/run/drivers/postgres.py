"""postgres.extractor and postgres.writer through psycopg 3, with `discover`.

Reading streams `COPY (query) TO STDOUT` row by row into a CSV spool that DuckDB loads every
`batch_size` rows, taking the rows libpq holds without psycopg's per-row frames (ADR 0127).
Writing sends the input as CSV through ONE `COPY ... FROM STDIN`, `batch_size` rows per write
(ADR 0125: a statement per batch was 2.5x slower), inside ONE transaction: a failure
or Ctrl-C rolls everything back, and `--sample` rolls back on purpose after the real DDL and inserts
(or upserts) have been proven. Nothing but the pipeline's rows is written: an upsert stages rows in
a TEMPORARY table that PostgreSQL drops at commit.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from osiris.run.driver import ColumnInfo, RuntimeProblem, StepContext, StepOutcome, TableInfo
from osiris.run.drivers.sql_common import csv_batches, input_columns, key_list, spool_path, tables_in
from osiris.run.problems import (
    auth_problem,
    connect_problem,
    key_problem,
    names_hint,
    permission_problem,
    quoted_name,
    redacted,
    rejected_problem,
    sql_problem,
    type_problem,
)
from osiris.run.spool import CsvSpool, quote_ident

# PostgreSQL type OIDs -> DuckDB types for the columns a query returns; anything else is VARCHAR.
_PG_TO_DUCKDB = {16: "BOOLEAN", 20: "BIGINT", 21: "SMALLINT", 23: "INTEGER", 26: "BIGINT", 700: "REAL",
                 701: "DOUBLE", 1082: "DATE", 1083: "TIME", 1114: "TIMESTAMP", 1184: "TIMESTAMPTZ",
                 2950: "UUID"}
_DUCKDB_TO_PG = {"BIGINT": "bigint", "INTEGER": "integer", "SMALLINT": "smallint", "TINYINT": "smallint",
                 "HUGEINT": "numeric", "UBIGINT": "numeric", "UINTEGER": "bigint", "USMALLINT": "integer",
                 "UTINYINT": "smallint", "DOUBLE": "double precision", "FLOAT": "real", "BOOLEAN": "boolean",
                 "DATE": "date", "TIME": "time", "TIMESTAMP": "timestamp", "TIMESTAMP_NS": "timestamp",
                 "TIMESTAMP WITH TIME ZONE": "timestamptz", "UUID": "uuid", "VARCHAR": "text", "JSON": "jsonb"}


class PostgresDriver:
    def run(self, ctx: StepContext) -> StepOutcome:
        if ctx.mode == "read":
            return self._read(ctx)
        return self._write(ctx)

    def discover(self, config: Mapping[str, Any], tables: list[str] | None) -> list[TableInfo]:
        with _connect(config, ()) as conn:
            return _discover(conn, _schema(config), tables)

    # --- reading ---------------------------------------------------------------------------

    def _read(self, ctx: StepContext) -> StepOutcome:
        config = ctx.config
        query = _source_query(config)
        limits = [n for n in (config.get("limit"), ctx.sample) if n is not None]
        if limits:
            query = f"SELECT * FROM ({query}) AS osiris_source LIMIT {int(min(limits))}"
        with _connect(config, ctx.secrets) as conn:
            try:
                with conn.cursor() as cursor:
                    cursor.execute(f"SELECT * FROM ({query}) AS osiris_source LIMIT 0")
                    columns = [(c.name, _duckdb_type(c)) for c in cursor.description or []]
                    spool = CsvSpool(ctx.con, ctx.output_table, columns, spool_path(ctx),
                                     int(config.get("batch_size", 10_000)), ctx.progress)
                    try:
                        with cursor.copy(f"COPY ({query}) TO STDOUT (FORMAT CSV)") as copy:
                            spool.add_lines(copied_rows(copy, conn))
                    finally:
                        rows = spool.close()
            except Exception as error:
                raise _problem(error, conn, config, ctx.secrets) from None
            conn.rollback()
        return StepOutcome(rows_in=rows, rows_out=rows)

    # --- writing ---------------------------------------------------------------------------

    def _write(self, ctx: StepContext) -> StepOutcome:
        config = ctx.config
        source, columns = input_columns(ctx)
        schema, table = _schema(config), str(config["table"])
        target = f"{quote_ident(schema)}.{quote_ident(table)}"
        mode = str(config.get("write_mode", "append"))
        keys = key_list(config.get("primary_key"))
        if mode == "upsert" and any(k not in dict(columns) for k in keys):
            raise key_problem([k for k in keys if k not in dict(columns)], [n for n, _ in columns])
        with _connect(config, ctx.secrets) as conn:
            try:
                rows = self._write_in_transaction(ctx, conn, source, columns, schema, table, target, mode, keys)
            except BaseException as error:
                if not isinstance(error, Exception):
                    conn.rollback()
                    raise
                raise _problem(error, conn, config, ctx.secrets, table=table) from None
            if ctx.sample is None:
                conn.commit()
            else:
                conn.rollback()  # --sample: the write was proven, now undo it
        return StepOutcome(rows_in=rows, rows_out=rows)

    def _write_in_transaction(self, ctx: StepContext, conn: Any, source: str, columns: list[tuple[str, str]],
                              schema: str, table: str, target: str, mode: str, keys: list[str]) -> int:
        with conn.cursor() as cursor:
            existing = _discover(conn, schema, [table])
            if not existing:
                if not ctx.config.get("create_if_missing"):
                    raise _unknown_table(conn, schema, table)
                cursor.execute(create_table_sql(target, columns, keys))
            else:
                known = [c.name for c in existing[0].columns]
                for name, _ in columns:
                    if name not in known:
                        raise RuntimeProblem("OML502", f'column "{name}" does not exist in {schema}.{table}',
                                             names_hint("column", name, known), value=name)
            if mode == "replace":
                cursor.execute(f"DELETE FROM {target}")
            names = ", ".join(quote_ident(n) for n, _ in columns)
            into = target
            if mode == "upsert":
                cursor.execute(f"CREATE TEMPORARY TABLE osiris_stage (LIKE {target} INCLUDING DEFAULTS) "
                               "ON COMMIT DROP")
                into = "osiris_stage"
            rows = 0
            if ctx.staged_table:  # staged by the Spark engine in this database
                cursor.execute(f"INSERT INTO {into} ({names}) SELECT {names} FROM {ctx.staged_table}")
                rows = cursor.rowcount
            else:
                with cursor.copy(f"COPY {into} ({names}) FROM STDIN (FORMAT CSV)") as copy:
                    for data, count in csv_batches(ctx, source, columns, int(ctx.config.get("batch_size", 1000))):
                        copy.write(data)
                        rows += count
                        ctx.progress(rows)
            if mode == "upsert":
                cursor.execute(_upsert_statement(target, columns, keys, bool(ctx.config.get("keep_existing"))))
                cursor.execute("DROP TABLE osiris_stage")
        return rows


def copied_rows(copy: Any, conn: Any) -> Iterator[memoryview]:
    """The rows of a `COPY ... TO STDOUT`, as psycopg's `copy.read()` gives them, at libpq's speed.

    Rows that libpq already holds are taken with one non-blocking call each; iterating the Copy
    costs about 0.4 µs a row more in Python frames, half of a 1M-row read (ADR 0127). Whenever
    nothing is held, `copy.read()` waits on the socket as usual (Ctrl-C and timeouts stay
    psycopg's) and reports a broken connection. When the copy ends on our call, its final status is
    read here, and an error the query ended with is raised as the psycopg error psycopg would raise.
    """
    from psycopg import errors, pq

    pgconn = conn.pgconn
    take = pgconn.get_copy_data
    while True:
        nbytes, data = take(1)  # 1: never block
        if nbytes > 0:
            yield data
            continue
        if nbytes == -1:  # the end: read the COPY's final status, as psycopg's own read would
            result = pgconn.get_result()
            while pgconn.get_result() is not None:
                pass
            if result is not None and result.status != pq.ExecStatus.COMMAND_OK:
                raise errors.error_from_result(result, encoding=conn.info.encoding)
            return
        data = copy.read()  # 0: nothing held yet; -2: psycopg raises the connection's error
        if not data:
            return
        yield data


def _connect(config: Mapping[str, Any], secrets: tuple[str, ...]) -> Any:
    import psycopg

    secrets = (*secrets, str(config.get("password") or ""))
    try:
        return psycopg.connect(
            host=config.get("host", "localhost"), port=int(config.get("port", 5432)), user=config.get("user"),
            password=config.get("password"), dbname=config.get("database"),
            sslmode=config.get("sslmode", "prefer"), connect_timeout=10, application_name="osiris")
    except psycopg.OperationalError as error:
        detail = redacted(" ".join(str(error).split()), secrets)
        lowered = detail.lower()
        if "password authentication failed" in lowered or "no password supplied" in lowered:
            raise auth_problem("postgres", config.get("user"), "password authentication failed") from None
        if "permission denied" in lowered:
            raise permission_problem(detail) from None
        if "does not exist" in lowered and "database" in lowered:
            raise connect_problem("postgres", config.get("host"), config.get("port", 5432),
                                  f"the database '{config.get('database')}' does not exist") from None
        reason = ("connection refused" if "refused" in lowered else
                  "unknown host" if "translate host name" in lowered or "name or service" in lowered else
                  "timed out" if "timeout" in lowered else detail)
        raise connect_problem("postgres", config.get("host"), config.get("port", 5432), reason) from None


def _schema(config: Mapping[str, Any]) -> str:
    return str(config.get("schema") or "public")


def _source_query(config: Mapping[str, Any]) -> str:
    if config.get("query"):
        return str(config["query"]).strip().rstrip(";")
    columns = ", ".join(quote_ident(str(c)) for c in config.get("columns") or []) or "*"
    return f"SELECT {columns} FROM {quote_ident(_schema(config))}.{quote_ident(str(config['table']))}"


def _duckdb_type(column: Any) -> str:
    if column.type_code == 1700:  # numeric
        precision, scale = column.precision, column.scale
        return f"DECIMAL({precision},{scale})" if precision and precision <= 38 else "DOUBLE"
    return _PG_TO_DUCKDB.get(column.type_code, "VARCHAR")


def create_table_sql(target: str, columns: list[tuple[str, str]], keys: list[str]) -> str:
    """`CREATE TABLE target (...)` for DuckDB-typed columns (supabase.writer prints it too)."""
    body = [f"{quote_ident(n)} {_pg_type(t)}" for n, t in columns]
    if keys:
        body.append("PRIMARY KEY (" + ", ".join(quote_ident(k) for k in keys) + ")")
    return f"CREATE TABLE {target} ({', '.join(body)})"


def _pg_type(duckdb_type: str) -> str:
    if duckdb_type.startswith("DECIMAL"):
        return duckdb_type.replace("DECIMAL", "numeric")
    return _DUCKDB_TO_PG.get(duckdb_type, "text")


def _upsert_statement(target: str, columns: list[tuple[str, str]], keys: list[str], keep_existing: bool) -> str:
    """INSERT the staged rows; a row whose key exists updates it (or, `keep_existing`, is skipped)."""
    names = ", ".join(quote_ident(n) for n, _ in columns)
    updates = ", ".join(f"{quote_ident(n)} = EXCLUDED.{quote_ident(n)}" for n, _ in columns if n not in keys)
    conflict = ", ".join(quote_ident(k) for k in keys)
    action = f"DO UPDATE SET {updates}" if updates and not keep_existing else "DO NOTHING"
    return f"INSERT INTO {target} ({names}) SELECT {names} FROM osiris_stage ON CONFLICT ({conflict}) {action}"


def _discover(conn: Any, schema: str, tables: list[str] | None) -> list[TableInfo]:
    with conn.cursor() as cursor:
        cursor.execute(
            "SELECT c.relname, a.attname, format_type(a.atttypid, a.atttypmod), NOT a.attnotnull "
            "FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid "
            "JOIN pg_namespace n ON n.oid = c.relnamespace "
            "WHERE n.nspname = %s AND c.relkind IN ('r', 'p', 'v', 'm', 'f') AND a.attnum > 0 "
            "AND NOT a.attisdropped AND (%s::text[] IS NULL OR c.relname = ANY(%s::text[])) "
            "ORDER BY c.relname, a.attnum", (schema, tables, tables))
        found: dict[str, TableInfo] = {}
        for table, column, kind, nullable in cursor.fetchall():
            found.setdefault(table, TableInfo(table, [])).columns.append(ColumnInfo(column, kind, nullable))
        cursor.execute(
            "SELECT c.relname, a.attname FROM pg_index i JOIN pg_class c ON c.oid = i.indrelid "
            "JOIN pg_namespace n ON n.oid = c.relnamespace "
            "JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum = ANY(i.indkey) "
            "WHERE i.indisprimary AND n.nspname = %s "
            "ORDER BY c.relname, array_position(i.indkey::int2[], a.attnum)", (schema,))
        for table, column in cursor.fetchall():
            if table in found:
                found[table].primary_key.append(column)
    return list(found.values())


def _unknown_table(conn: Any, schema: str, table: str | None) -> RuntimeProblem:
    known = [t.name for t in _discover(conn, schema, None)]
    return RuntimeProblem("OML501", f'table "{table}" does not exist', names_hint("table", table, known),
                          value=table)


def _problem(error: Exception, conn: Any, config: Mapping[str, Any], secrets: tuple[str, ...],
             table: str | None = None) -> RuntimeProblem:
    """Map a psycopg error to the OML5xx problem the person sees."""
    import psycopg
    from psycopg import errors

    if isinstance(error, RuntimeProblem):
        return error
    if not isinstance(error, psycopg.Error):
        raise error
    detail = redacted(error, secrets)
    conn.rollback()
    schema = _schema(config)
    if isinstance(error, errors.UndefinedTable):
        return _unknown_table(conn, schema, quoted_name(detail))
    if isinstance(error, errors.UndefinedColumn):
        wrong = quoted_name(detail)
        named = table or config.get("table")
        tables = [named] if named else tables_in(str(config.get("query", "")), "postgres")
        known = [c.name for t in _discover(conn, schema, tables) for c in t.columns]
        return RuntimeProblem("OML502", f'column "{wrong}" does not exist', names_hint("column", wrong, known),
                              value=wrong)
    if isinstance(error, errors.InvalidColumnReference) and "ON CONFLICT" in detail:
        keys = key_list(config.get("primary_key"))
        return RuntimeProblem("OML512", f"the target has no primary key or unique index on {', '.join(keys)}",
                              "add a primary key or unique index on the key columns, or set primary_key to them")
    if isinstance(error, errors.InsufficientPrivilege):
        return permission_problem(detail)
    if isinstance(error, psycopg.IntegrityError):
        return rejected_problem(detail)
    if isinstance(error, (psycopg.DataError, errors.DatatypeMismatch)) or (
            isinstance(error, errors.UndefinedFunction) and "operator does not exist" in detail):
        return type_problem(detail)
    return sql_problem(detail)


DRIVER = PostgresDriver()
