"""A number into an existing PostgreSQL `bit(n)` or `varbit` column: MariaDB's `BIT(n)` arrives in the
engine as its number (mysql_types), and PostgreSQL takes a bit column only as a bit string, so the
writer sends the number's bits: zero-padded to n digits for `bit(n)`, as they are for `varbit`. A
number that does not fit (negative, or more bits than the column holds) is refused naming its
column before anything is written (docs/types.md)."""

from __future__ import annotations

import re

from osiris.run.driver import StepContext, TableInfo
from osiris.run.problems import value_problem
from osiris.run.spool import quote_ident

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
            rows = "1 row" if count == 1 else f"{count:,} rows"
            room = f"{length} bits" if length else "bits"
            raise value_problem(name, f"holds numbers that do not fit in {room} (negative, or wider) in {rows}, "
                                      f"which its PostgreSQL bit column cannot store",
                                "widen the target column, or leave those rows out in a duckdb.processor step")
