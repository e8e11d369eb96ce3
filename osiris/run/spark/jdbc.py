"""PostgreSQL and MySQL/MariaDB through Spark's JDBC source (docs/spark.md).

Reads are partitioned on the table's primary key (found by the family driver's `discover`) between
its `min` and `max`, one partition per task slot. MariaDB is reached with a `jdbc:mysql:` URL so
that Spark applies its MySQL dialect (backquoted names): with `jdbc:mariadb:` it quotes with `"`,
and `GROUP BY country` groups by the text 'country'. The user and password go in as JDBC
properties, never in the URL.

Writes are not atomic in Spark (each partition commits on its own), so Spark writes into a scratch
table `osiris_stage_<random>` beside the target, and the family's own driver then moves the rows
into the target in ONE transaction (append, replace, upsert; `--sample` rolls back), as on DuckDB.
The scratch table is dropped when the step ends, whatever happened.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from osiris.problems import RuntimeProblem, no_bounds_problem
from osiris.run.fields import integer, optional_text, text
from osiris.run.spark import columns

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, DataFrameReader, SparkSession

    from osiris.run.spool import Column


@dataclass(frozen=True)
class Dialect:
    url: str  # with {host}, {port}, {database}
    driver: str  # the JDBC driver class
    quote: str
    sql: str  # sqlglot's name, to find the tables a query reads
    options: Mapping[str, str]  # JDBC options: a UTC session; MariaDB's TINYINT(1) and YEAR as numbers


DIALECTS = {
    "postgres": Dialect("jdbc:postgresql://{host}:{port}/{database}", "org.postgresql.Driver", '"', "postgres",
                        {"sessionInitStatement": "SET TIME ZONE 'UTC'"}),
    "mysql": Dialect("jdbc:mysql://{host}:{port}/{database}", "org.mariadb.jdbc.Driver", "`", "mysql",
                     {"sessionInitStatement": "SET time_zone = '+00:00'", "tinyInt1isBit": "false",
                      "yearIsDateType": "false", "sessionVariables": "time_zone='+00:00'"}),
}
STAGE_PREFIX = "osiris_stage_"


def family_of(component: str) -> str | None:
    """`postgres` or `mysql` for the components Spark reads and writes through JDBC; None otherwise."""
    family = component.split(".")[0]
    return family if family in DIALECTS and component.endswith((".extractor", ".writer")) else None


Explain = Callable[[BaseException], "RuntimeProblem | None"]


@dataclass(frozen=True)
class Read:
    """What a JDBC read knows besides its rows."""

    explain: Explain  # the OML504 line for a value it refused (osiris.run.spark.columns)
    columns: list[Column]  # the DuckDB engine's columns for the same rows (osiris.run.spark.engine_columns)


def read(spark: SparkSession, family: str, config: Mapping[str, Any], sample: int | None,
         partitions: int, read_after: tuple[str, Any] | None = None) -> tuple[DataFrame, Read]:
    """The step's rows as a lazy DataFrame, in up to `partitions` parts: nothing is read until a job asks;
    and what the read knows besides (Read). `read_after`: an incremental read's (cursor, saved value),
    filtered in the database (`after_cursor`)."""
    from osiris.run.drivers import family_driver

    dialect = DIALECTS[family]
    source = _source(dialect, config) if read_after is None else after_cursor(family, config, *read_after)
    limits = [int(n) for n in (config.get("limit"), sample) if n is not None]
    if limits:
        source = f"SELECT * FROM ({source}) osiris_source LIMIT {min(limits)}"
    tables = _tables_read(dialect, config)
    found = family_driver(family).discover(config, tables)  # also proves the credentials, in the driver's words
    with _connection(family, config) as conn:
        described = columns.source_columns(family, conn, source)
        plan = columns.read_plan(family, described, lambda name: _ident(dialect, name))
    decimals = columns.exact_decimals(family, described)
    typed = f"(SELECT {plan.select} FROM ({source}) osiris_source) osiris_typed"
    raw = _reader(spark, dialect, config).option("dbtable", typed).load()
    key = _integer_key(found, raw.columns)
    if key is not None and not limits and partitions > 1:
        low, high = _bounds(spark, dialect, config, source, key)
        if low is not None and high is not None and low != high:
            raw = (_reader(spark, dialect, config).option("dbtable", typed)
                   .option("partitionColumn", key).option("lowerBound", str(low)).option("upperBound", str(high))
                   .option("numPartitions", str(partitions)).load())
    engine = [c.engine for c in described if c.engine is not None]
    return plan.apply(raw), Read(lambda error: (plan.explain(error, raw)
                                                or _not_a_decimal(error, config, source, decimals)), engine)


def after_cursor(family: str, config: Mapping[str, Any], cursor: str, value: Any) -> str:
    """The DuckDB engine's incremental query (osiris.run.drivers.sql_base.SqlDriver.after_cursor) with
    its one value filled in by the family's client library, which quotes it exactly as it would bind
    it (pymysql binds by this very quoting; psycopg's ClientCursor): Spark's JDBC source takes a query
    text, not bound values. The saved value is never pasted as text."""
    from osiris.run.drivers import family_driver

    query = family_driver(family).after_cursor(config, cursor)  # type: ignore[attr-defined]
    with _connection(family, config) as conn:
        if family == "postgres":
            import psycopg

            return str(psycopg.ClientCursor(conn).mogrify(query, (value,)))
        with conn.cursor() as cursor_:
            return str(cursor_.mogrify(query, (value,)))


def _not_a_decimal(error: BaseException, config: Mapping[str, Any], source: str,
                   decimals: Mapping[str, str]) -> RuntimeProblem | None:
    """The DuckDB engine's OML504 line for a PostgreSQL `numeric(p,s)` holding NaN or an infinite number,
    which Spark's JDBC getter fails on without naming the column; None for any other error."""
    from osiris.run.problems import unreadable_value_problem

    if not decimals or "Bad value for type" not in str(error):
        return None
    dialect = DIALECTS["postgres"]
    with _connection("postgres", config) as conn:
        for name, kind in decimals.items():
            column = _ident(dialect, name)
            found = conn.execute(f"SELECT 1 FROM ({source}) osiris_source WHERE {column} IN "
                                 "('NaN', 'Infinity', '-Infinity') LIMIT 1").fetchone()
            if found:
                return unreadable_value_problem(name, kind)
    return None


def stage_name(family: str, config: Mapping[str, Any]) -> str:
    """The quoted name of a new scratch table beside the target (known before it is made, so that it
    is dropped however its making ends)."""
    dialect = DIALECTS[family]
    return _qualified(dialect, config, STAGE_PREFIX + uuid.uuid4().hex[:12])


def stage(frame: DataFrame, family: str, config: Mapping[str, Any], name: str,
          columns: Mapping[str, str] | None = None) -> None:
    """Write the rows into the new scratch table `name` (stage_name). Into an existing PostgreSQL
    target, the scratch table takes the target's column types and PostgreSQL reads each text Spark
    sends as that type (`stringtype=unspecified`), as it reads the DuckDB engine's COPY: a `numeric`,
    `interval` or `jsonb` column Spark holds as its text goes in as the same value, not refused as text.
    `columns`: the DuckDB engine's type of each column, when known (for the JSON of lists and objects)."""
    dialect = DIALECTS[family]
    frame = _jdbc_ready(frame, family, config, columns or {})
    writer = (frame.write.format("jdbc").options(**_properties(dialect, config)).option("dbtable", name)
              .option("batchsize", str(integer(config, "batch_size"))))
    numbers = {n for n, kind in frame.dtypes if kind in _WHOLE_NUMBER_TYPES or kind.startswith("decimal(")}
    if family == "postgres" and _shaped_like_target(dialect, config, name, frame.columns, numbers):
        writer = writer.option("stringtype", "unspecified").mode("append")
    elif family == "mysql":  # every text, emoji too, as the DuckDB engine's created tables hold it
        writer = writer.option("createTableOptions", "DEFAULT CHARSET=utf8mb4").mode("errorifexists")
    else:
        writer = writer.mode("errorifexists")
    writer.save()


def _jdbc_ready(frame: DataFrame, family: str, config: Mapping[str, Any], columns: Mapping[str, str]) -> DataFrame:
    """`frame` with the columns JDBC would not carry exactly sent as the DuckDB engine's writers send
    them: lists and objects as their JSON text; into MariaDB, timestamps as their proleptic text (its
    driver takes a java.sql.Timestamp in the hybrid Julian calendar: 0001-01-01 became 0001-01-03), and
    PostgreSQL's bytea text (`\\x00ff10`, as a CSV file holds binary values) into a binary column as
    its bytes."""
    from pyspark.sql import functions as F

    from osiris.run.spark.nested_json import json_text

    binary = _binary_columns(config) if family == "mysql" else set()
    texts = {}
    for field in frame.schema.fields:
        kind, column = type(field.dataType).__name__, F.col(f"`{field.name.replace('`', '``')}`")
        if kind in ("StructType", "ArrayType", "MapType"):
            texts[field.name] = json_text(column, columns.get(field.name))
        elif family == "mysql" and kind in ("TimestampType", "TimestampNTZType"):
            texts[field.name] = F.date_format(column, "yyyy-MM-dd HH:mm:ss.SSSSSS")
        elif kind == "StringType" and field.name in binary:
            texts[field.name] = F.when(column.startswith("\\x"), F.unhex(F.substring(column, 3, 1 << 30))) \
                .otherwise(F.encode(column, "UTF-8"))
    if not texts:
        return frame
    return frame.select(*[texts[n].alias(n) if n in texts else F.col(f"`{n.replace('`', '``')}`")
                          for n in frame.columns])


def _binary_columns(config: Mapping[str, Any]) -> set[str]:
    """The existing MySQL target's BLOB and BINARY columns (none when it does not exist yet)."""
    with _connection("mysql", config) as conn, conn.cursor() as cursor:
        cursor.execute("SELECT COLUMN_NAME FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = %s "
                       "AND TABLE_NAME = %s AND (DATA_TYPE LIKE '%%blob' OR DATA_TYPE LIKE '%%binary')",
                       (str(_schema(DIALECTS["mysql"], config) or config.get("database") or ""), str(config["table"])))
        return {str(row[0]) for row in cursor.fetchall()}


_BIT_TYPES = frozenset({"bit", "bit varying"})  # information_schema's data_type
_WHOLE_NUMBER_TYPES = frozenset({"tinyint", "smallint", "int", "bigint"})  # Spark's dtypes names


def _shaped_like_target(dialect: Dialect, config: Mapping[str, Any], name: str, columns: list[str],
                        numbers: set[str]) -> bool:
    """Create the scratch table `name` with the existing target's types for `columns`; False when the
    target does not exist or lacks one of them (Spark then creates the scratch table, and the writer
    says what is wrong). A `bit`/`varbit` column that Spark holds as a number (`numbers`: a MariaDB
    BIT) is staged as that number, turned into its bits by the writer (osiris.run.drivers.postgres_bits)."""
    table, schema = str(config["table"]), str(_schema(dialect, config))
    with _connection("postgres", config) as conn:
        found = dict(conn.execute(
            "SELECT column_name, data_type FROM information_schema.columns WHERE table_schema = %s "
            "AND table_name = %s", (schema, table)).fetchall())
        if not table or not set(columns) <= set(found):
            return False
        names = ", ".join(f"CAST(NULL AS numeric(20,0)) AS {_ident(dialect, c)}" if found[c] in _BIT_TYPES and c in numbers
                          else _ident(dialect, c) for c in columns)
        conn.execute(f"CREATE TABLE {name} AS SELECT {names} FROM {_qualified(dialect, config, table)} WITH NO DATA")
        conn.commit()
    return True


def drop(family: str, config: Mapping[str, Any], name: str) -> None:
    """Drop a scratch table; best effort (the step's own problem, if any, is what the person sees)."""
    try:
        with _connection(family, config) as conn:
            conn.cursor().execute(f"DROP TABLE IF EXISTS {name}")
            conn.commit()
    except Exception:  # noqa: S110 - nothing to add to the step's outcome; the name says what it is
        pass


def _connection(family: str, config: Mapping[str, Any]) -> Any:
    host, port = text(config, "host"), integer(config, "port")
    if family == "postgres":
        import psycopg

        return psycopg.connect(host=host, port=port, user=config.get("user"), password=config.get("password"),
                               dbname=config.get("database"), sslmode=text(config, "sslmode"),
                               connect_timeout=10)
    import pymysql

    return pymysql.connect(host=host, port=port, user=config.get("user"), password=str(config.get("password") or ""),
                           database=config.get("database"), connect_timeout=10)


def _reader(spark: SparkSession, dialect: Dialect, config: Mapping[str, Any]) -> DataFrameReader:
    return (spark.read.format("jdbc").options(**_properties(dialect, config)).option("preferTimestampNTZ", "true")
            .option("fetchsize", str(integer(config, "batch_size"))))


def _properties(dialect: Dialect, config: Mapping[str, Any]) -> dict[str, str]:
    """URL and JDBC properties; the credentials are properties, which Spark redacts in its plans."""
    url = dialect.url.format(host=text(config, "host"), port=integer(config, "port"),
                             database=config.get("database") or "")
    found = {"url": url, "driver": dialect.driver, "user": str(config.get("user") or ""),
             "password": str(config.get("password") or "")}
    if dialect is DIALECTS["postgres"] and config.get("sslmode"):
        found["sslmode"] = str(config["sslmode"])
    return {**found, **dialect.options}


def _ident(dialect: Dialect, name: str) -> str:
    return dialect.quote + name.replace(dialect.quote, dialect.quote * 2) + dialect.quote


def _schema(dialect: Dialect, config: Mapping[str, Any]) -> str | None:
    """The step's schema (the PostgreSQL specs' default is merged); None for MySQL, whose steps name none."""
    return optional_text(config, "schema")


def _qualified(dialect: Dialect, config: Mapping[str, Any], table: str) -> str:
    schema = _schema(dialect, config)
    return f"{_ident(dialect, str(schema))}.{_ident(dialect, table)}" if schema else _ident(dialect, table)


def _source(dialect: Dialect, config: Mapping[str, Any]) -> str:
    if config.get("query"):
        return str(config["query"]).strip().rstrip(";")
    columns = ", ".join(_ident(dialect, str(c)) for c in config.get("columns") or []) or "*"
    return f"SELECT {columns} FROM {_qualified(dialect, config, str(config['table']))}"


def _tables_read(dialect: Dialect, config: Mapping[str, Any]) -> list[str]:
    from osiris.run.drivers.sql_common import tables_in

    if config.get("table"):
        return [str(config["table"])]
    return tables_in(str(config.get("query", "")), dialect.sql) or []


def _integer_key(found: list[Any], columns: list[str]) -> str | None:
    """The single whole-number primary key column of the one table read, when the rows carry it."""
    if len(found) != 1 or len(found[0].primary_key) != 1:
        return None
    (key,) = found[0].primary_key
    kinds = {c.name: c.type.lower() for c in found[0].columns}
    return key if key in columns and "int" in kinds.get(key, "") else None


def _bounds(spark: SparkSession, dialect: Dialect, config: Mapping[str, Any], source: str,
            key: str) -> tuple[int | None, int | None]:
    """`SELECT min(key), max(key)` of the rows read, in the database."""
    column = _ident(dialect, key)
    query = f"(SELECT min({column}) AS low, max({column}) AS high FROM ({source}) osiris_source) osiris_bounds"
    row = _reader(spark, dialect, config).option("dbtable", query).load().first()
    if row is None:
        raise no_bounds_problem()
    return row["low"], row["high"]
