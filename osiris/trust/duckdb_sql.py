"""The DuckDB engine's own reading of a transform, held to the lists (docs/security.md, "SQL allowed by list").

`osiris.trust.sql` reads SQL with sqlglot, which is not DuckDB: where the two parsers differ, a
query could look harmless to one and call something else in the other. So just before a transform
runs, DuckDB parses the exact text itself (`json_serialize_sql`, which parses without binding or
running anything) and every function, table and table function it found is held to the same
lists. Anything DuckDB cannot serialise (a statement that is not one SELECT: PIVOT, SET, COPY, ...)
is refused, and so is any kind of table it does not know to be harmless.
"""

from __future__ import annotations

import json
import re
from collections.abc import Collection, Iterator, Mapping
from typing import TYPE_CHECKING

from osiris.trust.allowlist import ROW_GENERATORS, allowed
from osiris.oml.narrow import object_of, objects_in

if TYPE_CHECKING:
    from duckdb import DuckDBPyConnection

    from osiris.oml.values import Config, Value

# What a FROM clause may be, and the query and modifier nodes around it; any other "type" of a
# node without a "class" (PIVOT, SHOW_REF, COLUMN_DATA, DELIM_GET, ...) is refused.
_NODE_TYPES = frozenset({
    "SELECT_NODE", "SET_OPERATION_NODE", "CTE_NODE", "RECURSIVE_CTE_NODE",
    "BASE_TABLE", "JOIN", "SUBQUERY", "EMPTY", "EXPRESSION_LIST", "TABLE_FUNCTION",
    "ORDER_MODIFIER", "LIMIT_MODIFIER", "LIMIT_PERCENT_MODIFIER", "DISTINCT_MODIFIER",
    "ORDER_DEFAULT", "ASCENDING", "DESCENDING",
})
_OPERATOR = re.compile(r"^[^A-Za-z0-9_]+$")


def unlisted(con: DuckDBPyConnection, query: str, tables: Collection[str]) -> str | None:
    """Why DuckDB's parse of `query` is off the lists, or None when all of it is on them."""
    row = con.execute("SELECT json_serialize_sql(?::VARCHAR)", [query]).fetchone()
    assert row is not None  # a SELECT of one value returns one row
    parsed: Value = json.loads(row[0])
    statements = parsed.get("statements") if isinstance(parsed, Mapping) else None
    if not isinstance(parsed, Mapping) or parsed.get("error") or not isinstance(statements, list) or len(statements) != 1:
        return "the SQL is not one query DuckDB can check (PIVOT, SET, COPY and other statements are refused)"
    nodes = list(_walk(statements[0]))
    known = {t.lower() for t in tables} | {str(entry.get("key", "")).lower() for node in nodes
                                            for entry in objects_in(object_of(node.get("cte_map")).get("map"))}
    for node in nodes:
        reason = _reason(node, known)
        if reason:
            return reason
    return None


def _reason(node: Config, known: set[str]) -> str | None:
    kind = node.get("type")
    if node.get("class") in ("FUNCTION", "WINDOW", "AGGREGATE"):
        name = str(node.get("function_name", "")).lower()
        if node.get("catalog") or not (allowed("duckdb", name) or _OPERATOR.match(name)):
            return f"the query calls {name}, which is not on the DuckDB engine's list of functions a transform may call"
        return None
    if "class" in node or kind is None:
        return None
    if kind not in _NODE_TYPES:
        return f"the query uses {str(kind).replace('_', ' ')}, which a transform may not"
    if kind == "TABLE_FUNCTION":
        name = str(object_of(node.get("function")).get("function_name", "")).lower()
        if name not in ROW_GENERATORS["duckdb"]:
            return f"the query calls the table function {name}"
    if kind == "BASE_TABLE":
        name = str(node.get("table_name", ""))
        if node.get("schema_name") or node.get("catalog_name"):
            return f"the query reads '{node.get('schema_name') or node.get('catalog_name')}.{name}', a qualified name"
        if name.lower() not in known:
            return f"the query reads table '{name}', which is none of its inputs"
    return None


def _walk(value: Value) -> Iterator[Config]:
    if isinstance(value, dict):
        yield value
        for item in value.values():
            yield from _walk(item)
    elif isinstance(value, list):
        for item in value:
            yield from _walk(item)


def literal(text: str) -> str:
    """A SQL string literal."""
    return "'" + text.replace("'", "''") + "'"
