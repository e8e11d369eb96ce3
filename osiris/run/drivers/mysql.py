"""mysql.extractor and mysql.writer through PyMySQL (MySQL and MariaDB), with `discover`.

Reading streams with an unbuffered server-side cursor (SSCursor), `batch_size` rows at a time, into
a CSV spool that DuckDB loads. Writing runs in ONE transaction (InnoDB): `replace` and
`truncate_before` delete rather than TRUNCATE, which would commit at once. `create_table` is DDL and
commits on its own in MySQL, so a failed first run can leave the new, empty table behind.
On `--sample`, rows go into a TEMPORARY table shaped like the target (`CREATE TEMPORARY TABLE ... LIKE`),
which only this connection sees and which disappears with it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from osiris.run.driver import ColumnInfo, RuntimeProblem, StepContext, StepOutcome, TableInfo
from osiris.run.drivers.sql_common import tables_in, input_batches, input_columns, key_list, spool_path
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
from osiris.run.spool import CsvSpool

# pymysql FIELD_TYPE codes -> DuckDB types; anything else is VARCHAR.
_MYSQL_TO_DUCKDB = {1: "BIGINT", 2: "BIGINT", 3: "BIGINT", 8: "BIGINT", 9: "BIGINT", 13: "BIGINT",
                    4: "DOUBLE", 5: "DOUBLE", 10: "DATE", 7: "TIMESTAMP", 12: "TIMESTAMP"}
_DUCKDB_TO_MYSQL = {"BIGINT": "BIGINT", "INTEGER": "INT", "SMALLINT": "SMALLINT", "TINYINT": "TINYINT",
                    "HUGEINT": "DECIMAL(38,0)", "DOUBLE": "DOUBLE", "FLOAT": "FLOAT", "BOOLEAN": "BOOLEAN",
                    "DATE": "DATE", "TIME": "TIME", "TIMESTAMP": "DATETIME(6)",
                    "TIMESTAMP WITH TIME ZONE": "DATETIME(6)", "UUID": "CHAR(36)", "VARCHAR": "TEXT"}
_CONNECT, _UNKNOWN_HOST, _AUTH, _DB_ACCESS, _UNKNOWN_DB = 2003, 2005, 1045, 1044, 1049
_NO_TABLE, _NO_COLUMN, _SYNTAX = 1146, 1054, 1064
_DENIED = {1142, 1143, 1227}
_REJECTED = {1062, 1048, 1451, 1452, 1364, 3819, 4025}
_TYPE = {1366, 1292, 1264, 1406, 1265}


class MySQLDriver:
    def run(self, ctx: StepContext) -> StepOutcome:
        return self._read(ctx) if ctx.mode == "read" else self._write(ctx)

    def discover(self, config: Mapping[str, Any], tables: list[str] | None) -> list[TableInfo]:
        conn = _connect(config, ())
        try:
            return _discover(conn, _database(config), tables)
        finally:
            conn.close()

    def _read(self, ctx: StepContext) -> StepOutcome:
        import pymysql.cursors

        config = ctx.config
        query = _source_query(config)
        limits = [n for n in (config.get("limit"), ctx.sample) if n is not None]
        if limits:
            query = f"SELECT * FROM ({query}) AS osiris_source LIMIT {int(min(limits))}"
        batch_size = int(config.get("batch_size", 10_000))
        conn = _connect(config, ctx.secrets)
        try:
            with conn.cursor(pymysql.cursors.SSCursor) as cursor:
                cursor.execute(query)
                columns = [(d[0], _duckdb_type(d)) for d in cursor.description or []]
                spool = CsvSpool(ctx.con, ctx.output_table, columns, spool_path(ctx), batch_size, ctx.progress)
                try:
                    while batch := cursor.fetchmany(batch_size):
                        spool.add_rows(batch)
                finally:
                    rows = spool.close()
        except Exception as error:
            raise _problem(error, conn, config, ctx.secrets) from None
        finally:
            conn.close()
        return StepOutcome(rows_in=rows, rows_out=rows)

    def _write(self, ctx: StepContext) -> StepOutcome:
        config = ctx.config
        source, columns = input_columns(ctx)
        table = str(config["table"])
        mode = str(config.get("mode", "append"))
        keys = key_list(config.get("upsert_keys"))
        if mode == "upsert" and any(k not in dict(columns) for k in keys):
            raise key_problem([k for k in keys if k not in dict(columns)], [n for n, _ in columns])
        conn = _connect(config, ctx.secrets)
        try:
            target = self._prepare_target(ctx, conn, table, columns, keys)
            if mode == "upsert":
                _require_unique(conn, _database(config), table, keys, created=target != _ident(table) or None)
            rows = 0
            with conn.cursor() as cursor:
                if mode == "replace" or config.get("truncate_before"):
                    cursor.execute(f"DELETE FROM {target}")
                statement = _insert_statement(target, columns, keys if mode == "upsert" else [], ctx.staged_table)
                if ctx.staged_table:  # staged by the Spark engine in this database
                    rows = cursor.execute(statement)
                else:
                    for batch in input_batches(ctx, source, columns, int(config.get("batch_size", 1000))):
                        cursor.executemany(statement, [tuple(_plain(v) for v in row) for row in batch])
                        rows += len(batch)
                        ctx.progress(rows)
            if ctx.sample is None:
                conn.commit()
            else:
                conn.rollback()
        except Exception as error:
            raise _problem(error, conn, config, ctx.secrets, table=table) from None
        finally:
            conn.close()  # without a commit, MySQL rolls the transaction back (also on Ctrl-C)
        return StepOutcome(rows_in=rows, rows_out=rows)

    def _prepare_target(self, ctx: StepContext, conn: Any, table: str, columns: list[tuple[str, str]],
                        keys: list[str]) -> str:
        """The table to write into: the target, or on --sample a TEMPORARY twin of it."""
        existing = _discover(conn, _database(ctx.config), [table])
        create = bool(ctx.config.get("create_table"))
        if not existing and not create:
            raise _unknown_table(conn, _database(ctx.config), table)
        if existing:
            known = [c.name for c in existing[0].columns]
            for name, _ in columns:
                if name not in known:
                    raise RuntimeProblem("OML502", f'column "{name}" does not exist in {table}',
                                         names_hint("column", name, known), value=name)
        with conn.cursor() as cursor:
            if ctx.sample is not None:
                twin = _ident(f"osiris_sample_{table}")
                if existing:
                    cursor.execute(f"CREATE TEMPORARY TABLE {twin} LIKE {_ident(table)}")
                else:
                    cursor.execute(_create_table(twin, columns, keys, temporary=True))
                return twin
            if not existing:
                cursor.execute(_create_table(_ident(table), columns, keys, temporary=False))
        return _ident(table)


def _connect(config: Mapping[str, Any], secrets: tuple[str, ...]) -> Any:
    import pymysql

    try:
        return pymysql.connect(host=config.get("host", "localhost"), port=int(config.get("port", 3306)),
                               user=config.get("user"), password=str(config.get("password") or ""),
                               database=config.get("database"), connect_timeout=10, autocommit=False,
                               charset="utf8mb4")
    except pymysql.MySQLError as error:
        code = error.args[0] if error.args else 0
        detail = redacted(error.args[1] if len(error.args) > 1 else error, (*secrets, str(config.get("password"))))
        if code == _AUTH:
            raise auth_problem("mysql", config.get("user"), "access denied (wrong user or password)") from None
        if code == _DB_ACCESS:
            raise permission_problem(detail) from None
        if code == _UNKNOWN_DB:
            raise connect_problem("mysql", config.get("host"), config.get("port", 3306),
                                  f"the database '{config.get('database')}' does not exist") from None
        reason = ("connection refused" if "refused" in detail.lower() or code == _CONNECT and "111" in detail
                  else "unknown host" if code == _UNKNOWN_HOST or "Name or service" in detail
                  else "timed out" if "timed out" in detail.lower() else detail)
        raise connect_problem("mysql", config.get("host"), config.get("port", 3306), reason) from None


def _require_unique(conn: Any, database: str, table: str, keys: list[str], created: bool | None) -> None:
    """ON DUPLICATE KEY UPDATE needs a primary key or unique index on exactly the key columns."""
    with conn.cursor() as cursor:
        cursor.execute("SELECT INDEX_NAME, GROUP_CONCAT(COLUMN_NAME ORDER BY SEQ_IN_INDEX) "
                       "FROM information_schema.STATISTICS WHERE TABLE_SCHEMA = %s AND TABLE_NAME = %s "
                       "AND NON_UNIQUE = 0 GROUP BY INDEX_NAME", (database, table))
        indexes = [set(str(columns).split(",")) for _, columns in cursor.fetchall()]
    if indexes or not created:
        if set(keys) not in indexes:
            raise RuntimeProblem(
                "OML512", f"the target {table} has no primary key or unique index on {', '.join(keys)}",
                "add a primary key or unique index on the upsert_keys columns, or set upsert_keys to them")


def _ident(name: str) -> str:
    return "`" + name.replace("`", "``") + "`"


def _database(config: Mapping[str, Any]) -> str:
    return str(config.get("schema") or config.get("database"))


def _source_query(config: Mapping[str, Any]) -> str:
    if config.get("query"):
        return str(config["query"]).strip().rstrip(";")
    columns = ", ".join(_ident(str(c)) for c in config.get("columns") or []) or "*"
    offset = f" LIMIT 18446744073709551615 OFFSET {int(config['offset'])}" if config.get("offset") else ""
    return f"SELECT {columns} FROM {_ident(str(config['table']))}{offset}"


def _duckdb_type(description: tuple[Any, ...]) -> str:
    code, precision, scale = description[1], description[4], description[5]
    if code in (0, 246):  # DECIMAL / NEWDECIMAL
        digits = (precision or 0) - (1 if scale else 0) - 1  # pymysql reports the display width
        return f"DECIMAL({max(min(digits, 38), scale or 1)},{scale or 0})" if digits <= 38 else "DOUBLE"
    return _MYSQL_TO_DUCKDB.get(code, "VARCHAR")


def _plain(value: Any) -> Any:
    """DuckDB values PyMySQL can send as they are (a UUID goes as text)."""
    return str(value) if type(value).__name__ == "UUID" else value


def _create_table(name: str, columns: list[tuple[str, str]], keys: list[str], *, temporary: bool) -> str:
    body = [f"{_ident(n)} {_mysql_type(t, n in keys)}" for n, t in columns]
    if keys:
        body.append("PRIMARY KEY (" + ", ".join(_ident(k) for k in keys) + ")")
    kind = "TEMPORARY TABLE" if temporary else "TABLE IF NOT EXISTS"
    return f"CREATE {kind} {name} ({', '.join(body)})"


def _mysql_type(duckdb_type: str, is_key: bool) -> str:
    if duckdb_type.startswith("DECIMAL"):
        return duckdb_type
    kind = _DUCKDB_TO_MYSQL.get(duckdb_type, "TEXT")
    return "VARCHAR(255)" if kind == "TEXT" and is_key else kind


def _insert_statement(target: str, columns: list[tuple[str, str]], keys: list[str], staged: str | None = None) -> str:
    """INSERT of one row's values, or of every row of a `staged` table (the Spark engine's)."""
    names = ", ".join(_ident(n) for n, _ in columns)
    marks = ", ".join(["%s"] * len(columns))
    rows = f"SELECT {names} FROM {staged}" if staged else f"VALUES ({marks})"
    statement = f"INSERT INTO {target} ({names}) {rows}"
    updates = [f"{_ident(n)} = VALUES({_ident(n)})" for n, _ in columns if n not in keys]
    if keys:
        statement += " ON DUPLICATE KEY UPDATE " + (", ".join(updates) or f"{_ident(keys[0])} = {_ident(keys[0])}")
    return statement


def _discover(conn: Any, database: str, tables: list[str] | None) -> list[TableInfo]:
    found: dict[str, TableInfo] = {}
    with conn.cursor() as cursor:
        cursor.execute("SELECT TABLE_NAME, COLUMN_NAME, COLUMN_TYPE, IS_NULLABLE, COLUMN_KEY "
                       "FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = %s "
                       "ORDER BY TABLE_NAME, ORDINAL_POSITION", (database,))
        for table, column, kind, nullable, key in cursor.fetchall():
            if tables is None or table in tables:
                info = found.setdefault(table, TableInfo(table, []))
                info.columns.append(ColumnInfo(column, kind, nullable == "YES"))
        cursor.execute("SELECT TABLE_NAME, COLUMN_NAME FROM information_schema.KEY_COLUMN_USAGE "
                       "WHERE TABLE_SCHEMA = %s AND CONSTRAINT_NAME = 'PRIMARY' "
                       "ORDER BY TABLE_NAME, ORDINAL_POSITION", (database,))
        for table, column in cursor.fetchall():
            if table in found:
                found[table].primary_key.append(column)
    return list(found.values())


def _unknown_table(conn: Any, database: str, table: str | None) -> RuntimeProblem:
    known = [t.name for t in _discover(conn, database, None)]
    return RuntimeProblem("OML501", f'table "{table}" does not exist', names_hint("table", table, known),
                          value=table)


def _problem(error: Exception, conn: Any, config: Mapping[str, Any], secrets: tuple[str, ...],
             table: str | None = None) -> RuntimeProblem:
    import pymysql

    if isinstance(error, RuntimeProblem):
        return error
    if not isinstance(error, pymysql.MySQLError):
        raise error
    code = error.args[0] if error.args else 0
    detail = redacted(error.args[1] if len(error.args) > 1 else error, secrets)
    database = _database(config)
    if code == _NO_TABLE:
        wrong = (quoted_name(detail) or "").split(".")[-1]
        return _unknown_table(conn, database, wrong)
    if code == _NO_COLUMN:
        wrong = (quoted_name(detail) or "").split(".")[-1]
        named = table or config.get("table")
        tables = [named] if named else tables_in(str(config.get("query", "")), "mysql")
        known = [c.name for t in _discover(conn, database, tables) for c in t.columns]
        return RuntimeProblem("OML502", f'column "{wrong}" does not exist', names_hint("column", wrong, known),
                              value=wrong)
    if code == _SYNTAX:
        return sql_problem(detail)
    if code in _DENIED or code == _DB_ACCESS:
        return permission_problem(detail)
    if code in _REJECTED:
        return rejected_problem(detail)
    if code in _TYPE:
        return type_problem(detail)
    return sql_problem(detail)


DRIVER = MySQLDriver()
