"""mysql.extractor and mysql.writer through PyMySQL (MySQL and MariaDB), with `discover` (the SQL
skeleton, osiris.run.drivers.sql_base, runs the flow; this is MySQL's dialect).

Reading streams with an unbuffered server-side cursor (SSCursor), `batch_size` rows at a time, into
a CSV spool that DuckDB loads. Writing runs in ONE transaction (InnoDB): `replace` and
`truncate_before` delete rather than TRUNCATE, which would commit at once. `create_table` is DDL and
commits on its own in MySQL, so a failed first run can leave the new, empty table behind.
On `--sample`, rows go into a TEMPORARY table shaped like the target (`CREATE TEMPORARY TABLE ... LIKE`),
which only this connection sees and which disappears with it.

`schema` names the database the table is in (default: the connection's `database`). Sessions run
in UTC. The connection is never encrypted, so a server that asks for a cleartext password
(`mysql_clear_password`, or `dialog` as PAM uses it) is refused before the password is sent.
"""

from __future__ import annotations

import hashlib
from typing import TYPE_CHECKING, NoReturn

from osiris.oml.values import Config, Value
from osiris.run.driver import Family, StepContext, TableInfo
from osiris.run.drivers.sql_base import Classified, ErrorKind, SqlDialect, SqlDriver, WriteTarget, tables_found
from osiris.run.drivers.mysql_types import FLOAT, REFUSALS, ReadColumns, mysql_type, render, result_fields
from osiris.run.drivers.sql_common import input_batches, select_list, spool_path
from osiris.run.drivers.sql_types import notes, widest_decimal
from osiris.run.problems import quoted_name, rejected_problem, repeated_column_problem, repeated_name
from osiris.run.fields import integer, optional_integer, optional_text, text
from osiris.run.spool import CsvSpool, quote_ident

if TYPE_CHECKING:
    from pymysql.connections import Connection
    from pymysql.protocol import MysqlPacket

    from osiris.run.drivers.mysql_load import GuardedConnection

FAMILY = Family("mysql", "MySQL", ("mysql.extractor", "mysql.writer"), kind="database",
                discoverable=True, dialect="mysql", words=("mariadb",), endpoints=("host", "port"))

_CONNECT, _UNKNOWN_HOST, _AUTH, _DB_ACCESS, _UNKNOWN_DB = 2003, 2005, 1045, 1044, 1049
_NO_TABLE, _NO_COLUMN, _DUPLICATE_NAME = 1146, 1054, 1060
_DENIED = {1142, 1143, 1227, _DB_ACCESS}
_CONSTRAINTS = {1062: ErrorKind.UNIQUE, 1048: ErrorKind.NOT_NULL, 1364: ErrorKind.NOT_NULL,
                1451: ErrorKind.FOREIGN_KEY, 1452: ErrorKind.FOREIGN_KEY, 3819: ErrorKind.CHECK, 4025: ErrorKind.CHECK}
_TYPE = {1366, 1292, 1264, 1406, 1265}
CLEARTEXT_PLUGINS = ("mysql_clear_password", "dialog")
MAX_NAME = 64  # MySQL's longest table name


class CleartextRefused(Exception):
    """The server switched to an authentication that sends the password as it is."""


class _RefuseCleartext:
    """PyMySQL's hook for an authentication plugin: raise before a cleartext password is written."""

    def __init__(self, connection: Connection) -> None:
        self.connection = connection

    def authenticate(self, packet: MysqlPacket) -> NoReturn:
        raise CleartextRefused()

    prompt = authenticate  # `dialog`'s other questions go the same way


class MySQLDialect(SqlDialect["GuardedConnection"]):
    family = FAMILY
    default_port = 3306
    mode_field, keys_field, create_field = "mode", "upsert_keys", "create_table"
    refusals = REFUSALS
    cleartext_fix = ("give the user a hashed authentication (mysql_native_password, ed25519 or "
                     "caching_sha2_password): Osiris's MySQL connections are not encrypted")

    def open(self, config: Config) -> GuardedConnection:
        from osiris.run.drivers.mysql_load import GuardedConnection

        return GuardedConnection(host=text(config, "host"), port=integer(config, "port"),
                               user=optional_text(config, "user"), password=text(config, "password", ""),
                               database=optional_text(config, "database"), connect_timeout=10, autocommit=False,
                               charset="utf8mb4", init_command="SET time_zone = '+00:00'",
                               auth_plugin_map={name: _RefuseCleartext for name in CLEARTEXT_PLUGINS},
                               local_infile=True)  # only for the writer's own file (mysql_load.GuardedConnection)

    def classify_connect(self, error: Exception) -> Classified | None:
        import pymysql

        if isinstance(error, CleartextRefused):
            return ErrorKind.CLEARTEXT, ""
        if not isinstance(error, pymysql.MySQLError):
            return None
        code, text = _code_and_text(error)
        if code == _AUTH:
            return ErrorKind.AUTH, "access denied (wrong user or password)"
        if code == _DB_ACCESS:
            return ErrorKind.PERMISSION, text
        if code == _UNKNOWN_DB:
            return ErrorKind.UNKNOWN_DATABASE, text
        reason = ("connection refused" if "refused" in text.lower() or code == _CONNECT and "111" in text
                  else "unknown host" if code == _UNKNOWN_HOST or "Name or service" in text
                  else "timed out" if "timed out" in text.lower() else text)
        return ErrorKind.CONNECT, reason

    def classify(self, error: Exception) -> Classified | None:
        import pymysql

        if not isinstance(error, pymysql.MySQLError):
            return None
        code, text = _code_and_text(error)
        if code == _NO_TABLE:
            return ErrorKind.UNKNOWN_TABLE, text
        if code == _NO_COLUMN:
            return ErrorKind.UNKNOWN_COLUMN, text
        if code in _DENIED:
            return ErrorKind.PERMISSION, text
        if code in _CONSTRAINTS:
            return _CONSTRAINTS[code], text
        return (ErrorKind.TYPE if code in _TYPE else ErrorKind.SQL), text

    def quote(self, name: str) -> str:
        return quote_mysql(name)

    def schema(self, config: Config) -> str:
        return optional_text(config, "schema") or text(config, "database")  # MySQL's schema is a database

    def source_query(self, config: Config) -> str:
        query = super().source_query(config)
        offset = optional_integer(config, "offset")
        if config.get("query") or not offset:
            return query
        return f"{query} LIMIT 18446744073709551615 OFFSET {offset}"

    def read(self, ctx: StepContext, conn: GuardedConnection, query: str, params: tuple[Value, ...] = ()) -> int:
        import pymysql.cursors

        batch_size = integer(ctx.config, "batch_size")
        query, floats = _single_floats(conn, query, params)
        with conn.cursor(pymysql.cursors.SSCursor) as cursor:
            cursor.execute(query, params or None)
            typed = ReadColumns(result_fields(cursor), floats)  # PyMySQL's field packets: flags and charset too
            spool = CsvSpool(ctx.con, ctx.output_table, typed.columns, spool_path(ctx), batch_size, ctx.progress)
            try:
                while batch := cursor.fetchmany(batch_size):
                    spool.add_rows(typed.rows(batch))
            finally:
                rows = spool.close()
        typed.refuse_zero_dates()
        return rows

    def discover(self, conn: GuardedConnection, schema: str, tables: list[str] | None) -> list[TableInfo]:
        if tables == []:
            return []
        wanted = " AND TABLE_NAME IN (" + ", ".join(["%s"] * len(tables)) + ")" if tables else ""
        with conn.cursor() as cursor:
            cursor.execute("SELECT TABLE_NAME, COLUMN_NAME, COLUMN_TYPE, IS_NULLABLE = 'YES', COLUMN_DEFAULT "
                           f"FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = %s{wanted} "
                           "ORDER BY TABLE_NAME, ORDINAL_POSITION", (schema, *(tables or ())))
            columns = cursor.fetchall()
            cursor.execute("SELECT TABLE_NAME, COLUMN_NAME FROM information_schema.KEY_COLUMN_USAGE "
                           "WHERE TABLE_SCHEMA = %s AND CONSTRAINT_NAME = 'PRIMARY' "
                           "ORDER BY TABLE_NAME, ORDINAL_POSITION", (schema,))
            return tables_found(list(columns), list(cursor.fetchall()))

    def prepare(self, ctx: StepContext, conn: GuardedConnection, target: WriteTarget, columns: list[tuple[str, str]]) -> str:
        """The target, or on --sample a TEMPORARY twin of it: MySQL commits DDL at once."""
        real = f"{self.quote(target.schema)}.{self.quote(target.table)}"
        created = _types(ctx, conn, columns, target.keys) if target.existing is None else []
        with conn.cursor() as cursor:
            if ctx.sample is not None:
                twin = self.quote(sample_twin(target.table))
                if target.existing is not None:
                    cursor.execute(f"CREATE TEMPORARY TABLE {twin} LIKE {real}")
                else:
                    cursor.execute(_create_table(twin, created, target.keys, temporary=True))
                return twin
            if target.existing is None:
                cursor.execute(_create_table(real, created, target.keys, temporary=False))
        return real

    def lock(self, conn: GuardedConnection, into: str) -> None:
        """A named lock on the table until this connection ends (after its commit): a second replace
        waits for it, then empties what the first wrote. InnoDB's own locks do not keep two DELETEs
        of an empty table apart."""
        with conn.cursor() as cursor:
            cursor.execute("SELECT GET_LOCK(%s, %s)", (lock_name(into), LOCK_WAIT_S))
            if cursor.fetchone() != (1,):
                raise rejected_problem(f"another run kept {into} locked for {LOCK_WAIT_S // 3600} hours")

    def write(self, ctx: StepContext, conn: GuardedConnection, into: str, target: WriteTarget, source: str,
              columns: list[tuple[str, str]]) -> int:
        upsert = target.mode == "upsert"
        if upsert and target.existing is not None:
            _require_unique(conn, target, self.keys_field)
        statement = _insert_statement(into, columns, target.keys if upsert else [], ctx.staged_table)
        if ctx.staged_table:  # the Spark engine staged the rows in this database (docs/spark.md)
            with conn.cursor() as cursor:
                return int(cursor.execute(statement, ()))  # () makes PyMySQL turn each %% back into %
        if not upsert and ctx.sample is None:
            from osiris.run.drivers.mysql_load import load

            rows = load(ctx, conn, into, source, columns, _column_types(conn, target, self))
            if rows is not None:
                ctx.progress(rows)
                return rows
        existing = {quote_ident(c.name): c.type.lower() for c in target.existing.columns} if target.existing else {}
        select = select_list(columns, lambda name, kind: render(name, kind, existing.get(name)))
        rows = 0
        with conn.cursor() as cursor:
            for batch in input_batches(ctx, source, select, integer(ctx.config, "batch_size")):
                cursor.executemany(statement, batch)
                rows += len(batch)
                ctx.progress(rows)
        return rows


LOCK_NAME_PREFIX = "osiris-replace:"
LOCK_WAIT_S = 86_400  # how long a replace waits for another run's replace of the same table


def lock_name(into: str) -> str:
    """The named lock (GET_LOCK) of a table a replace empties: at most 64 characters, as MySQL wants."""
    return LOCK_NAME_PREFIX + hashlib.sha256(into.encode()).hexdigest()[:40]


def sample_twin(table: str) -> str:
    """The TEMPORARY table a sample writes into: as short as any name MySQL takes (64 characters)."""
    name = f"osiris_sample_{table}"  # a TEMPORARY table: only this connection sees it
    return name if len(name) <= MAX_NAME else "osiris_sample_" + hashlib.sha256(table.encode()).hexdigest()[:16]


def _column_types(conn: GuardedConnection, target: WriteTarget, dialect: SqlDialect[GuardedConnection]) -> dict[str, str]:
    """The target's column types, as discovered (a table the step created, discovered now)."""
    found = target.existing or next(iter(dialect.discover(conn, target.schema, [target.table])), None)
    return {c.name: c.type for c in found.columns} if found else {}


def _code_and_text(error: Exception) -> tuple[int, str]:
    """PyMySQL's (errno, message) pair."""
    code = error.args[0] if error.args else 0
    return (code if isinstance(code, int) else 0), str(error.args[1] if len(error.args) > 1 else error)


def _require_unique(conn: GuardedConnection, target: WriteTarget, field: str) -> None:
    """ON DUPLICATE KEY UPDATE needs a primary key or unique index on exactly the key columns."""
    from osiris.run.problems import unique_key_problem

    with conn.cursor() as cursor:
        cursor.execute("SELECT INDEX_NAME, GROUP_CONCAT(COLUMN_NAME ORDER BY SEQ_IN_INDEX SEPARATOR '\\n') "
                       "FROM information_schema.STATISTICS WHERE TABLE_SCHEMA = %s AND TABLE_NAME = %s "
                       "AND NON_UNIQUE = 0 GROUP BY INDEX_NAME", (target.schema, target.table))
        indexes = [set(str(columns).split("\n")) for _, columns in cursor.fetchall()]
    if set(target.keys) not in indexes:
        raise unique_key_problem(target.table, target.keys, field)


def _single_floats(conn: GuardedConnection, query: str, params: tuple[Value, ...] = ()) -> tuple[str, set[str]]:
    """The query with each FLOAT column read through CAST(... AS DOUBLE), and those columns' names.

    MySQL's text protocol prints a FLOAT with six digits (16777216 as 1.67772e+07); widened to a
    double it prints its exact value, which the engine's FLOAT holds again. The columns are found
    with a LIMIT 0 probe. Two columns of one name are refused here (OML540), before the query runs;
    any other query that cannot be a derived table is read as written, and its FLOAT columns are
    refused by ReadColumns (OML504). `params` are the query's bound values (an incremental read's
    cursor), bound here too."""
    import pymysql

    try:
        with conn.cursor() as cursor:
            cursor.execute(f"SELECT * FROM ({query}) AS osiris_source LIMIT 0", params or None)
            fields = result_fields(cursor)
    except pymysql.MySQLError as error:
        code, text = _code_and_text(error)
        if code == _DUPLICATE_NAME:
            raise repeated_column_problem(quoted_name(text) or "?") from None
        return query, set()
    twin = repeated_name(f.name for f in fields)
    if twin is not None:
        raise repeated_column_problem(twin)
    floats = {f.name for f in fields if f.type_code == FLOAT}
    if not floats:
        return query, set()
    listed = ", ".join(f"CAST({quote_mysql(f.name)} AS DOUBLE) AS {quote_mysql(f.name)}"
                       if f.name in floats else quote_mysql(f.name) for f in fields)
    return f"SELECT {listed} FROM ({query}) AS osiris_source", floats


def quote_mysql(name: str) -> str:
    """A MySQL identifier, quoted."""
    return "`" + name.replace("`", "``") + "`"


def _types(ctx: StepContext, conn: GuardedConnection, columns: list[tuple[str, str]], keys: list[str]) -> list[tuple[str, str]]:
    """(name, MySQL type) of a table to create; a text column noted numeric gets the DECIMAL its values need."""
    source = next(iter(ctx.input_tables.values()))
    noted = notes(ctx, source)
    return [(n, mysql_type(t, n in keys, _widest(ctx, conn, source, n)
                           if noted.get(n) == "numeric" and t == "VARCHAR" else None)) for n, t in columns]


def _widest(ctx: StepContext, conn: GuardedConnection, source: str, column: str) -> tuple[int, int] | None:
    """sql_types.widest_decimal; when the Spark engine staged the rows in this database (its DuckDB
    table is empty then), the same measure taken by MySQL over the staging table."""
    if not ctx.staged_table:
        return widest_decimal(ctx, source, column)
    text = quote_mysql(column)
    with conn.cursor() as cursor:  # no arguments: PyMySQL leaves a % in the name as it is
        cursor.execute(
            f"SELECT MIN({text} REGEXP '^-?[0-9]+([.][0-9]*)?$'), "
            f"MAX(LENGTH(TRIM(LEADING '0' FROM SUBSTRING_INDEX(TRIM(LEADING '-' FROM {text}), '.', 1)))), "
            f"MAX(IF(LOCATE('.', {text}) > 0, LENGTH(SUBSTRING_INDEX({text}, '.', -1)), 0)) "
            f"FROM {ctx.staged_table} WHERE {text} IS NOT NULL")
        row = cursor.fetchone()
    if not row or row[0] == 0:
        return None
    return int(row[1] or 0), int(row[2] or 0)


def _create_table(name: str, columns: list[tuple[str, str]], keys: list[str], *, temporary: bool) -> str:
    body = [f"{quote_mysql(n)} {kind}" for n, kind in columns]
    if keys:
        body.append("PRIMARY KEY (" + ", ".join(quote_mysql(k) for k in keys) + ")")
    kind = "TEMPORARY TABLE" if temporary else "TABLE IF NOT EXISTS"
    return f"CREATE {kind} {name} ({', '.join(body)}) DEFAULT CHARSET=utf8mb4"  # every text, emoji too


def _insert_statement(target: str, columns: list[tuple[str, str]], keys: list[str], staged: str | None = None) -> str:
    """`INSERT ... VALUES (%s, ...)`, PyMySQL's placeholders: a `%` in a name is doubled to stay itself;
    or `INSERT ... SELECT` of every row of a `staged` table (the Spark engine's)."""
    names = ", ".join(quote_mysql(n) for n, _ in columns).replace("%", "%%")
    marks = ", ".join(["%s"] * len(columns))
    rows = f"SELECT {names} FROM {staged.replace('%', '%%')}" if staged else f"VALUES ({marks})"
    statement = f"INSERT INTO {target.replace('%', '%%')} ({names}) {rows}"
    updates = [f"{quote_mysql(n)} = VALUES({quote_mysql(n)})" for n, _ in columns if n not in keys]
    if keys:
        update = ", ".join(updates) or f"{quote_mysql(keys[0])} = {quote_mysql(keys[0])}"
        statement += " ON DUPLICATE KEY UPDATE " + update.replace("%", "%%")
    return statement


DRIVER = SqlDriver(MySQLDialect())
