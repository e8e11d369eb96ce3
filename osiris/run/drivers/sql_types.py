"""What the SQL writers need to know about the engine's (DuckDB's) column types: which are nested,
what a reader noted about a column, and which values a target cannot take exactly.

docs/types.md is the table these functions keep: every value arrives exactly, or the run stops
before writing with an OML504 line that names the step, the column and the kind of value.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from osiris.run.driver import StepContext
from osiris.run.problems import value_problem
from osiris.run.spool import column_notes, quote_ident

FLOATS = ("DOUBLE", "FLOAT")
INSTANTS = ("DATE", "TIMESTAMP", "TIMESTAMP WITH TIME ZONE", "TIMESTAMP_S", "TIMESTAMP_MS", "TIMESTAMP_NS")


def is_nested(kind: str) -> bool:
    """A STRUCT, LIST, MAP, UNION or fixed-size ARRAY: written as JSON text everywhere."""
    return kind.startswith(("STRUCT", "MAP", "UNION")) or kind.endswith("]")


def base(kind: str) -> str:
    """`DECIMAL(10,2)` -> `DECIMAL`."""
    return kind.split("(")[0]


@dataclass(frozen=True)
class Refusal:
    """Values of one kind a target cannot store: the SQL that finds them, and the words for them."""

    condition: str  # SQL over the column `{}`: true for a value that cannot arrive exactly
    what: str  # "NaN or infinite values", counted in the message
    fix: str  # what the person can do; `{column}` is the column's name


NOT_A_NUMBER = Refusal("isnan({0}) OR isinf({0})", "NaN or infinite values",
                       "turn them into NULL or a number in a duckdb.processor step (CASE WHEN isnan({column}) OR "
                       "isinf({column}) THEN NULL ELSE {column} END), or write to PostgreSQL or a CSV file, which "
                       "keep them")
LONG_INTERVAL = Refusal("datepart('year', {0}) <> 0 OR datepart('month', {0}) <> 0 OR abs(epoch({0})) > 3020399",
                        "intervals of months or years, or longer than 838:59:59",
                        "write them to PostgreSQL or a CSV file, or turn them into hours in a duckdb.processor step "
                        "(epoch({column}) is the seconds)")
INFINITE_DATE = Refusal("isinf({0})", "infinite dates (infinity, -infinity)",
                        "turn them into NULL or a date in a duckdb.processor step (CASE WHEN isinf({column}) THEN "
                        "NULL ELSE {column} END), or write to PostgreSQL or a CSV file, which keep them")


def refuse(ctx: StepContext, source: str, columns: list[tuple[str, str]], refusals: Mapping[str, Refusal],
           target: str) -> None:
    """OML504 before anything is written when a column holds values `target` cannot store:
    `refusals` maps a DuckDB base type to what that target refuses of it. One query for all columns."""
    checked = [(name, refusals[base(kind)]) for name, kind in columns if base(kind) in refusals]
    if not checked:
        return
    counts = ", ".join(f"count(*) FILTER (WHERE {refusal.condition.format(quote_ident(name))})"
                       for name, refusal in checked)
    found = ctx.con.execute(f"SELECT {counts} FROM {quote_ident(source)}").fetchone() or ()
    for (name, refusal), count in zip(checked, found, strict=False):
        if count:
            rows = "1 row" if count == 1 else f"{count:,} rows"
            raise value_problem(name, f"holds {refusal.what} in {rows}, which {target} cannot store",
                                refusal.fix.format(column=quote_ident(name)))


def notes(ctx: StepContext, source: str) -> dict[str, str]:
    """The source types the input's reader noted ({column: "numeric"}), for a created target."""
    return column_notes(ctx.con, source)


def widest_decimal(ctx: StepContext, source: str, column: str) -> tuple[int, int] | None:
    """(digits before the point, digits after it) of the widest number a text column holds, or None
    when it holds something that is not a plain decimal (NaN, an exponent)."""
    text = quote_ident(column)
    row = ctx.con.execute(
        f"SELECT bool_and(regexp_full_match({text}, '-?[0-9]+(\\.[0-9]*)?')), "
        f"max(length(ltrim(split_part(ltrim({text}, '-'), '.', 1), '0'))), max(length(split_part({text}, '.', 2))) "
        f"FROM {quote_ident(source)} WHERE {text} IS NOT NULL").fetchone()
    if not row or row[0] is False:
        return None
    return int(row[1] or 0), int(row[2] or 0)
