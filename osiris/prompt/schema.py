"""The slice of the schema catalogs that a request needs, for the request prompt (not the system
prompt: that one stays byte-identical, so that it stays cached).

Only the tables a request names or plausibly needs are shown: its own name (or its singular/plural),
one of its columns, a close spelling of its name, or its source's family or connection named in the
request ("from mysql": every table there). They are chosen best first while they fit the budget
(`catalog.prompt_tokens`, about 4 characters a token) and shown in a stable order, by source, the
tables it names first, then by name, so that the same tables read the same way in every request.
An API endpoint (`osiris discover @rest.NAME /path`) is told as the settings a rest.extractor step
needs (data_path, paging) and one line per key with its JSON and DuckDB type, after one note on how
nested values arrive (docs/discover.md).
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Callable
from typing import TYPE_CHECKING

from osiris.catalog.store import Catalog, list_catalogs
from osiris.prompt.date_forms import ISO_NOTE, api_form, column_form, graphql_form
from osiris.prompt.fence import fenced_data
from osiris.oml.narrow import items_of, object_of

if TYPE_CHECKING:
    from osiris.oml.values import Config, Value
    from osiris.settings.loader import EffectiveSettings

CHARS_PER_TOKEN = 4
NAMED = 10  # the score of a table the request names; such tables are shown first
_WORD = re.compile(r"[a-z0-9_]+")


def schema_for_project(effective: EffectiveSettings) -> Callable[[str], str]:
    """`schema_for(request)` -> the schema section for that request, "" when there is none."""
    budget = effective.settings.catalog.prompt_tokens
    root = effective.project_root

    def schema_for(request: str) -> str:
        return schema_section(request, list_catalogs(root), budget) if budget > 0 else ""
    return schema_for


def schema_section(request: str, catalogs: list[Catalog], budget_tokens: int) -> str:
    """The relevant tables as data for the prompt, within `budget_tokens`; "" when nothing fits."""
    words = _words(request)
    ranked = sorted(((_score(words, catalog, table), catalog.name, table, catalog)
                     for catalog in catalogs for table in catalog.tables),
                    key=lambda item: (-item[0], item[1], item[2]))
    budget = budget_tokens * CHARS_PER_TOKEN
    chosen: dict[str, dict[tuple[bool, str], str]] = {}
    used = 0
    for points, _, table, catalog in ranked:
        if points <= 0:
            break  # a table the request neither names nor plausibly needs
        header = 0 if catalog.name in chosen else len(_source(catalog)) + 1
        line = table_line(table, catalog.tables[table], budget - used - header - 1, catalog.family)
        if not line:
            continue
        chosen.setdefault(catalog.name, {})[(points < NAMED, table)] = line
        used += header + len(line) + 1
    if not chosen:
        return ""
    by_name = {catalog.name: catalog for catalog in catalogs}
    blocks = [f"{_source(by_name[name])}\n" + "\n".join(lines[key] for key in sorted(lines))
              for name, lines in sorted(chosen.items())]
    families = {by_name[name].family for name in chosen}
    note = "".join(f"{text}\n" for shown, text in (({"rest"}, API_NOTE), ({"graphql"}, GRAPHQL_NOTE),
                                                    ({"rest", "graphql", "supabase"}, ISO_NOTE))
                   if shown & families)
    return ("Known schemas (from `osiris discover`); use these exact table and column names:\n" + note
            + fenced_data("schema", "\n".join(blocks)))


API_NOTE = ("API records become the step's table (df_<step id>), one column per top-level key. A nested object is a "
            "STRUCT column: a key email inside requester is requester.email or requester['email'] in SQL (never "
            "\"requester.email\", which names no column); a list is a LIST column: UNNEST(tags) gives a row per item, "
            "tags[1] the first.")
GRAPHQL_NOTE = ("A GraphQL query field's records become the step's table: set data_path as shown and select, in the "
                "query, each key you need (an object key needs its own { ... }). With flatten_result (default true) "
                "the keys of a nested object become columns joined by _ (requester { email } gives requester_email); "
                "with flatten_result: false it stays a STRUCT (requester.email in SQL); a list is a LIST column "
                "(UNNEST(tags)).")


def table_line(name: str, table: Config, room: int, family: str = "") -> str:
    """`  customers(id int PK, email varchar(255))`, columns cut to fit `room` characters; a date or
    time column of `family`'s says the form it arrives in (osiris.prompt.date_forms)."""
    if "returns" in table:
        return graphql_lines(name, table, room)
    if "data_path" in table:
        return endpoint_lines(name, table, room)
    keys = {str(key) for key in items_of(table.get("primary_key"))}
    columns = [f"{c['name']} {c.get('type', '')}".rstrip() + (" PK" if str(c["name"]) in keys else "") + _facts(c, family)
               for c in _named(table.get("columns"))]
    line = f"  {name}({', '.join(columns)})"
    while len(line) > room and columns:
        columns.pop()
        line = f"  {name}({', '.join(columns)}, ...)"
    return line if 0 < len(line) <= room else ""


def _facts(column: Config, family: str) -> str:
    """` (arrives as TIMESTAMPTZ, ...)` for a date or time, ` [happy|sad]` for an enum's values,
    ` default 'new'::text` for a default, as discovered."""
    form = column_form(family, str(column.get("type", "")))
    values = column.get("values")
    shown = f" [{'|'.join(map(str, values))}]" if isinstance(values, list) and values else ""
    return ((f" ({form})" if form else "") + shown
            + (f" default {column['default']}" if column.get("default") is not None else ""))


def endpoint_lines(path: str, entry: Config, room: int) -> str:
    """An endpoint's step settings, then one line per key (nested keys dotted), cut to fit `room`."""
    seen = entry.get("records_seen", 0)
    head = (f"  endpoint {path}: data_path '{entry.get('data_path', '')}' ({seen} record{'s' if seen != 1 else ''} "
            f"seen); {_paging(object_of(entry.get('paging')))}")
    return _keys_within(head, _key_lines(entry, "duckdb_types", "DuckDB"), room)


def graphql_lines(name: str, entry: Config, room: int) -> str:
    """A query field's arguments, data_path and paging, then one line per key with its JSON and
    GraphQL type, cut to fit `room`."""
    arguments = ", ".join(_argument(a) for a in items_of(entry.get("arguments")) if isinstance(a, dict))
    paging = object_of(entry.get("paging"))
    pages = (f"paging: pagination_enabled: true, pagination_path: {paging.get('pagination_path')}, "
             f"pagination_variable_name: {paging.get('cursor_variable', 'after')} (ask for pageInfo "
             "{ hasNextPage endCursor })" if paging.get("style") == "graphql" else "paging: no pageInfo")
    head = (f"  query field {name}{f'({arguments})' if arguments else ''}: {entry.get('returns', '')}; "
            f"data_path '{entry.get('data_path', '')}' (records of type {entry.get('record_type', '')}); {pages}")
    return _keys_within(head, _key_lines(entry, "graphql_types", "GraphQL"), room)


def _argument(argument: Config) -> str:
    """`first: Int = 20 (at most 50)`: a default and a largest value (a page size's limit) where the
    schema says them (osiris.run.graphql_schema.argument_entry)."""
    text = f"{argument.get('name')}: {argument.get('type')}"
    text += f" = {argument['default']}" if argument.get("default") is not None else ""
    return text + (f" (at most {argument['max']})" if argument.get("max") is not None else "")


def _key_lines(entry: Config, types_key: str, title: str) -> list[str]:
    """`    requester object (DuckDB STRUCT(...))`: the entry's keys, top-level then nested."""
    exact = object_of(entry.get(types_key))
    enums = object_of(entry.get("enum_values"))
    keys = _named(entry.get("columns")) + _named(entry.get("fields"))
    return [f"    {k['name']} {_key_type(k, exact.get(str(k['name'])), title)}"
            + (f", one of: {', '.join(map(str, items_of(enums.get(str(k['name'])))))}"
               if isinstance(enums.get(str(k["name"])), list) else "")
            for k in keys]


def _named(value: Value) -> list[Config]:
    """The objects with a `name` in a catalog entry's list (its columns, its keys)."""
    return [item for item in items_of(value) if isinstance(item, dict) and "name" in item]


def _key_type(key: Config, exact: Value, title: str) -> str:
    """`string (GraphQL String!)`; a date or time says its form: `string|null (GraphQL DateTime: ISO
    8601 text)` (a custom scalar's JSON type is `any` in the catalog), `string (ISO 8601 text; DuckDB DATE)`."""
    kind = str(key.get("type", ""))
    if exact is None:
        return kind
    if title == "GraphQL" and graphql_form(str(exact)):
        return f"{kind.replace('any', 'string', 1)} (GraphQL {exact}: {graphql_form(str(exact))})"
    form = api_form(kind, str(exact)) if title == "DuckDB" else ""
    return f"{kind} ({form}; {title} {exact})" if form else f"{kind} ({title} {exact})"


def _keys_within(head: str, keys: list[str], room: int) -> str:
    """`head` and as many `keys` as fit `room` characters, then how many were left out; "" if none fits."""
    lines, shown = [head, *keys], len(keys)
    while len("\n".join(lines)) > room and shown:
        shown -= 1
        lines = [head, *keys[:shown], f"    ... ({len(keys) - shown} more keys)"]
    text = "\n".join(lines)
    return text if len(text) <= room else ""


def _paging(paging: Config) -> str:
    style = paging.get("style")
    if style == "cursor":
        return (f"paging: pagination: cursor, cursor_path: {paging.get('cursor_path')} (cursor_param is the API's "
                "query parameter for it, default cursor)")
    if style == "link_header":
        return "paging: pagination: link_header (the answer has a Link rel=next header)"
    if style == "graphql":
        return f"paging: pageInfo at {paging.get('pagination_path')}"
    if style == "page":
        return f"paging: pagination: page (the body has {', '.join(map(str, items_of(paging.get('page_fields'))))})"
    return "paging: none seen (one page)"


def _source(catalog: Catalog) -> str:
    day = catalog.discovered_at[:10]
    if catalog.family == "csv":
        return f"CSV file {catalog.connection} (discovered {day}):"
    return f"{catalog.connection} ({catalog.family}, discovered {day}):"


def _words(text: str) -> set[str]:
    words = set(_WORD.findall(text.lower()))
    return words | {w[:-1] for w in words if w.endswith("s") and len(w) > 3} | {w + "s" for w in words}


def _score(words: set[str], catalog: Catalog, table: str) -> float:
    name = (_WORD.findall(table.lower()) or [""])[-1] if table.startswith("/") else table.rsplit(".", 1)[-1].lower()
    score = 0.0
    if name in words or name.rstrip("s") in words:
        score += NAMED
    columns = {str(c.get("name", "")).lower() for c in catalog.tables[table].get("columns", []) if isinstance(c, dict)}
    score += len(columns & words)
    if catalog.family in words or catalog.name.split(".", 1)[-1] in words:
        score += 0.5
    close = max((difflib.SequenceMatcher(None, name, word).ratio() for word in words), default=0.0)
    return score + (close if close >= 0.6 else 0.0)
