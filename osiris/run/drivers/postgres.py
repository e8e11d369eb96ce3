"""postgres.extractor and postgres.writer through psycopg 3, with `discover` (the SQL skeleton,
osiris.run.drivers.sql_base, runs the flow; this is PostgreSQL's dialect).

Reading streams `COPY (query) TO STDOUT` row by row into a CSV spool that DuckDB loads every
`batch_size` rows, taking the rows libpq holds without psycopg's per-row frames (ADR 0127).
Writing sends the input as CSV through ONE `COPY ... FROM STDIN`, `batch_size` rows per write
(ADR 0125: a statement per batch was 2.5x slower), inside ONE transaction: a failure
or Ctrl-C rolls everything back, and `--sample` rolls back on purpose after the real DDL and inserts
(or upserts) have been proven. Nothing but the pipeline's rows is written: an upsert stages rows in
a TEMPORARY table that PostgreSQL drops at commit.

Sessions run in UTC. A password is never sent in cleartext over an unencrypted link: unless the
connection requires TLS, libpq is told to refuse a server that asks for one (`require_auth`).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import closing
from typing import TYPE_CHECKING

from osiris.oml.values import Config, Value
from osiris.run.driver import Family, StepContext, TableInfo
from osiris.run.drivers.postgres_bits import (bit_targets, bits_text, refuse_wide_bits, refuse_wide_staged_bits,
                                              staged_bit_targets, staged_bits_text)
from osiris.run.drivers.sql_base import Classified, ErrorKind, SqlDialect, SqlDriver, WriteTarget, tables_found
from osiris.run.drivers.sql_common import csv_batches, select_list, spool_path
from osiris.run.drivers.sql_types import is_nested, notes
from osiris.run.fields import integer, optional_text, text
from osiris.run.spool import REFUSED, Column, CsvSpool, quote_ident

if TYPE_CHECKING:
    import duckdb
    from psycopg import Connection, Copy
    from psycopg.rows import TupleRow

    PgConnection = Connection[TupleRow]
    from psycopg import Column as PgColumn

FAMILY = Family("postgres", "PostgreSQL", ("postgres.extractor", "postgres.writer"), kind="database",
                discoverable=True, dialect="postgres", words=("postgresql",), endpoints=("host", "port", "sslmode"))

# PostgreSQL type OIDs -> the engine's (DuckDB's) column for what a query returns; anything else is
# VARCHAR: PostgreSQL's own text of the value (arrays, bit strings, money, ranges, ...). docs/types.md.
_PG_TO_DUCKDB = {16: "BOOLEAN", 20: "BIGINT", 21: "SMALLINT", 23: "INTEGER", 26: "BIGINT", 700: "REAL",
                 701: "DOUBLE", 1083: "TIME", 1266: "TIMETZ", 2950: "UUID", 114: "JSON", 3802: "JSON"}
_NOT_BC = f"CAST(CASE WHEN ends_with({{0}}, ' BC') THEN error({REFUSED} || {{1}}) ELSE {{0}} END AS %s)"
_PG_PARSED = {17: ("BLOB", "unhex(substr({0}, 3))"),  # bytea's text: \x and hex digits
              1186: ("INTERVAL", "CAST(replace({0}, '+', '') AS INTERVAL)"),  # "-1 years +3 days -04:05:06"
              # DuckDB would read "0044-03-15 BC" as the year 44 AD: a date before the year 1 is refused
              1082: ("DATE", _NOT_BC % "DATE"), 1114: ("TIMESTAMP", _NOT_BC % "TIMESTAMP"),
              1184: ("TIMESTAMPTZ", _NOT_BC % "TIMESTAMPTZ")}
_DUCKDB_TO_PG = {"BIGINT": "bigint", "INTEGER": "integer", "SMALLINT": "smallint", "TINYINT": "smallint",
                 "HUGEINT": "numeric(39)", "UHUGEINT": "numeric(39)", "UBIGINT": "numeric(20)",
                 "UINTEGER": "bigint", "USMALLINT": "integer", "UTINYINT": "smallint", "DOUBLE": "double precision",
                 "FLOAT": "real", "BOOLEAN": "boolean", "DATE": "date", "TIME": "time", "TIMESTAMP": "timestamp",
                 "TIMESTAMP WITH TIME ZONE": "timestamptz", "TIME WITH TIME ZONE": "timetz", "INTERVAL": "interval",
                 "UUID": "uuid", "VARCHAR": "text", "JSON": "jsonb", "BLOB": "bytea", "BIT": "varbit"}
ENCRYPTED_SSLMODES = ("require", "verify-ca", "verify-full")
SESSION_OPTIONS = "-c TimeZone=UTC -c DateStyle=ISO -c bytea_output=hex"  # the texts the readers expect


class PostgresDialect(SqlDialect["PgConnection"]):
    family = FAMILY
    default_port = 5432

    def open(self, config: Config) -> PgConnection:
        import psycopg

        sslmode = text(config, "sslmode")
        return psycopg.connect(
            host=text(config, "host"), port=integer(config, "port"), user=optional_text(config, "user"),
            password=optional_text(config, "password"), dbname=optional_text(config, "database"), sslmode=sslmode,
            connect_timeout=10, application_name="osiris", options=SESSION_OPTIONS,
            require_auth=None if sslmode in ENCRYPTED_SSLMODES else "!password")  # None: libpq's default

    def classify_connect(self, error: Exception) -> Classified | None:
        import psycopg

        if not isinstance(error, psycopg.OperationalError):
            return None
        text = " ".join(str(error).split())
        lowered = text.lower()
        if "requested a cleartext password" in lowered or "require_auth" in lowered:
            return ErrorKind.CLEARTEXT, text
        if "password authentication failed" in lowered or "no password supplied" in lowered:
            return ErrorKind.AUTH, "password authentication failed"
        if "permission denied" in lowered:
            return ErrorKind.PERMISSION, text
        if "does not exist" in lowered and "database" in lowered:
            return ErrorKind.UNKNOWN_DATABASE, text
        reason = ("connection refused" if "refused" in lowered else
                  "unknown host" if "translate host name" in lowered or "name or service" in lowered else
                  "timed out" if "timeout" in lowered else text)
        return ErrorKind.CONNECT, reason

    def classify(self, error: Exception) -> Classified | None:
        import psycopg
        from psycopg import errors

        if not isinstance(error, psycopg.Error):
            return None
        text = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
        kinds: list[tuple[type[Exception], ErrorKind]] = [
            (errors.UndefinedTable, ErrorKind.UNKNOWN_TABLE), (errors.UndefinedColumn, ErrorKind.UNKNOWN_COLUMN),
            (errors.InsufficientPrivilege, ErrorKind.PERMISSION), (errors.UniqueViolation, ErrorKind.UNIQUE),
            (errors.NotNullViolation, ErrorKind.NOT_NULL), (errors.ForeignKeyViolation, ErrorKind.FOREIGN_KEY),
            (errors.CheckViolation, ErrorKind.CHECK), (psycopg.IntegrityError, ErrorKind.REJECTED),
            (psycopg.DataError, ErrorKind.TYPE), (errors.DatatypeMismatch, ErrorKind.TYPE)]
        if isinstance(error, errors.InvalidColumnReference) and "ON CONFLICT" in text:
            return ErrorKind.NO_UNIQUE_KEY, text
        if isinstance(error, errors.UndefinedFunction) and "operator does not exist" in text:
            return ErrorKind.TYPE, text
        return next(((kind, text) for cls, kind in kinds if isinstance(error, cls)), (ErrorKind.SQL, text))

    def quote(self, name: str) -> str:
        return quote_ident(name)

    def read(self, ctx: StepContext, conn: PgConnection, query: str, params: tuple[Value, ...] = ()) -> int:
        with conn.cursor() as cursor:
            cursor.execute(f"SELECT * FROM ({query}) AS osiris_source LIMIT 0", params or None)
            columns = [engine_column(c) for c in cursor.description or []]
            spool = CsvSpool(ctx.con, ctx.output_table, columns, spool_path(ctx),
                             integer(ctx.config, "batch_size"), ctx.progress)
            try:
                with cursor.copy(f"COPY ({query}) TO STDOUT (FORMAT CSV)", params or None) as copy:
                    spool.add_lines(copied_rows(copy, conn))
            finally:
                rows = spool.close()
        settle_numerics(ctx.con, ctx.output_table, [c.name for c in columns if c.note == "numeric"])
        return rows

    def discover(self, conn: PgConnection, schema: str, tables: list[str] | None) -> list[TableInfo]:
        with conn.cursor() as cursor:
            cursor.execute(
                "SELECT c.relname, a.attname, format_type(a.atttypid, a.atttypmod), NOT a.attnotnull, "
                "pg_get_expr(d.adbin, d.adrelid), (SELECT array_agg(e.enumlabel::text ORDER BY e.enumsortorder) "
                "FROM pg_enum e WHERE e.enumtypid = a.atttypid) "
                "FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid "
                "JOIN pg_namespace n ON n.oid = c.relnamespace "
                "LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum "
                "WHERE n.nspname = %s AND c.relkind IN ('r', 'p', 'v', 'm', 'f') AND a.attnum > 0 "
                "AND NOT a.attisdropped AND (%s::text[] IS NULL OR c.relname = ANY(%s::text[])) "
                "ORDER BY c.relname, a.attnum", (schema, tables, tables))
            columns = cursor.fetchall()
            cursor.execute(
                "SELECT c.relname, a.attname FROM pg_index i JOIN pg_class c ON c.oid = i.indrelid "
                "JOIN pg_namespace n ON n.oid = c.relnamespace "
                "JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum = ANY(i.indkey) "
                "WHERE i.indisprimary AND n.nspname = %s "
                "ORDER BY c.relname, array_position(i.indkey::int2[], a.attnum)", (schema,))
            return tables_found(columns, cursor.fetchall())

    def prepare(self, ctx: StepContext, conn: PgConnection, target: WriteTarget, columns: list[tuple[str, str]]) -> str:
        """The target itself: DDL is transactional here, so a created table goes with a rollback."""
        into = f"{quote_ident(target.schema)}.{quote_ident(target.table)}"
        if target.existing is None:
            noted = notes(ctx, next(iter(ctx.input_tables.values())))
            with conn.cursor() as cursor:
                cursor.execute(create_table_sql(into, columns, target.keys, noted))
        return into

    def write(self, ctx: StepContext, conn: PgConnection, into: str, target: WriteTarget, source: str,
              columns: list[tuple[str, str]]) -> int:
        """One COPY, straight into the target, or through a staging table for an upsert and for a
        --sample that must not advance a sequence: columns the input lacks whose default is a
        sequence's next value (serial, identity) get values computed from the table instead."""
        names = ", ".join(quote_ident(n) for n, _ in columns)
        counted = _counted(conn, into, [n for n, _ in columns]) if ctx.sample is not None and target.existing else []
        staged = target.mode == "upsert" or bool(counted)
        with conn.cursor() as cursor:
            if staged:
                cursor.execute(f"CREATE TEMPORARY TABLE osiris_stage (LIKE {into} INCLUDING DEFAULTS) ON COMMIT DROP"
                               if not counted else  # no defaults: a default would take the sequence's next value
                               f"CREATE TEMPORARY TABLE osiris_stage ON COMMIT DROP AS SELECT {names} FROM {into} "
                               "WITH NO DATA")
            rows = 0
            if ctx.staged_table:  # the Spark engine staged the rows in this database (docs/spark.md)
                into_bits = staged_bit_targets(columns, target.existing)  # a number into a bit(n) column: its bits
                refuse_wide_staged_bits(cursor, ctx.staged_table, into_bits)
                # a table just created: each staged value read as its column's type (Spark staged an
                # interval, jsonb or uuid as text, which PostgreSQL assigns to such a column only so)
                made = dict(created_types(columns, notes(ctx, source))) if target.existing is None else {}
                values = ", ".join(staged_bits_text(n, into_bits[n]) if n in into_bits else
                                   f"CAST({quote_ident(n)} AS {made[n]})" if n in made else quote_ident(n)
                                   for n, _ in columns)
                cursor.execute(f"INSERT INTO {'osiris_stage' if staged else into} ({names}) "
                               f"SELECT {values} FROM {ctx.staged_table}")
                rows = cursor.rowcount
            else:
                into_bits = bit_targets(columns, target.existing)  # a number into a bit(n) column: its bits
                refuse_wide_bits(ctx, source, into_bits)
                bits = {quote_ident(n): shape for n, shape in into_bits.items()}
                select = select_list(columns, lambda name, kind: bits_text(name, bits[name]) if name in bits
                                     else _copy_text(name, kind))
                batches = csv_batches(ctx, source, select, integer(ctx.config, "batch_size"))
                # closing(): a failed write or Ctrl-C stops DuckDB's export now, not when the generator is
                # collected; until then DuckDB would wait on the pipe and the engine's close on DuckDB.
                with closing(batches), cursor.copy(f"COPY {'osiris_stage' if staged else into} ({names}) "
                                                   "FROM STDIN (FORMAT CSV)") as copy:
                    for data, count in batches:
                        copy.write(data)
                        rows += count
                        ctx.progress(rows)
            if staged:
                cursor.execute(_insert_staged(into, columns, counted, target, bool(ctx.config.get("keep_existing"))))
                cursor.execute("DROP TABLE osiris_stage")
        return rows

    def lock(self, conn: PgConnection, into: str) -> None:
        """Readers go on; a second replace of the same table waits until this one commits."""
        with conn.cursor() as cursor:
            cursor.execute(f"LOCK TABLE {into} IN SHARE ROW EXCLUSIVE MODE")

    def after_error(self, conn: PgConnection) -> None:
        conn.rollback()


def copied_rows(copy: Copy, conn: PgConnection) -> Iterator[bytes | bytearray | memoryview]:
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
        waited = copy.read()  # 0: nothing held yet; -2: psycopg raises the connection's error
        if not waited:
            return
        yield waited


def settle_numerics(con: duckdb.DuckDBPyConnection, table: str, names: list[str]) -> None:
    """Give each `numeric` read as text (no precision, or wider than 38 digits) the DECIMAL(p,s) that
    holds every value read, so that arithmetic works (`sum(amount)`); values that need more than 38
    digits, or NaN and infinities, keep the column as PostgreSQL's exact text (docs/types.md). The
    note stays: a created PostgreSQL table gets `numeric` again."""
    from osiris.run.decimal_fit import column_texts, holding_type

    target = quote_ident(table)
    for name in names:
        column = quote_ident(name)
        kind = holding_type(column_texts(con, target, column))
        if kind is not None and kind != "VARCHAR":
            con.execute(f"ALTER TABLE {target} ALTER {column} TYPE {kind}")
            con.execute(f"COMMENT ON COLUMN {target}.{column} IS 'numeric'")


def engine_column(column: PgColumn) -> Column:
    """The engine's column for a query's column: a numeric wider than DuckDB's 38 digits (or one
    without a precision) is read as PostgreSQL's exact text, noted as numeric for a table to be
    created, then settled (settle_numerics)."""
    code = column.type_code
    if code == 1700:  # numeric
        precision, scale = column.precision, column.scale
        if precision and precision <= 38:
            return Column(column.name, f"DECIMAL({precision},{scale})")
        return Column(column.name, "VARCHAR", note="numeric")
    if code in _PG_PARSED:
        kind, parse = _PG_PARSED[code]
        return Column(column.name, kind, parse=parse)
    return Column(column.name, _PG_TO_DUCKDB.get(code, "VARCHAR"))


def _copy_text(name: str, kind: str) -> str | None:
    """How a column goes into COPY's CSV when DuckDB's own text would not read back the same."""
    if kind == "BLOB":
        return f"'\\x' || lower(hex({name}))"  # bytea's hex form
    if is_nested(kind):
        return f"to_json({name})"
    return None


def create_table_sql(target: str, columns: list[tuple[str, str]], keys: list[str],
                     noted: dict[str, str] | None = None) -> str:
    """`CREATE TABLE target (...)` for DuckDB-typed columns (supabase.writer prints it too);
    `noted`: the source types a reader kept ({"amount": "numeric"})."""
    body = [f"{quote_ident(n)} {kind}" for n, kind in created_types(columns, noted)]
    if keys:
        body.append("PRIMARY KEY (" + ", ".join(quote_ident(k) for k in keys) + ")")
    return f"CREATE TABLE {target} ({', '.join(body)})"


def created_types(columns: list[tuple[str, str]], noted: dict[str, str] | None = None) -> list[tuple[str, str]]:
    """(name, PostgreSQL type) of each DuckDB-typed column of a table to create."""
    return [(n, (noted or {}).get(n) or _pg_type(t)) for n, t in columns]


def _pg_type(duckdb_type: str) -> str:
    if duckdb_type.startswith("DECIMAL"):
        return duckdb_type.replace("DECIMAL", "numeric")
    if is_nested(duckdb_type):
        return "jsonb"
    return _DUCKDB_TO_PG.get(duckdb_type, "text")


def _counted(conn: PgConnection, into: str, names: list[str]) -> list[tuple[str, bool]]:
    """(column, is an identity) for the target's columns outside `names` that a sequence numbers."""
    with conn.cursor() as cursor:
        cursor.execute(
            "SELECT a.attname, a.attidentity <> '' FROM pg_attribute a LEFT JOIN pg_attrdef d "
            "ON d.adrelid = a.attrelid AND d.adnum = a.attnum WHERE a.attrelid = %s::regclass AND a.attnum > 0 "
            "AND NOT a.attisdropped AND (a.attidentity <> '' OR pg_get_expr(d.adbin, d.adrelid) LIKE 'nextval(%%') "
            "ORDER BY a.attnum", (into,))
        return [(str(name), bool(identity)) for name, identity in cursor.fetchall() if name not in names]


def _insert_staged(target: str, columns: list[tuple[str, str]], counted: list[tuple[str, bool]],
                   write: WriteTarget, keep_existing: bool) -> str:
    """INSERT the staged rows, numbering `counted` columns after the table's highest value (a --sample
    then leaves every sequence as it was); an upsert's row whose key exists updates it (or,
    `keep_existing`, is skipped)."""
    names = [quote_ident(n) for n, _ in columns]
    numbered = [quote_ident(n) for n, _ in counted]
    values = [f"(SELECT coalesce(max({n}), 0) FROM {target}) + row_number() OVER ()" for n in numbered]
    overriding = " OVERRIDING SYSTEM VALUE" if any(identity for _, identity in counted) else ""
    statement = (f"INSERT INTO {target} ({', '.join(names + numbered)}){overriding} "
                 f"SELECT {', '.join(names + values)} FROM osiris_stage")
    if write.mode != "upsert":
        return statement
    updates = ", ".join(f"{quote_ident(n)} = EXCLUDED.{quote_ident(n)}" for n, _ in columns if n not in write.keys)
    action = f"DO UPDATE SET {updates}" if updates and not keep_existing else "DO NOTHING"
    return f"{statement} ON CONFLICT ({', '.join(quote_ident(k) for k in write.keys)}) {action}"


DRIVER = SqlDriver(PostgresDialect())
