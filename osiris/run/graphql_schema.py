"""A GraphQL endpoint's query fields, for the schema catalog, read by introspection: one
authenticated POST, through the graphql driver's own HTTP client (its timeout, size cap and
redirect rules, docs/run-http.md). Names and types, never a value. docs/discover.md.

    tables = query_fields(client, "https://api.example.com/graphql", ["tickets"])
    # TableInfo("tickets", columns=[ColumnInfo("id", "string", False), ...], details={
    #   "returns": "TicketConnection!", "arguments": [{"name": "first", "type": "Int"}, ...],
    #   "data_path": "data.tickets.nodes", "record_type": "Ticket",
    #   "graphql_types": {"id": "ID!", ...}, "fields": [{"name": "requester.email", "type": "string"}],
    #   "paging": {"style": "graphql", "pagination_path": "data.tickets.pageInfo", ...}})

Each query root field that returns objects is one catalog entry. Where its records are follows the
usual shapes: a list of objects (`data.users`), a connection's `nodes` (`data.users.nodes`) or its
`edges` (`data.users.edges`, each record holding `node`), or one object (`data.viewer`). A record's
keys are its type's fields; an object's keys are followed NESTED_DEPTH levels deep (a schema's
types refer to each other in circles) and at most api_shape.MAX_FIELDS keys are kept an entry.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import TypeAlias

from osiris.catalog.api_shape import MAX_FIELDS
from osiris.families import ColumnInfo, TableInfo
from osiris.oml.values import Value
from osiris.problems import no_endpoint_problem
from osiris.run.http import HttpClient, safe_url

NESTED_DEPTH = 2  # levels of an object's keys followed below a record's own keys
MAX_ROOT_FIELDS = 100  # query fields kept when none are named
MAX_ENUM_VALUES = 50  # an enum's values kept for the prompt; a longer enum is cut
INTROSPECTION_CODE = "OML531"
_TYPE_REF = "kind name ofType { kind name ofType { kind name ofType { kind name ofType { kind name } } } }"
INTROSPECTION_QUERY = (
    "query OsirisIntrospection { __schema { queryType { name } types { kind name "
    f"fields {{ name args {{ name description defaultValue type {{ {_TYPE_REF} }} }} type {{ {_TYPE_REF} }} }} "
    "enumValues(includeDeprecated: true) { name } } } }"
)
# "at most 100", "maximum of 100", "max: 100", "up to 100", "between 1 and 100": an argument's largest value,
# as APIs write it in its description (GitHub's connections: "Returns the first _n_ elements ... up to 100")
_LARGEST = re.compile(r"\b(?:at most|max(?:imum)?(?: value)?(?: of| is)?:?|up to|no more than|between \d+ and|"
                      r"limit(?:ed)? (?:of|to))\s+(\d[\d,]*)\b", re.IGNORECASE)
_JSON_SCALARS = {"Int": "integer", "Float": "number", "String": "string", "ID": "string", "Boolean": "boolean"}
_OBJECTS = ("OBJECT", "INTERFACE", "UNION")
Node: TypeAlias = "Mapping[str, Value]"  # an object of the introspection answer: a type, a field, an argument


def _objects(value: Value) -> list[Node]:
    """The objects of a list in the answer (a hostile or broken answer may put anything there)."""
    return [item for item in value if isinstance(item, Mapping)] if isinstance(value, list) else []


def query_fields(client: HttpClient, endpoint: str, names: list[str] | None) -> list[TableInfo]:
    """The query root fields `names` (all, up to MAX_ROOT_FIELDS, when None) that return objects,
    as catalog entries; OML531 when the endpoint does not answer introspection."""
    if not endpoint:
        raise no_endpoint_problem()
    schema = _introspect(client, endpoint)
    types = {str(t.get("name")): t for t in _objects(schema.get("types"))}
    query_type = schema.get("queryType")
    root = types.get(str((query_type.get("name") if isinstance(query_type, Mapping) else None) or "Query")) or {}
    fields = [f for f in _objects(root.get("fields")) if not str(f.get("name")).startswith("__")]
    if names is not None:
        wanted = {name.lower() for name in names}
        fields = [f for f in fields if str(f["name"]).lower() in wanted]
    found = (_entry(field, types) for field in fields)
    entries = [entry for entry in found if entry is not None]
    return entries if names is not None else entries[:MAX_ROOT_FIELDS]


def _introspect(client: HttpClient, endpoint: str) -> Node:
    where = safe_url(endpoint)
    response = client.send("POST", endpoint, json={"query": INTROSPECTION_QUERY}, passthrough=(400, 403, 422))
    payload = client.json(response) if response.content else None
    schema = ((payload.get("data") or {}) if isinstance(payload, Mapping) else {}).get("__schema")
    if isinstance(schema, Mapping) and isinstance(schema.get("types"), list):
        return schema
    errors = payload.get("errors") if isinstance(payload, Mapping) else None
    if not errors and response.status_code >= 400:
        raise client.status_problem(response, "POST", retries=0)
    items = errors if isinstance(errors, list) else [errors] if errors else []
    said = "; ".join(str(e.get("message", e)) if isinstance(e, Mapping) else str(e) for e in items[:3])
    because = f": {client.server_text(said)}" if said else " (no __schema in its answer)"
    raise client.problem(
        INTROSPECTION_CODE, f"the GraphQL endpoint {where} does not answer introspection ({INTROSPECTION_CODE}){because}",
        "Osiris reads a GraphQL schema by introspection; ask the API's owner to allow it for this token, or "
        "write the query from the API's documentation and check it with osiris run --sample")


def type_text(ref: Value) -> str:
    """A type reference as GraphQL writes it: `String!`, `[Ticket!]!` (a loop: a hostile answer may
    nest wrappers as deep as its JSON goes)."""
    wrappers: list[Value] = []
    while isinstance(ref, Mapping) and ref.get("kind") in ("NON_NULL", "LIST"):
        wrappers.append(ref["kind"])
        ref = ref.get("ofType")
    text = str(ref.get("name") or "?") if isinstance(ref, Mapping) else "?"
    for kind in reversed(wrappers):
        text = f"{text}!" if kind == "NON_NULL" else f"[{text}]"
    return text


def _named(ref: Value) -> tuple[str, str, int, bool]:
    """(kind, name, list levels, nullable) of a type reference, wrappers taken off."""
    nullable = not (isinstance(ref, Mapping) and ref.get("kind") == "NON_NULL")
    lists = 0
    while isinstance(ref, Mapping) and ref.get("kind") in ("NON_NULL", "LIST"):
        lists += ref.get("kind") == "LIST"
        ref = ref.get("ofType")
    found = ref if isinstance(ref, Mapping) else {}
    return str(found.get("kind") or ""), str(found.get("name") or ""), lists, nullable


def json_kind(ref: Value) -> str:
    """The JSON type a value of this GraphQL type arrives as: `string|null`, `array of object`."""
    kind, name, lists, nullable = _named(ref)
    base = _JSON_SCALARS.get(name, "string") if kind == "ENUM" or name in _JSON_SCALARS else (
        "object" if kind in _OBJECTS else "any")
    for _ in range(lists):
        base = f"array of {base}"
    return f"{base}|null" if nullable else base


def enum_values(ref: Value, types: Mapping[str, Node]) -> list[str]:
    """The values an ENUM-typed key takes (at most MAX_ENUM_VALUES), [] for any other type."""
    kind, name, _, _ = _named(ref)
    found = types.get(name) if kind == "ENUM" else None
    values = found.get("enumValues") if isinstance(found, Mapping) else None
    return [str(v["name"]) for v in _objects(values) if "name" in v][:MAX_ENUM_VALUES]


def _object_fields(types: Mapping[str, Node], name: str) -> dict[str, Node]:
    found = types.get(name) or {}
    return {str(f["name"]): f for f in _objects(found.get("fields")) if "name" in f}


def _records(field: Node, types: Mapping[str, Node]) -> tuple[str, str, dict[str, str]] | None:
    """(data_path, record type, paging) of a root field, or None when it returns no objects."""
    kind, name, lists, _ = _named(field.get("type"))
    path = f"data.{field['name']}"
    if kind not in _OBJECTS:
        return None
    if lists:
        return path, name, {"style": "none"}
    inner = _object_fields(types, name)
    paging = _page_info(inner, types, path)
    for holder, record in (("nodes", None), ("edges", "node")):
        k, item, n, _ = _named(inner[holder].get("type")) if holder in inner else ("", "", 0, True)
        if k in _OBJECTS and n and (record is None or record in _object_fields(types, item)):
            return f"{path}.{holder}", item, paging
    return path, name, {"style": "none"}


def _page_info(fields: Mapping[str, Node], types: Mapping[str, Node], path: str) -> dict[str, str]:
    if "pageInfo" not in fields:
        return {"style": "none"}
    info = _object_fields(types, _named(fields["pageInfo"].get("type"))[1])
    if "hasNextPage" not in info or "endCursor" not in info:
        return {"style": "none"}
    return {"style": "graphql", "pagination_path": f"{path}.pageInfo"}


def _entry(field: Node, types: Mapping[str, Node]) -> TableInfo | None:
    found = _records(field, types)
    if found is None:
        return None
    data_path, record_type, paging = found
    arguments = [argument_entry(a) for a in _objects(field.get("args"))]
    if paging["style"] == "graphql" and any(a["name"] == "after" for a in arguments):
        paging["cursor_variable"] = "after"
    own = dict(list(_object_fields(types, record_type).items())[:MAX_FIELDS])
    columns = [ColumnInfo(name, json_kind(f.get("type")), _named(f.get("type"))[3]) for name, f in own.items()]
    nested: list[dict[str, str]] = []
    graphql_types = {name: type_text(f.get("type")) for name, f in own.items()}
    for name, inner in own.items():
        _nested(inner, name, types, 1, nested, graphql_types, len(columns))
    enums = {name: values for name, f in own.items() if (values := enum_values(f.get("type"), types))}
    for name, inner in own.items():
        _nested_enums(inner, name, types, 1, enums)
    details = {"returns": type_text(field.get("type")), "arguments": arguments, "data_path": data_path,
               "record_type": record_type, "graphql_types": graphql_types, "fields": nested, "paging": paging}
    if enums:
        details["enum_values"] = enums
    return TableInfo(str(field["name"]), columns, [], details)


def argument_entry(argument: Node) -> dict[str, Value]:
    """An argument as the catalog keeps it: its name and type, and where the schema says them, its
    default and its largest value (a page size's limit, read from its description)."""
    kind = type_text(argument.get("type"))
    entry: dict[str, Value] = {"name": str(argument.get("name")), "type": kind}
    default = argument.get("defaultValue")
    if isinstance(default, str):
        entry["default"] = default[:40]
    largest = _LARGEST.search(str(argument.get("description") or "")[:2000])
    if largest and kind.strip("!") == "Int":
        entry["max"] = int(largest.group(1).replace(",", ""))
    return entry


def _nested(field: Node, name: str, types: Mapping[str, Node], depth: int, out: list[dict[str, str]],
            graphql_types: dict[str, str], top: int) -> None:
    """The keys below an object-valued key, dotted (`requester.email`, `comments[].body`)."""
    kind, type_name, lists, _ = _named(field.get("type"))
    if kind not in _OBJECTS or depth > NESTED_DEPTH:
        return
    prefix = f"{name}[]." if lists else f"{name}."
    for key, inner in _object_fields(types, type_name).items():
        if top + len(out) >= MAX_FIELDS:
            return
        dotted = prefix + key
        out.append({"name": dotted, "type": json_kind(inner.get("type"))})
        graphql_types[dotted] = type_text(inner.get("type"))
        _nested(inner, dotted, types, depth + 1, out, graphql_types, top)


def _nested_enums(field: Node, name: str, types: Mapping[str, Node], depth: int,
                  enums: dict[str, list[str]]) -> None:
    """The values of the enum-typed keys below an object-valued key, by their dotted names."""
    kind, type_name, lists, _ = _named(field.get("type"))
    if kind not in _OBJECTS or depth > NESTED_DEPTH:
        return
    prefix = f"{name}[]." if lists else f"{name}."
    for key, inner in _object_fields(types, type_name).items():
        values = enum_values(inner.get("type"), types)
        if values:
            enums[prefix + key] = values
        _nested_enums(inner, prefix + key, types, depth + 1, enums)
