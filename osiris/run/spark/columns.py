"""What Spark's JDBC source would change, read another way (docs/types.md, "On the Spark engine").

Spark's JDBC getters pass dates and timestamps through java.sql.Date and Timestamp, in the hybrid
Julian calendar (1582-10-10 became 1582-10-20, 0001-01-01 became 0000-12-30); they make MySQL's
TIME a timestamp of 1970, BIT the bytes of its binary text, and cut a DECIMAL wider than 38 digits.
So a column is read as Spark reads it only when its source type is on a list Spark reads exactly;
any other column is read as the database's own text of it, and dates and timestamps are then
parsed by Spark (proleptic Gregorian, the session in UTC). A text no Spark type can hold (PostgreSQL's
infinity, a date before the year 1, MySQL's zero dates) stops the read with an OML504 line naming
the column, never a NULL or a shifted value.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from osiris.run.driver import RuntimeProblem
from osiris.run.problems import (quoted_name, repeated_column_problem, repeated_name, unreadable_value_problem,
                                 value_problem)
from osiris.run.spool import Column as EngineColumn

if TYPE_CHECKING:
    from pyspark.sql import Column, DataFrame

REFUSED = "osiris-refused-column-"  # the marker of the error Spark raises for a value it cannot hold

# Source types Spark's JDBC source reads exactly (PostgreSQL type OIDs; MySQL field type codes).
_PG_EXACT = {16, 17, 20, 21, 23, 25, 700, 701, 1042, 1043, 2950, 114, 3802, 1700}
_PG_PARSED = {1082: "date", 1114: "timestamp_ntz", 1184: "timestamp"}
_MYSQL_EXACT = {4, 5, 8, 15, 245, 249, 250, 251, 252, 253, 254, 255}
_MYSQL_WHOLE = {1, 2, 3, 9, 13}  # TINYINT, SMALLINT, INT, MEDIUMINT, YEAR
_MYSQL_PARSED = {10: "date", 14: "date", 12: "timestamp_ntz", 7: "timestamp"}
_MYSQL_TIME, _MYSQL_BIT, _MYSQL_DECIMALS, _MYSQL_FLOAT = 11, 16, (0, 246), 4
_MYSQL_DUPLICATE_NAME = 1060
_SPARK_KIND = {"date": "DATE", "timestamp_ntz": "TIMESTAMP", "timestamp": "TIMESTAMP WITH TIME ZONE", "float": "FLOAT"}


@dataclass(frozen=True)
class SourceColumn:
    name: str
    code: int  # PostgreSQL's type OID, or MySQL's field type
    precision: int | None = None  # a decimal's digits, when the source says
    scale: int | None = None
    engine: EngineColumn | None = None  # the DuckDB engine's column for it, by its reader's own rule


@dataclass(frozen=True)
class ReadPlan:
    """The select list the database runs, and how Spark turns the texts into its types."""

    select: str  # `"a", "d"::text AS "d"`: what the JDBC source reads
    parsed: dict[str, str]  # column -> the Spark type its text is parsed into
    trimmed: tuple[str, ...]  # MySQL TIME texts: trailing zeros of the fraction dropped, as DuckDB shows them
    family: str

    def apply(self, frame: DataFrame) -> DataFrame:
        return parsed_texts(frame, self.parsed, self.trimmed)

    def explain(self, error: BaseException, raw: DataFrame) -> RuntimeProblem | None:
        """The OML504 line for a parse that refused a value (the column, and how many rows), else None."""
        from pyspark.sql import functions as F

        text = str(error)
        if REFUSED not in text:
            return None
        index = int(re.search(REFUSED + r"(\d+)", text).group(1))  # type: ignore[union-attr]  # it is there
        name = raw.columns[index]
        kind = self.parsed[name]
        column = F.col(f"`{name.replace('`', '``')}`")
        bad = _refused(column, kind)
        count = int(raw.select(F.sum(F.when(bad, 1).otherwise(0))).first()[0] or 0)  # type: ignore[index]
        rows = "1 row" if count == 1 else f"{count:,} rows"
        if self.family == "mysql":
            return value_problem(name, f"holds a zero or partial date (0000-00-00, 2024-00-15) in {rows}, which no "
                                       "date type outside MySQL has",
                                 f"read them as NULL with NULLIF({name}, '0000-00-00') in the step's query (or "
                                 f"as text with CAST({name} AS CHAR))")
        before_year_one = raw.where(column.endswith(" BC")).limit(1).count()
        if before_year_one:
            return unreadable_value_problem(name, _SPARK_KIND[kind])
        return value_problem(name, f"holds infinite dates (infinity, -infinity) in {rows}, which the Spark "
                                   f"engine's {_SPARK_KIND[kind]} cannot hold",
                             "read them as NULL or as text in the step's query, or run this pipeline on the "
                             "DuckDB engine")


def parsed_texts(frame: DataFrame, parsed: Mapping[str, str], trimmed: tuple[str, ...] = ()) -> DataFrame:
    """`frame` with each text column of `parsed` in its Spark type (a text that type cannot hold raises
    the REFUSED error), and each of `trimmed` without the trailing zeros of its fraction."""
    from pyspark.sql import functions as F

    columns: list[Column] = []
    for index, name in enumerate(frame.columns):
        text = F.col(f"`{name.replace('`', '``')}`")
        if name in parsed:
            columns.append(_guarded(text, parsed[name], index).alias(name))
        elif name in trimmed:
            columns.append(F.when(text.contains("."), F.regexp_replace(text, r"\.?0*$", "")).otherwise(text)
                           .alias(name))
        else:
            columns.append(text)
    return frame.select(*columns)


def read_plan(family: str, columns: list[SourceColumn], quote: Callable[[str], str]) -> ReadPlan:
    """Per column: as Spark reads it, or the database's text (parsed by Spark for dates and times)."""
    select, parsed, trimmed = [], {}, []
    for column in columns:
        name = quote(column.name)
        expression = _text_of(family, column, name)
        select.append(name if expression is None else f"{expression} AS {name}")
        kind = (_PG_PARSED if family == "postgres" else _MYSQL_PARSED).get(column.code)
        if family == "mysql" and column.code == _MYSQL_FLOAT:
            kind = "float"  # its exact value as a double's text, parsed back into Spark's FLOAT
        if kind is not None:
            parsed[column.name] = kind
        if family == "mysql" and column.code == _MYSQL_TIME:
            trimmed.append(column.name)
    return ReadPlan(", ".join(select), parsed, tuple(trimmed), family)


def source_columns(family: str, conn: Any, source: str) -> list[SourceColumn]:
    """The columns the source query returns, with their database types and the DuckDB engine's
    column for each, by its reader's own rule (no row is read). Two
    columns of one name are refused naming it (OML540), as on the DuckDB engine: MariaDB refuses
    them in the probe (1060), PostgreSQL would let the typed read fail as ambiguous."""
    cursor = conn.cursor()
    try:
        cursor.execute(f"SELECT * FROM ({source}) osiris_source LIMIT 0")
    except Exception as error:
        code = error.args[0] if family == "mysql" and error.args else None
        if code == _MYSQL_DUPLICATE_NAME:
            raise repeated_column_problem(quoted_name(str(error.args[1]) if len(error.args) > 1 else "") or "?") from None
        raise
    if family == "postgres":
        from osiris.run.drivers.postgres import engine_column

        found = [SourceColumn(c.name, int(c.type_code), c.precision, c.scale, engine_column(c))
                 for c in cursor.description]
    else:
        from osiris.run.drivers.mysql_types import FLOAT, ReadColumns

        fields = list(cursor._result.fields)  # PyMySQL's, with the flags and charset its reader's rule needs
        engine = [EngineColumn(str(f.name), "FLOAT") if int(f.type_code) == FLOAT  # widened and read back, as there
                  else ReadColumns([f]).columns[0] for f in fields]
        found = [SourceColumn(str(c[0]), int(c[1]), c[4], engine=e) for c, e in zip(cursor.description, engine,
                                                                                   strict=True)]
    twin = repeated_name(c.name for c in found)
    if twin is not None:
        raise repeated_column_problem(twin)
    return found


def exact_decimals(family: str, columns: list[SourceColumn]) -> dict[str, str]:
    """PostgreSQL `numeric(p,s)` columns Spark reads as its DECIMAL, named as the engine names them:
    {"amount": "DECIMAL(10,2)"}. They cannot hold NaN or an infinite number."""
    if family != "postgres":
        return {}
    return {c.name: f"DECIMAL({c.precision},{c.scale or 0})" for c in columns
            if c.code == 1700 and c.precision and c.precision <= 38}


def _text_of(family: str, column: SourceColumn, name: str) -> str | None:
    """The database expression for a column Spark would not read exactly, or None to read it as it is."""
    wide = column.precision is None or column.precision == 0 or column.precision > 38
    if family == "postgres":
        if column.code == 1700 and wide:
            return f"{name}::text"  # numeric without a precision, or wider than Spark's DECIMAL(38)
        return None if column.code in _PG_EXACT else f"{name}::text"
    if column.code in _MYSQL_DECIMALS:
        return f"CAST({name} AS CHAR)" if wide and column.precision != 0 else None
    if column.code in _MYSQL_WHOLE:  # BIGINT as on DuckDB (Spark: INT; TINYINT(1) a boolean, YEAR a date)
        return f"CAST({name} AS SIGNED)"
    if column.code == _MYSQL_BIT:
        return f"CAST({name} AS UNSIGNED)"  # the bits as a number, as on DuckDB
    if column.code == _MYSQL_FLOAT:  # the text protocol prints a FLOAT with six digits (16777216 as 1.67772e+07)
        return f"CAST(CAST({name} AS DOUBLE) AS CHAR)"
    return None if column.code in _MYSQL_EXACT else f"CAST({name} AS CHAR)"


def _refused(text: Column, kind: str) -> Column:
    """True for a text that `kind` cannot hold exactly."""

    return text.isNotNull() & (text.try_cast(kind).isNull() | text.endswith(" BC"))


def _guarded(text: Column, kind: str, index: int) -> Column:
    from pyspark.sql import functions as F

    parsed = text.try_cast(kind)
    return F.when(text.isNull(), F.lit(None).cast(kind)).when(
        _refused(text, kind), F.raise_error(F.lit(f"{REFUSED}{index}")).cast(kind)).otherwise(parsed)

