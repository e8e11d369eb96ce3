"""Names in parsed SQL (sqlglot trees): which tables a query reads, which columns it names that its
sources do not have, and which columns it returns. Callers import sqlglot; this module receives trees."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

Columns = list[str] | None  # None: the columns of a source are not known
Source = tuple[str, Columns]  # a table's spelling and its columns


@dataclass(frozen=True)
class UnknownName:
    kind: str  # "table" or "column"
    name: str
    offset: int | None  # where the name starts in the SQL text
    table: str | None = None  # for a column: the table it was looked up in (None: all sources)
    known: tuple[str, ...] = ()  # the names that would have been right


def offset_of(node: Any) -> int | None:
    """Where `node` (a Column, Table or Identifier) starts in the SQL text, if sqlglot kept it."""
    for candidate in (node, getattr(node, "this", None)):
        start = (getattr(candidate, "meta", None) or {}).get("start")
        if isinstance(start, int):
            return start
    return None


def read_tables(tree: Any) -> list[Any]:
    """The real tables a query reads (exp.Table nodes), leaving out CTEs and table functions."""
    from sqlglot import exp
    from sqlglot.optimizer.scope import traverse_scope

    found: list[Any] = []
    for scope in _scopes(tree, traverse_scope):
        for source in scope.sources.values():
            if isinstance(source, exp.Table) and isinstance(source.this, exp.Identifier):
                found.append(source)
    return found


def unknown_names(tree: Any, tables: Callable[[str], tuple[str, Columns] | None],
                  all_tables: list[str]) -> list[UnknownName]:
    """Tables that `tables(name)` does not know, and columns that the known tables lack.

    `tables(name)` -> (the table's spelling, its columns or None) or None when unknown.
    """
    from sqlglot import exp
    from sqlglot.optimizer.scope import traverse_scope

    problems: list[UnknownName] = []
    scope_sources: dict[int, dict[str, Source]] = {}
    for scope in _scopes(tree, traverse_scope):
        sources: dict[str, Source] = {}
        for alias, source in scope.sources.items():
            if isinstance(source, exp.Table):
                if not isinstance(source.this, exp.Identifier):
                    sources[alias] = (alias, None)
                    continue
                known = tables(source.name)
                if known is None:
                    problems.append(UnknownName("table", source.name, offset_of(source), known=tuple(all_tables)))
                sources[alias] = known or (source.name, None)
            else:
                sources[alias] = (alias, output_names(source.expression))
        outer = scope_sources.get(id(scope.parent), {}) if scope.parent else {}
        scope_sources[id(scope)] = {**outer, **sources}
        aliases = {e.alias.lower() for e in getattr(scope.expression, "expressions", []) if isinstance(e, exp.Alias)}
        problems += _unknown_columns(scope.columns, sources, outer, aliases)
    return problems


def _unknown_columns(columns: list[Any], sources: Mapping[str, Source], outer: Mapping[str, Source],
                     aliases: set[str]) -> list[UnknownName]:
    problems: list[UnknownName] = []
    for column in columns:
        name = column.name
        if not name or column.is_star:
            continue
        if column.table:
            spelling, known = sources.get(column.table) or outer.get(column.table) or ("", None)
            if known is not None and name.lower() not in {c.lower() for c in known}:
                problems.append(UnknownName("column", name, offset_of(column), spelling, tuple(known)))
            continue
        if name.lower() in aliases:
            continue
        every = [*sources.values(), *outer.values()]
        if not every or any(known is None for _, known in every):
            continue
        union = [c for _, known in every for c in known or []]
        if name.lower() not in {c.lower() for c in union}:
            owner = every[0][0] if len(every) == 1 else None
            problems.append(UnknownName("column", name, offset_of(column), owner, tuple(dict.fromkeys(union))))
    return problems


def output_names(query: Any, star: Callable[[Any], Columns] | None = None) -> Columns:
    """The column names a query returns; a `*` is expanded by `star(select)` when given."""
    names = list(getattr(query, "named_selects", None) or [])
    if not getattr(query, "is_star", False):
        return names or None
    expanded = star(query) if star else None
    if expanded is None:
        return None
    plain = [n for n in names if n != "*"]
    return list(dict.fromkeys([*expanded, *plain]))


def _scopes(tree: Any, traverse: Callable[[Any], list[Any]]) -> list[Any]:
    try:
        return list(traverse(tree))
    except Exception:  # sqlglot cannot scope some valid statements (DDL, odd dialect forms): no check
        return []


def single_source(select: Any) -> str | None:
    """The one table a SELECT reads (no joins), for expanding its `*`; None otherwise."""
    from sqlglot import exp

    if not isinstance(select, exp.Select) or select.args.get("joins"):
        return None
    source = select.args.get("from_") or select.args.get("from")
    table = getattr(source, "this", None)
    return table.name if isinstance(table, exp.Table) and isinstance(table.this, exp.Identifier) else None
