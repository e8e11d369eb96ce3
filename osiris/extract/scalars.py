"""YAML scalars and tags as Osiris reads them: only what `yaml.safe_load` reads, numbers within limits.

Every value that comes out is JSON-safe: no NaN or Infinity (they stay as the text written), no
integer beyond 64 bits (refused, OML105), no date or binary object (the text as written).
"""

from __future__ import annotations

import math

from yaml.constructor import SafeConstructor
from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

MAX_INTEGER = 2**64  # no database, port or batch size needs more; Python's str(int) stops at 4,300 digits
_MAX_NUMBER_TEXT = 64  # characters of a number literal worth converting at all (hex, octal, base 60)
_YAML = "tag:yaml.org,2002:"
STR = _YAML + "str"
_INT = _YAML + "int"
# `<<` and `=` resolve to these; as OML keys or values they can only be meant as text.
_AS_WRITTEN = {STR, _YAML + "merge", _YAML + "value"}
_COLLECTION_TAGS: dict[type[Node], str] = {MappingNode: _YAML + "map", SequenceNode: _YAML + "seq"}


class BadValue(Exception):
    """A node that safe_load would refuse, or that Osiris cannot read safely. `code`: OML101 or OML105."""

    def __init__(self, code: str, message: str, node: Node) -> None:
        super().__init__(message)
        self.code = code
        self.mark = node.start_mark


def shown_tag(tag: str) -> str:
    """'tag:yaml.org,2002:bool' -> '!!bool'; other tags as written."""
    return "!!" + tag[len(_YAML):] if tag.startswith(_YAML) else tag


def check_collection_tag(node: Node) -> None:
    """Mappings and lists carry no tag of their own: `steps: !!python/object/apply:os.system` is refused."""
    expected = _COLLECTION_TAGS.get(type(node))
    if expected is not None and node.tag != expected:
        raise BadValue("OML101", f"the tag {_short(shown_tag(node.tag))} is not allowed here: OML is plain YAML", node)


def fits(number: object) -> bool:
    """True for finite floats and integers below MAX_INTEGER in magnitude: values strict JSON can carry."""
    if isinstance(number, float):
        return math.isfinite(number)
    return not isinstance(number, int) or abs(number) < MAX_INTEGER


class ScalarReader:
    """One scalar node -> str, int, float, bool or None, the way safe_load reads it, within limits."""

    def __init__(self) -> None:
        self.constructor = SafeConstructor()

    def read(self, node: ScalarNode) -> str | int | float | bool | None:
        written: str = node.value  # a scalar node holds the text as written
        if node.tag in _AS_WRITTEN:
            return written
        if node.tag == _INT and len(node.value) > _MAX_NUMBER_TEXT:
            raise BadValue("OML105", f"the number {_short(node.value)} has {len(node.value):,} characters; "
                           f"numbers must be smaller than 2^64", node)
        try:
            value = self.constructor.construct_object(node)
        except Exception as error:  # PyYAML's own constructors fail with KeyError, AttributeError, ValueError
            if node.tag not in self.constructor.yaml_constructors:
                raise BadValue("OML101", f"the tag {_short(shown_tag(node.tag))} is not allowed: OML is plain YAML",
                               node) from None
            raise BadValue("OML101", f"{_short(node.value)!r} is not a valid {shown_tag(node.tag)}", node) from error
        if isinstance(value, bool) or value is None or isinstance(value, str):
            return value
        if isinstance(value, int):
            if not fits(value):
                raise BadValue("OML105", f"the number {_short(node.value)} is too large; "
                               "numbers must be smaller than 2^64", node)
            return value
        if isinstance(value, float) and fits(value):
            return value
        return written  # NaN, infinities, dates, binary, sets: keep the text as written


def _short(text: str, limit: int = 40) -> str:
    return text if len(text) <= limit else text[:limit - 3] + "..."
