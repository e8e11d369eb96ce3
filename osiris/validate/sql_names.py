"""Names in parsed SQL (sqlglot trees): which tables a query reads and which columns it returns;
which names are unknown is `osiris.validate.sql_scopes`. Callers import sqlglot; this module receives trees."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from sqlglot import exp
    from sqlglot.optimizer.scope import Scope


Columns = list[str] | None  # None: the columns of a source are not known
Source = tuple[str, Columns]  # a table's spelling and its columns


@dataclass(frozen=True)
class UnknownName:
    kind: str  # "table" or "column"
    name: str
    offset: int | None  # where the name starts in the SQL text
    table: str | None = None  # for a column: the table it was looked up in (None: all sources)
    known: tuple[str, ...] = ()  # the names that would have been right


def read_tables(tree: exp.Expr) -> list[exp.Table]:
    """The real tables a query reads (exp.Table nodes), leaving out CTEs and table functions."""
    from sqlglot import exp

    found: list[exp.Table] = []
    for scope in scopes(tree):
        for source in scope.sources.values():
            if isinstance(source, exp.Table) and isinstance(source.this, exp.Identifier):
                found.append(source)
    return found


def output_names(query: exp.Expr, star: Callable[[exp.Expr], Columns] | None = None) -> Columns:
    """The column names a query returns; a `*` is expanded by `star(select)` when given."""
    names = list(getattr(query, "named_selects", None) or [])
    if not getattr(query, "is_star", False):
        return names or None
    expanded = star(query) if star else None
    if expanded is None:
        return None
    plain = [n for n in names if n != "*"]
    return list(dict.fromkeys([*expanded, *plain]))


def scopes(tree: exp.Expr) -> list[Scope]:
    """sqlglot's scopes of a query, innermost first; none when sqlglot cannot scope the statement."""
    from sqlglot.optimizer.scope import traverse_scope

    try:
        return list(traverse_scope(tree))
    except Exception:  # sqlglot cannot scope some valid statements (DDL, odd dialect forms): no check
        return []


def single_source(select: exp.Expr) -> str | None:
    """The one table a SELECT reads (no joins), for expanding its `*`; None otherwise."""
    from sqlglot import exp

    if not isinstance(select, exp.Select) or select.args.get("joins"):
        return None
    source = select.args.get("from_") or select.args.get("from")
    table = getattr(source, "this", None)
    return table.name if isinstance(table, exp.Table) and isinstance(table.this, exp.Identifier) else None
