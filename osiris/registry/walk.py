"""Every mapping inside a JSON Schema, with its JSON pointer and base URI, without recursion."""

from __future__ import annotations

from collections.abc import Iterator
from urllib.parse import urljoin


def schema_nodes(schema: object, pointer: str = "", base: str = "") -> Iterator[tuple[str, dict[str, object], str]]:
    """(pointer, mapping, base URI) for `schema` and every mapping in it; nested `$id`s move the base."""
    stack: list[tuple[object, str, str]] = [(schema, pointer, base)]
    while stack:
        node, where, uri = stack.pop()
        if isinstance(node, list):
            stack.extend((item, f"{where}/{index}", uri) for index, item in enumerate(node))
            continue
        if not isinstance(node, dict):
            continue
        if isinstance(node.get("$id"), str) and where != pointer:
            uri = urljoin(uri, node["$id"])
        yield where, node, uri
        stack.extend((value, f"{where}/{key}", uri) for key, value in node.items() if isinstance(value, (dict, list)))
