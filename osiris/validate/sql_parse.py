"""OML405: parse one SQL field with sqlglot; a failure becomes an issue at the SQL's position."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import TYPE_CHECKING

from osiris.validate.sql_position import sql_offset

if TYPE_CHECKING:
    from sqlglot import exp

    from osiris.validate.sql import SqlField

DIALECT_NAMES = {"mysql": "MySQL", "postgres": "PostgreSQL", "duckdb": "DuckDB"}
Report = Callable[..., None]  # (code, item, offset, message, hint)


def parse_sql(item: SqlField, report: Report) -> exp.Expr | None:
    """The statement's tree, or None after reporting OML405."""
    import sqlglot
    from sqlglot import exp
    from sqlglot.errors import ParseError, TokenError

    from osiris.quiet_sqlglot import quiet_sqlglot

    quiet_sqlglot()
    dialect = DIALECT_NAMES.get(item.dialect, item.dialect)
    hint = f"correct the SQL at this position; it must be one {dialect} query (SELECT ... or WITH ... SELECT ...)"
    where = f"SQL syntax error in step '{item.step_id}' ({dialect})"
    try:
        trees = [tree for tree in sqlglot.parse(item.sql, read=item.dialect) if tree is not None]
    except ParseError as error:
        first = error.errors[0] if error.errors else {}
        highlight = str(first.get("highlight") or "")
        end = sql_offset(item.sql, int(first.get("line") or 1), int(first.get("col") or 1))
        start = max(0, end - len(highlight) + 1)
        report("OML405", item, start, f"{where}: {_describe(str(first.get('description') or error), highlight)}"
               f", near \"{_excerpt(item.sql, start, len(highlight))}\"", hint)
        return None
    except TokenError:
        start = _open_quote(item.sql)
        report("OML405", item, start, f"{where}: a quoted string or name is never closed, near "
               f"\"{_excerpt(item.sql, start, 1)}\"", hint)
        return None
    except Exception as error:  # sqlglot bugs on odd input: still one issue, never a crash
        report("OML405", item, 0, f"{where}: {type(error).__name__}: {str(error).splitlines()[0][:200]}", hint)
        return None
    if len(trees) != 1:
        count = "no statement" if not trees else f"{len(trees)} statements"
        report("OML405", item, 0, f"{where}: the field holds {count}; it takes exactly one query", hint)
        return None
    if isinstance(trees[0], exp.Pivot) and item.dialect == "duckdb":
        return trees[0]  # DuckDB's PIVOT statement: OML408 says why it is refused (osiris.trust.sql)
    if not isinstance(trees[0], exp.Query):
        first_word = item.sql.strip().split(None, 1)[0] if item.sql.strip() else ""
        report("OML405", item, len(item.sql) - len(item.sql.lstrip()),
               f"{where}: '{first_word[:30]}' does not start a query", hint)
        return None
    return trees[0]


def _describe(description: str, highlight: str) -> str:
    """sqlglot's wording, made readable: "Expecting )" -> "expected ')'"."""
    if description.startswith("Expecting "):
        return f"expected '{description[len('Expecting '):].strip()}'"
    if description.startswith("Required keyword"):
        return f"'{highlight}' is missing an operand"
    if description.startswith("Invalid expression / Unexpected token"):
        return f"unexpected '{highlight}'"
    return description.split(". Line ")[0][:200]


def _excerpt(sql: str, start: int, length: int) -> str:
    """The SQL around the error, on one line."""
    begin = max(0, start - 30)
    if begin:
        space = re.search(r"\s", sql[begin:start])
        begin = begin + space.end() if space else begin
    return re.sub(r"\s+", " ", sql[begin: start + max(length, 1) + 15]).strip()


def _open_quote(sql: str) -> int:
    """Where the quote that is never closed opens (0 when none is found)."""
    quote, opened = "", 0
    for index, char in enumerate(sql):
        if quote:
            if char == quote:
                quote = ""
        elif char in "'\"`":
            quote, opened = char, index
    return opened if quote else 0
