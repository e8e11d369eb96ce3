"""`$ref` in a spec resolves inside that spec, and nowhere else: nothing is ever fetched (ADR 0086).

jsonschema's default registry fetches `http://` and `file://` references while it validates, so a
user's spec could make `osiris validate` send a request or read any file. Every validator Osiris
builds gets a registry that refuses to retrieve, and every reference in a spec is resolved when the
spec is loaded, so that a dangling or outside one is a spec problem, not a crash mid-validation.
"""

from __future__ import annotations

from collections.abc import Iterator
from functools import lru_cache
from typing import TYPE_CHECKING, NoReturn

from osiris.registry.walk import schema_nodes

if TYPE_CHECKING:
    from referencing import Registry
    from referencing.jsonschema import Schema

_REF_KEYWORDS = ("$ref", "$dynamicRef")


class OutsideReference(LookupError):
    """A reference to something outside the spec: Osiris does not fetch it."""


def _refuse(uri: str) -> NoReturn:
    raise OutsideReference(uri)


@lru_cache(maxsize=1)
def no_retrieval() -> Registry[Schema]:
    """A `referencing` registry that retrieves nothing (jsonschema adds the meta-schemas it knows)."""
    from referencing import Registry

    return Registry(retrieve=_refuse)  # type: ignore[call-arg]


def reference_problems(schema: object, where: str) -> list[str]:
    """One line per `$ref`/`$dynamicRef` in `schema` that does not resolve inside it (`where`: its pointer)."""
    if not isinstance(schema, dict):
        return []
    from jsonschema_specifications import REGISTRY as META_SCHEMAS  # type: ignore[import-untyped]  # no py.typed
    from referencing.jsonschema import DRAFT202012

    found = schema.get("$id")
    root = found if isinstance(found, str) else ""
    registry = META_SCHEMAS.combine(no_retrieval().with_resource(root, DRAFT202012.create_resource(schema))).crawl()
    problems = []
    for pointer, base, reference in _references(schema, root, where):
        try:
            registry.resolver(base_uri=base).lookup(reference)
        except Exception:  # referencing raises Unresolvable, PointerToNowhere, NoSuchAnchor, ...
            problems.append(f"{pointer} = {_short(reference)!r} does not resolve inside the spec; Osiris resolves "
                            "references only within the spec (#/... or an $anchor) and never fetches one")
    return problems


def _references(schema: object, root: str, where: str) -> Iterator[tuple[str, str, str]]:
    """(pointer, base URI, reference) of every reference in the schema."""
    for pointer, node, base in schema_nodes(schema, where, root):
        for keyword in _REF_KEYWORDS:
            reference = node.get(keyword)
            if isinstance(reference, str):
                yield f"{pointer}/{keyword}", base, reference


def _short(text: str, limit: int = 80) -> str:
    return text if len(text) <= limit else text[:limit - 3] + "..."
