"""A number into an existing PostgreSQL `bit(n)` or `varbit` column: MariaDB's `BIT(n)` arrives in the
engine as its number (mysql_types), and PostgreSQL takes a bit column only as a bit string, so the
writer sends the number's bits: zero-padded to n digits for `bit(n)`, as they are for `varbit`. A
number that does not fit (negative, or more bits than the column holds) is refused naming its
column before anything is written (docs/types.md). On the Spark engine the rows wait in a staging
table in PostgreSQL itself, so the same bits are made there, in PostgreSQL's SQL (`staged_*`)."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from osiris.run.driver import RuntimeProblem, StepContext, TableInfo
from osiris.run.problems import value_problem
from osiris.run.spool import quote_ident

if TYPE_CHECKING:
    from psycopg import Cursor
    from psycopg.rows import TupleRow

INTEGERS = ("TINYINT", "SMALLINT", "INTEGER", "BIGINT", "HUGEINT", "UTINYINT", "USMALLINT", "UINTEGER",
            "UBIGINT", "UHUGEINT")
_BIT = re.compile(r"(bit|bit varying)(?:\((\d+)\))?")


def bit_column(target_type: str) -> tuple[int | None, bool] | None:
    """(its length, padded) for a PostgreSQL bit type as format_type writes it (`bit(8)`,
    `bit varying(64)`, `bit varying`); None for any other type."""
    found = _BIT.fullmatch(target_type.strip())
    if found is None:
        return None
    length = int(found.group(2)) if found.group(2) else None
    return length, found.group(1) == "bit"


def bit_targets(columns: list[tuple[str, str]], existing: TableInfo | None) -> dict[str, tuple[int | None, bool]]:
    """The engine's integer columns that go into bit columns of the existing target, with each one's shape."""
    if existing is None:
        return {}
    types = {c.name: c.type for c in existing.columns}
    found = {}
    for name, kind in columns:
        shape = bit_column(types.get(name, "")) if kind in INTEGERS else None
        if shape is not None:
            found[name] = shape
    return found


def bits_text(name: str, shape: tuple[int | None, bool]) -> str:
    """The DuckDB expression for the column's number as PostgreSQL's bit string text."""
    length, padded = shape
    digits = f"bin({name})"
    return f"lpad({digits}, {length}, '0')" if padded and length else digits


def refuse_wide_bits(ctx: StepContext, source: str, targets: dict[str, tuple[int | None, bool]]) -> None:
    """OML504 before anything is written when a number is negative or has more bits than its column."""
    for name, (length, _) in targets.items():
        column = quote_ident(name)
        wide = f" OR length(bin({column})) > {length}" if length else ""
        row = ctx.con.execute(f"SELECT count(*) FILTER (WHERE {column} < 0{wide}) FROM {quote_ident(source)}").fetchone()
        count = int(row[0]) if row else 0
        if count:
            raise _too_wide(name, f"{length} bits" if length else "bits", count)


_WHOLE_DECIMAL = re.compile(r"DECIMAL\(\d+,0\)")  # Spark holds a BIT(64)'s number as DECIMAL(20,0)


def staged_bit_targets(columns: list[tuple[str, str]], existing: TableInfo | None) -> dict[str, tuple[int | None, bool]]:
    """As bit_targets, for the Spark engine's staged columns, whose whole numbers may be DECIMAL(p,0)."""
    whole = [(name, "BIGINT" if _WHOLE_DECIMAL.fullmatch(kind) else kind) for name, kind in columns]
    return bit_targets(whole, existing)


def refuse_wide_staged_bits(cursor: Cursor[TupleRow], staged: str, targets: dict[str, tuple[int | None, bool]]) -> None:
    """refuse_wide_bits, counted by PostgreSQL in the staging table (at most 64 bits: a MariaDB BIT's)."""
    for name, (length, _) in targets.items():
        column = f"{quote_ident(name)}::numeric"
        room = min(length or 64, 64)
        cursor.execute(f"SELECT count(*) FROM {staged} WHERE {column} < 0 OR {column} >= 2::numeric ^ {room}")
        found = cursor.fetchone()
        count = int(found[0]) if found else 0
        if count:
            raise _too_wide(name, f"{room} bits", count)


def _too_wide(name: str, room: str, count: int) -> RuntimeProblem:
    rows = "1 row" if count == 1 else f"{count:,} rows"
    return value_problem(name, f"holds numbers that do not fit in {room} (negative, or wider) in {rows}, which its "
                               "PostgreSQL bit column cannot store",
                         "widen the target column, or leave those rows out in a duckdb.processor step")


def staged_bits_text(name: str, shape: tuple[int | None, bool]) -> str:
    """PostgreSQL's expression for a staged number (0 to 2^64 - 1, refused otherwise) as the bit
    column's value: its 64 bits (through bigint's two's complement), then cut or padded to n for
    bit(n), without leading zeros for varbit. NULL stays NULL."""
    column = f"{quote_ident(name)}::numeric"
    bits = (f"(({column} - CASE WHEN {column} >= 9223372036854775808 THEN 18446744073709551616 ELSE 0 END)"
            "::bigint::bit(64)::text)")
    length, padded = shape
    if padded and length:
        return f"lpad(right({bits}, {length}), {length}, '0')::bit({length})"
    return f"(CASE WHEN {column} = 0 THEN '0' ELSE ltrim({bits}, '0') END)::varbit"
