"""The skeleton every SQL database driver shares; each database fills in a `SqlDialect`.

A SQL family's module (postgres.py, mysql.py) declares its `FAMILY`, a dialect, and
`DRIVER = SqlDriver(TheDialect())`. The skeleton owns the flow and the problems:

- read: the source query (a `table` with its `columns`, or a `query`), the row limit (`limit`,
  `--sample`), one connection, and the dialect's streaming read into the step's table;
- write: one input, its key columns, the target (discovered: created when the step asks for it,
  else OML501; every input column must exist in it, else OML502), `replace` (and
  `truncate_before`) emptying it under a lock, the dialect's write strategy, then a commit, or on
  `--sample` a rollback;
- discover: the dialect's catalog query;
- problems: the dialect sorts a library error into an `ErrorKind` and the skeleton writes the
  OML5xx line (osiris.run.problems), looking up table and column names for its hint.

How to add a SQL family: docs/architecture.md, "Adding a SQL database".
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from enum import Enum
from typing import Generic, Protocol, TypeVar

from osiris.oml.values import Config, Value
from osiris.run.fields import integer, optional_integer, text, texts
from osiris.run.driver import ColumnInfo, Family, RuntimeProblem, StepContext, StepOutcome, TableInfo
from osiris.run.drivers.sql_common import input_columns, key_list, tables_in
from osiris.run.drivers.sql_types import Refusal, refuse
from osiris.run.problems import (
    auth_problem,
    cleartext_problem,
    connect_problem,
    key_problem,
    missing_target_problem,
    permission_problem,
    quoted_name,
    redacted,
    rejected_problem,
    sql_problem,
    type_problem,
    unique_key_problem,
    unknown_column_problem,
    unknown_table_problem,
)


class ErrorKind(Enum):
    """What went wrong, whatever the database's own error class or number."""

    CONNECT = "connect"  # refused, unknown host, timed out: the detail is the reason
    UNKNOWN_DATABASE = "unknown_database"
    AUTH = "auth"
    CLEARTEXT = "cleartext"  # the server asked for a cleartext password over an unencrypted link
    PERMISSION = "permission"
    UNKNOWN_TABLE = "unknown_table"
    UNKNOWN_COLUMN = "unknown_column"
    NO_UNIQUE_KEY = "no_unique_key"  # an upsert without a primary key or unique index on its keys
    UNIQUE = "unique"  # the rejections: which constraint refused the rows
    NOT_NULL = "not_null"
    FOREIGN_KEY = "foreign_key"
    CHECK = "check"
    REJECTED = "rejected"  # another constraint (an exclusion, a trigger's refusal)
    TYPE = "type"
    SQL = "sql"


class DbCursor(Protocol):
    """What the skeleton does with a DB-API cursor (psycopg's, PyMySQL's)."""

    def execute(self, query: str) -> object: ...

    def close(self) -> None: ...


class DbConnection(Protocol):
    """What the skeleton does with a DB-API connection; a dialect uses its library's own type."""

    def cursor(self) -> DbCursor: ...

    def commit(self) -> None: ...

    def rollback(self) -> None: ...

    def close(self) -> None: ...


Conn = TypeVar("Conn", bound=DbConnection)
Row = tuple[object, ...]  # a database row as the library returns it

REJECTIONS = (ErrorKind.UNIQUE, ErrorKind.NOT_NULL, ErrorKind.FOREIGN_KEY, ErrorKind.CHECK, ErrorKind.REJECTED)
Classified = tuple[ErrorKind, str]  # the kind, and the text to show (redacted by the skeleton)


@dataclass
class WriteTarget:
    """A writer's table, and how the step writes it."""

    schema: str
    table: str
    mode: str  # append | replace | upsert
    keys: list[str]
    existing: TableInfo | None = None  # the table as discovered; None when it is to be created

    @property
    def shown(self) -> str:
        return f"{self.schema}.{self.table}"


class SqlDialect(ABC, Generic[Conn]):
    """Where SQL databases differ. One instance per family; it holds no connection."""

    family: Family
    default_port: int
    mode_field = "write_mode"  # the writer spec's field names
    keys_field = "primary_key"
    create_field = "create_if_missing"
    cleartext_fix = "connect over TLS (sslmode: require), or have the server ask for a hashed password"
    refusals: Mapping[str, Refusal] = {}  # DuckDB base type -> the values of it this database cannot store

    @abstractmethod
    def open(self, config: Config) -> Conn:
        """A new connection (no autocommit); the library's exception when it cannot be made."""

    @abstractmethod
    def classify_connect(self, error: Exception) -> Classified | None:
        """The kind of a failed connect (CONNECT, UNKNOWN_DATABASE, AUTH, CLEARTEXT, PERMISSION), or None."""

    @abstractmethod
    def classify(self, error: Exception) -> Classified | None:
        """The kind of a failed statement, or None when `error` is not the library's."""

    @abstractmethod
    def quote(self, name: str) -> str:
        """An identifier, quoted for this database's SQL."""

    def schema(self, config: Config) -> str:
        return text(config, "schema")

    def table_name(self, config: Config) -> str:
        """The step's `schema.table`, quoted."""
        return f"{self.quote(self.schema(config))}.{self.quote(str(config['table']))}"

    def source_query(self, config: Config) -> str:
        """The SQL a reader runs: its `query`, or its table's `columns` (all by default)."""
        if config.get("query"):
            return str(config["query"]).strip().rstrip(";")
        columns = ", ".join(self.quote(c) for c in texts(config, "columns")) or "*"
        return f"SELECT {columns} FROM {self.table_name(config)}"

    @abstractmethod
    def read(self, ctx: StepContext, conn: Conn, query: str, params: tuple[Value, ...] = ()) -> int:
        """Stream the rows of `query` into `ctx.output_table`; the row count."""

    @abstractmethod
    def discover(self, conn: Conn, schema: str, tables: list[str] | None) -> list[TableInfo]:
        """Tables (all of `schema`, or the named ones), their columns and primary keys."""

    @abstractmethod
    def prepare(self, ctx: StepContext, conn: Conn, target: WriteTarget, columns: list[tuple[str, str]]) -> str:
        """Create a missing target (or, on --sample, whatever proves the write); the table to write into."""

    def lock(self, conn: Conn, into: str) -> None:  # noqa: B027  (a hook a dialect may leave empty)
        """Before `replace` empties `into`: hold a lock that makes concurrent replaces wait."""

    @abstractmethod
    def write(self, ctx: StepContext, conn: Conn, into: str, target: WriteTarget, source: str,
              columns: list[tuple[str, str]]) -> int:
        """Write the input table `source` into `into` as the target's mode says; the row count."""

    def after_error(self, conn: Conn) -> None:  # noqa: B027
        """Make the connection usable again after a failed statement (PostgreSQL rolls back)."""

    def finish(self, conn: Conn, keep: bool) -> None:
        """Commit (`keep`), or roll the proven write back (--sample)."""
        if keep:
            conn.commit()
        else:
            conn.rollback()

    def close(self, conn: Conn) -> None:
        """Close without a commit: an unfinished transaction is rolled back."""
        conn.close()


class SqlDriver(Generic[Conn]):
    """postgres.extractor/.writer, mysql.extractor/.writer: the flow, run through a dialect."""

    def __init__(self, dialect: SqlDialect[Conn]) -> None:
        self.dialect = dialect

    def run(self, ctx: StepContext) -> StepOutcome:
        return self._read(ctx) if ctx.mode == "read" else self._write(ctx)

    def discover(self, config: Config, tables: list[str] | None) -> list[TableInfo]:
        with self.session(config, ()) as conn:
            try:
                return self.dialect.discover(conn, self.dialect.schema(config), tables)
            except Exception as error:
                raise self.problem(error, conn, config, ()) from None

    @contextmanager
    def session(self, config: Config, secrets: tuple[str, ...]) -> Iterator[Conn]:
        conn = self.connect(config, secrets)
        try:
            yield conn
        finally:
            self.dialect.close(conn)

    def connect(self, config: Config, secrets: tuple[str, ...]) -> Conn:
        dialect, name = self.dialect, self.dialect.family.name
        try:
            return dialect.open(config)
        except Exception as error:
            found = dialect.classify_connect(error)
            if found is None:
                raise
            kind, text = found
            detail = redacted(" ".join(text.split()), (*secrets, str(config.get("password") or "")))
            host, port = str(config["host"]), integer(config, "port")  # open() read both
            if kind is ErrorKind.AUTH:
                raise auth_problem(name, config.get("user"), detail) from None
            if kind is ErrorKind.PERMISSION:
                raise permission_problem(detail) from None
            if kind is ErrorKind.CLEARTEXT:
                raise cleartext_problem(name, host, port, dialect.cleartext_fix) from None
            if kind is ErrorKind.UNKNOWN_DATABASE:
                detail = f"the database '{config.get('database')}' does not exist"
            raise connect_problem(name, host, port, detail) from None

    # --- reading -------------------------------------------------------------------------------

    def read_query(self, ctx: StepContext) -> str:
        """The SQL a read step runs: its source query within its row limit (`limit`, `--sample`)."""
        query = self.dialect.source_query(ctx.config)
        limits = [n for n in (optional_integer(ctx.config, "limit"), ctx.sample) if n is not None]
        if limits:
            query = f"SELECT * FROM ({query}) AS osiris_source LIMIT {min(limits)}"
        return query

    def read_statement(self, ctx: StepContext) -> tuple[str, tuple[Value, ...]]:
        """The read's SQL and its bound parameters: an incremental read filters its source query in
        the database, `cursor > %s` with the value bound by the client library, never written into
        the text (docs/run-again.md); the row limit applies after it."""
        if ctx.read_after is None:
            return self.read_query(ctx), ()
        cursor, value = ctx.read_after
        query = self.after_cursor(ctx.config, cursor)
        limits = [n for n in (optional_integer(ctx.config, "limit"), ctx.sample) if n is not None]
        if limits:
            query = f"SELECT * FROM ({query}) AS osiris_source LIMIT {min(limits)}"
        return query, (value,)

    def after_cursor(self, config: Config, cursor: str) -> str:
        """The source query of an incremental read, filtered after its saved cursor value: one `%s`
        the client library fills (pyformat: a `%` of the query itself is written `%%`). The one rule
        both engines follow (osiris.run.spark.jdbc fills it with the library's own quoting)."""
        source = self.dialect.source_query(config).replace("%", "%%")
        return f"SELECT * FROM ({source}) AS osiris_incremental WHERE {self.dialect.quote(cursor)} > %s"

    def _read(self, ctx: StepContext) -> StepOutcome:
        config = ctx.config
        query, params = self.read_statement(ctx)
        with self.session(config, ctx.secrets) as conn:
            try:
                rows = self.dialect.read(ctx, conn, query, params) if params else self.dialect.read(ctx, conn, query)
            except Exception as error:
                raise self.problem(error, conn, config, ctx.secrets) from None
        return StepOutcome(rows_in=rows, rows_out=rows)

    # --- writing -------------------------------------------------------------------------------

    def _write(self, ctx: StepContext) -> StepOutcome:
        dialect, config = self.dialect, ctx.config
        source, columns = input_columns(ctx)
        target = WriteTarget(dialect.schema(config), str(config["table"]),
                             str(config.get(dialect.mode_field) or "append"), key_list(config.get(dialect.keys_field)))
        names = [name for name, _ in columns]
        if target.mode == "upsert" and any(k not in names for k in target.keys):
            raise key_problem([k for k in target.keys if k not in names], names)
        refuse(ctx, source, columns, dialect.refusals, dialect.family.title)
        with self.session(config, ctx.secrets) as conn:
            try:
                rows = self._write_rows(ctx, conn, target, source, columns)
            except BaseException as error:
                if not isinstance(error, Exception):  # Ctrl-C: undo, and let it stop the run
                    conn.rollback()
                    raise
                raise self.problem(error, conn, config, ctx.secrets, table=target.table) from None
        return StepOutcome(rows_in=rows, rows_out=rows)

    def _write_rows(self, ctx: StepContext, conn: Conn, target: WriteTarget, source: str,
                    columns: list[tuple[str, str]]) -> int:
        dialect = self.dialect
        found = dialect.discover(conn, target.schema, [target.table])
        target.existing = found[0] if found else None
        if target.existing is None and not ctx.config.get(dialect.create_field):
            raise missing_target_problem(target.table, dialect.create_field)
        if target.existing is not None:
            known = [c.name for c in target.existing.columns]
            for name, _ in columns:
                if name not in known:
                    raise unknown_column_problem(name, known, target.shown)
        into = dialect.prepare(ctx, conn, target, columns)
        clear_before_write(dialect, conn, into, target.mode, ctx.config)
        rows = dialect.write(ctx, conn, into, target, source, columns)
        dialect.finish(conn, keep=ctx.sample is None)
        return rows

    # --- problems ------------------------------------------------------------------------------

    def problem(self, error: Exception, conn: Conn, config: Config, secrets: tuple[str, ...],
                table: str | None = None) -> RuntimeProblem:
        """The OML5xx problem for a library error; other errors are raised again (a bug, not a problem)."""
        if isinstance(error, RuntimeProblem):
            return error
        found = self.dialect.classify(error)
        if found is None:
            raise error
        kind, text = found
        detail = redacted(text, secrets)
        self.dialect.after_error(conn)
        if kind is ErrorKind.UNKNOWN_TABLE:
            return unknown_table_problem(_bare(quoted_name(detail)), [t.name for t in self._tables(conn, config, None)])
        if kind is ErrorKind.UNKNOWN_COLUMN:
            named = table or config.get("table")
            tables = [str(named)] if named else tables_in(str(config.get("query", "")), self.dialect.family.dialect)
            known = [c.name for t in self._tables(conn, config, tables) for c in t.columns]
            return unknown_column_problem(_bare(quoted_name(detail)), known)
        if kind is ErrorKind.NO_UNIQUE_KEY:
            return unique_key_problem(str(table), key_list(config.get(self.dialect.keys_field)),
                                      self.dialect.keys_field)
        if kind is ErrorKind.PERMISSION:
            return permission_problem(detail)
        if kind in REJECTIONS:
            return rejected_problem(detail, kind.value)
        if kind is ErrorKind.TYPE:
            return type_problem(detail)
        return sql_problem(detail)

    def _tables(self, conn: Conn, config: Config, tables: list[str] | None) -> list[TableInfo]:
        return self.dialect.discover(conn, self.dialect.schema(config), tables)


def clear_before_write(dialect: SqlDialect[Conn], conn: Conn, into: str, mode: str, config: Config) -> None:
    """`replace` and `truncate_before` empty the target first, in the write's own transaction, under
    the dialect's lock (a second replace waits for this one)."""
    if mode == "replace" or config.get("truncate_before"):
        dialect.lock(conn, into)
        execute(conn, f"DELETE FROM {into}")


def execute(conn: DbConnection, statement: str) -> None:
    """One statement without parameters, through any DB-API connection."""
    cursor = conn.cursor()
    try:
        cursor.execute(statement)
    finally:
        cursor.close()


def _bare(name: str | None) -> str:
    """`shop.orders` -> `orders`: the name as the step wrote it."""
    return (name or "").split(".")[-1]


def tables_found(rows: Sequence[Row], keys: Sequence[Row]) -> list[TableInfo]:
    """Discovery rows (table, column, type, nullable[, default[, enum values]]) in order, and (table,
    key column) rows -> tables. A default that is only NULL (MariaDB writes the text NULL) is none."""
    found: dict[str, TableInfo] = {}
    for table, column, kind, nullable, *more in rows:
        default = more[0] if more and more[0] is not None and str(more[0]).upper() != "NULL" else None
        listed = more[1] if len(more) > 1 else None  # an enum's labels (psycopg reads the array as a list)
        values = [str(v) for v in listed] if isinstance(listed, (list, tuple)) and listed else None
        found.setdefault(str(table), TableInfo(str(table), [])).columns.append(
            ColumnInfo(str(column), str(kind), bool(nullable), None if default is None else str(default), values))
    for table, column in keys:
        if str(table) in found:
            found[str(table)].primary_key.append(str(column))
    return list(found.values())
