"""The shape of an API's answer, for the schema catalog: where the records are, each key with its
JSON type (nested keys too), and the paging the answer suggests. Names and types, never a value.

    entry = endpoint_entry(body, has_next_link=True)
    # {"data_path": "tickets", "data_paths": ["tickets"], "records_seen": 25,
    #  "columns": [{"name": "id", "type": "integer", "nullable": false}, ...],
    #  "fields": [{"name": "requester.email", "type": "string"}, ...],
    #  "paging": {"style": "cursor", "cursor_path": "meta.next_cursor"}}

A key's type is the union of what the records seen hold (`string|null`); a list says what its
items are (`array of object`). Nested objects are followed MAX_DEPTH levels deep and at most
MAX_FIELDS keys are kept, so a map keyed by ids cannot flood the catalog. docs/discover.md.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from osiris.oml.values import Config, Value

MAX_DEPTH = 4  # how deep record lists are looked for, and nested keys followed
MAX_FIELDS = 200  # keys kept per endpoint, top-level and nested together
MAX_CANDIDATES = 3
_CURSOR = re.compile(r"^(next_?(cursor|page_?token|token|key)|cursor|end_?cursor|after|continuation(_?token)?)$",
                     re.IGNORECASE)
_PAGE_FIELDS = re.compile(r"^(page|current_?page|total_?pages|page_?count|pages|per_?page|page_?size|total|"
                          r"total_?count|count|has_?more|has_?next(_?page)?|offset|limit)$", re.IGNORECASE)


def json_type(value: object) -> str:
    """JSON's type of a value, with `integer` told apart from `number` (as JSON Schema does)."""
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, Mapping):
        return "object"
    if isinstance(value, list):
        return "array"
    return "null"


def record_lists(value: Value, path: str = "", depth: int = 0) -> Iterator[tuple[str, list[Config]]]:
    """(dotted path, list) for every non-empty list of objects in a body, shallowest first."""
    records = [item for item in value if isinstance(item, Mapping)] if isinstance(value, list) else []
    if isinstance(value, list) and value and len(records) == len(value):
        yield path, records
        return
    if isinstance(value, Mapping) and depth < MAX_DEPTH:
        for key, inner in value.items():
            yield from record_lists(inner, f"{path}.{key}" if path else str(key), depth + 1)


def endpoint_entry(body: Value, has_next_link: bool = False) -> dict[str, Any]:
    """What the catalog keeps of one endpoint's answer (see the module's docstring)."""
    candidates = sorted(record_lists(body), key=lambda found: (-len(found[1]), found[0].count(".")))
    if isinstance(body, Mapping) and not candidates:  # one object is one record
        candidates = [("", [body])]
    records = candidates[0][1] if candidates else []
    types: dict[str, set[str]] = {}
    for record in records:
        _collect(record, "", 0, types)
    top = list(dict.fromkeys(name for record in records for name in record if name in types))
    columns: list[dict[str, Value]] = [{"name": name, "type": _union(types[name]),
                "nullable": "null" in types[name] or any(name not in record for record in records)}
               for name in top]
    fields = [{"name": name, "type": _union(kinds)} for name, kinds in types.items() if name not in set(top)]
    entry: dict[str, Any] = {  # osiris/run/drivers/rest.py reads and extends it
        "data_path": candidates[0][0] if candidates else "",
        "data_paths": [path for path, _ in candidates[:MAX_CANDIDATES]],
        "records_seen": len(records),
        "columns": columns,
        "fields": fields,
        "primary_key": [],
        "paging": paging(body, {path for path, _ in candidates}, has_next_link),
    }
    return entry


def _collect(value: Config, prefix: str, depth: int, types: dict[str, set[str]]) -> None:
    for key, inner in value.items():
        name = f"{prefix}{key}"
        if name not in types and len(types) >= MAX_FIELDS:
            continue
        kind = json_type(inner)
        if isinstance(inner, list):  # json_type's "array"
            items = {json_type(item) for item in inner}
            kind = f"array of {_union(items)}" if items else "array"
            for item in inner:
                if isinstance(item, Mapping) and depth < MAX_DEPTH:
                    _collect(item, f"{name}[].", depth + 1, types)
        types.setdefault(name, set()).add(kind)
        if isinstance(inner, Mapping) and depth < MAX_DEPTH:
            _collect(inner, f"{name}.", depth + 1, types)


def _union(kinds: set[str]) -> str:
    """`string|null`: the types seen, null last."""
    return "|".join(sorted(kinds - {"null"}) + (["null"] if "null" in kinds else [])) or "null"


def paging(body: Value, record_paths: set[str], has_next_link: bool) -> dict[str, Value]:
    """The paging an answer suggests: a `Link: rel="next"` header, a cursor field, page counts."""
    found: dict[str, Value] = {"style": "none"}
    cursors, counts = [], []
    for path, value in _scalars(body, "", 0, record_paths):
        leaf = path.rsplit(".", 1)[-1]
        if _CURSOR.match(leaf) and isinstance(value, str | int) and not isinstance(value, bool):
            cursors.append(path)
        elif _PAGE_FIELDS.match(leaf) and isinstance(value, int | bool):
            counts.append(path)
    info = _page_info(body, record_paths)
    if has_next_link:
        found = {"style": "link_header"}
    elif info is not None:
        found = {"style": "graphql", "pagination_path": info}
    elif cursors:
        found = {"style": "cursor", "cursor_path": cursors[0]}
    elif counts:
        found = {"style": "page"}
    if counts:
        found["page_fields"] = counts
    return found


def _scalars(value: Value, path: str, depth: int, skip: set[str]) -> Iterator[tuple[str, Value]]:
    """(dotted path, value) of the scalars outside the record lists."""
    if not isinstance(value, Mapping) or depth > MAX_DEPTH or (path and path in skip):
        return
    for key, inner in value.items():
        where = f"{path}.{key}" if path else str(key)
        if isinstance(inner, Mapping):
            yield from _scalars(inner, where, depth + 1, skip)
        elif not isinstance(inner, list):
            yield where, inner


def _page_info(body: Value, skip: set[str], path: str = "", depth: int = 0) -> str | None:
    """The path of a GraphQL-style `pageInfo` object (hasNextPage and endCursor), if there is one."""
    if not isinstance(body, Mapping) or depth > MAX_DEPTH:
        return None
    if "hasNextPage" in body and "endCursor" in body:
        return path
    for key, inner in body.items():
        where = f"{path}.{key}" if path else str(key)
        if where not in skip and (found := _page_info(inner, skip, where, depth + 1)) is not None:
            return found
    return None
