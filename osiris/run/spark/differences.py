"""DuckDB SQL that sqlglot transpiles for Spark but that fails there (OML412) or, worse, runs and
gives another answer (OML413). Kept as data: a new finding is one more entry.

The list comes from the spike of issue 28 (54 queries on both engines, docs/spark.md) and the
parity test (tests/test_spark.py). Each entry matches a node of the query as sqlglot parses it
with `read="duckdb"`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from sqlglot import exp

FAILS, DIFFERS = "OML412", "OML413"


@dataclass(frozen=True)
class Difference:
    name: str  # the idiom, as the message names it
    code: str  # FAILS or DIFFERS
    matches: Callable[[Any], bool]  # a sqlglot node
    why: str  # what Spark does with it
    hint: str  # what to write instead, the same on both engines


def _kind(*names: str) -> Callable[[exp.Expression], bool]:
    return lambda node: type(node).__name__ in names


def _qualify_with_star(node: exp.Expression) -> bool:
    from sqlglot import exp

    return isinstance(node, exp.Select) and node.args.get("qualify") is not None and any(
        isinstance(e, exp.Star) for e in node.expressions)


def _date_plus_interval(node: exp.Expression) -> bool:
    from sqlglot import exp

    return isinstance(node, (exp.Add, exp.Sub)) and any(isinstance(side, exp.Interval)
                                                        for side in (node.left, node.right))


def _day_of_week(node: exp.Expression) -> bool:
    from sqlglot import exp

    if isinstance(node, exp.Extract):
        return node.name.lower() in ("dow", "dayofweek", "isodow", "weekday")
    return type(node).__name__ in ("DayOfWeek", "DayOfWeekIso")


def _star_replace(node: exp.Expression) -> bool:
    from sqlglot import exp

    return isinstance(node, exp.Star) and bool(node.args.get("replace") or node.args.get("rename"))


def _cast_to_whole_number(node: exp.Expression) -> bool:
    from sqlglot import exp

    if not isinstance(node, (exp.Cast, exp.TryCast)) or not node.to.is_type(*exp.DataType.INTEGER_TYPES):
        return False
    return not isinstance(node.this, (exp.Literal, exp.Round, exp.Floor, exp.Ceil))


DIFFERENCES: tuple[Difference, ...] = (
    Difference("QUALIFY with SELECT *", DIFFERS, _qualify_with_star,
               "Spark's rewrite adds a column _w to every row",
               "name the columns you keep instead of *, or filter on row_number() in a subquery"),
    Difference("a date plus or minus an INTERVAL", DIFFERS, _date_plus_interval,
               "Spark gives a DATE where DuckDB gives a TIMESTAMP",
               "cast the result: CAST(d + INTERVAL 1 DAY AS DATE), or CAST(d AS TIMESTAMP) + INTERVAL ..."),
    Difference("dayofweek / isodow / extract(dow ...)", DIFFERS, _day_of_week,
               "Spark numbers the days 1-7 from Sunday, DuckDB 0-6 (isodow: 1-7 from Monday)",
               "compare day names instead: strftime(d, '%A') = 'Monday', or keep this transform on the DuckDB engine"),
    Difference("CAST(... AS an integer type)", DIFFERS, _cast_to_whole_number,
               "Spark drops the fraction (3.75 -> 3) where DuckDB rounds (3.75 -> 4)",
               "say which you mean: CAST(round(x) AS INTEGER), CAST(floor(x) AS INTEGER) or CAST(trunc(x) AS ...)"),
    Difference("list indexing list[i]", FAILS, _kind("Bracket"),
               "Spark's arrays count from 0 and fail on an index out of range (ANSI mode)",
               "use list_extract(l, i) only on the DuckDB engine, or unnest the list in the extractor's query"),
    Difference("generate_series / range as a table", FAILS, _kind("GenerateSeries", "ExplodingGenerateSeries"),
               "Spark has no table function with a column alias s(i)",
               "read the numbers from a small table, or build them in the extractor's query"),
    Difference("SELECT * REPLACE / RENAME", FAILS, _star_replace,
               "Spark has no * REPLACE",
               "list the columns, with the replaced one as an expression AS its name"),
    Difference("integer division //", FAILS, _kind("IntDiv"),
               "Spark's DIV takes whole numbers only, and rounds toward zero where // rounds down",
               "write floor(a / b)"),
    Difference("PIVOT ... USING", FAILS, _kind("Pivot"),
               "Spark's PIVOT is a different clause",
               "write one sum(CASE WHEN ... THEN x END) AS name per value"),
    Difference("len() of a list", FAILS, lambda node: _kind("Length")(node) and _kind(
        "Array", "ArrayAgg", "Split", "StringToArray", "RegexpSplit")(node.this),
               "Spark's length() takes text only",
               "write array_size(l) on Spark, or len() only on the DuckDB engine"),
)
