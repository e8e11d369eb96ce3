"""SQL scopes for the name checks (OML406, docs/discover.md "SQL checks"): every subquery (scalar,
`IN`, `EXISTS`), derived table and CTE is its own scope, and a column is looked up where SQL looks
it up: in its own scope's tables first, then outwards through the queries it is nested in.

- A column is checked once, in the innermost scope it is written in (sqlglot also lists an
  unqualified column of a subquery among its parent's columns, as a possibly correlated one).
- A subquery, a table function and a derived table see the tables of the query around them (DuckDB
  makes every derived table LATERAL when it names an outer column; for PostgreSQL and MySQL this is
  lenient: such a query fails at run time, never at validation). A CTE does not see the tables of the
  query it belongs to, but does see queries further out, as a derived table inside a subquery does.
- An unqualified column is unknown only when no table in any visible scope has it and every one of
  those tables has known columns; it is then reported against the tables of its own scope.

Callers import sqlglot; this module receives trees.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING

from osiris.trust.sql import offset_of
from osiris.validate.sql_names import Columns, Source, UnknownName, output_names, scopes

if TYPE_CHECKING:
    from sqlglot import exp
    from sqlglot.optimizer.scope import Scope

Level = Mapping[str, Source]  # one scope's tables: alias -> (spelling, columns)


def unknown_names(tree: exp.Expr, tables: Callable[[str], tuple[str, Columns] | None],
                  all_tables: list[str]) -> list[UnknownName]:
    """Tables that `tables(name)` does not know, and columns that no visible table has.

    `tables(name)` -> (the table's spelling, its columns or None) or None when unknown.
    """
    from sqlglot import exp

    found = scopes(tree)
    problems: list[UnknownName] = []
    own: dict[int, dict[str, Source]] = {}
    for scope in found:
        sources: dict[str, Source] = {}
        for alias, source in scope.sources.items():
            if not isinstance(source, exp.Table):
                sources[alias] = (alias, renamed(output_names(source.expression), _alias_of(source.expression.parent)))
            elif not isinstance(source.this, exp.Identifier):
                sources[alias] = (alias, None)  # a table function
            else:
                known = tables(source.name)
                if known is None:
                    problems.append(UnknownName("table", source.name, offset_of(source), known=tuple(all_tables)))
                spelling, columns = known or (source.name, None)
                sources[alias] = (spelling, renamed(columns, source.args.get("alias")))
        own[id(scope)] = sources
    for scope in found:
        levels = _visible(scope, own)
        aliases = {e.alias.lower() for e in getattr(scope.expression, "expressions", []) if isinstance(e, exp.Alias)}
        for column in _own_columns(scope):
            problem = _check_column(column, levels, aliases)
            if problem is not None:
                problems.append(problem)
    return problems


def renamed(columns: Columns, alias: object) -> Columns:
    """The columns under a column alias list (`AS t(a, b)`): DuckDB renames them by position and keeps
    the names of those past the list; the old names of renamed columns are gone."""
    names = [column.name for column in getattr(alias, "columns", None) or []]
    if not names:
        return columns
    return None if columns is None else [*names, *columns[len(names):]]


def _alias_of(node: object) -> exp.Expr | None:
    """The alias (with its column list) of a derived table or a CTE, from the node around its query."""
    from sqlglot import exp

    alias = node.args.get("alias") if isinstance(node, (exp.Subquery, exp.CTE)) else None
    return alias if isinstance(alias, exp.Expr) else None


def _visible(scope: Scope, own: Mapping[int, Level]) -> list[Level]:
    """The tables a column of `scope` may name, innermost scope first."""
    levels = [own.get(id(scope), {})]
    child = scope
    while child.parent is not None:
        if _sees_parent(child):
            levels.append(own.get(id(child.parent), {}))
        child = child.parent
    return levels


def _sees_parent(scope: Scope) -> bool:
    """Every scope but a CTE sees the tables of the query around it."""
    from sqlglot.optimizer.scope import ScopeType

    return bool(scope.scope_type != ScopeType.CTE)


def _own_columns(scope: Scope) -> list[exp.Column]:
    """The columns written in this scope itself, not those its nested scopes pass up as external."""
    nested = [*scope.subquery_scopes, *scope.udtf_scopes, *scope.derived_table_scopes]
    passed_up = {id(column) for child in nested for column in child.external_columns}
    return [column for column in scope.columns if id(column) not in passed_up]


def _check_column(column: exp.Column, levels: list[Level], aliases: set[str]) -> UnknownName | None:
    name = column.name
    if not name or column.is_star:
        return None
    if column.table:
        spelling, known = next((level[column.table] for level in levels if column.table in level), ("", None))
        if known is not None and name.lower() not in {c.lower() for c in known}:
            return UnknownName("column", name, offset_of(column), spelling, tuple(known))
        return None
    if name.lower() in aliases:
        return None
    for level in levels:
        if any(known is None for _, known in level.values()):
            return None  # a table whose columns are not known may have it
        if any(name.lower() in {c.lower() for c in known or []} for _, known in level.values()):
            return None
    first = next((level for level in levels if level), None)
    if first is None:
        return None
    union = [c for _, known in first.values() for c in known or []]
    owner = next(iter(first.values()))[0] if len(first) == 1 else None
    return UnknownName("column", name, offset_of(column), owner, tuple(dict.fromkeys(union)))
