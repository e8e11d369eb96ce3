"""The canonical pipeline text: the extracted YAML with the validator's safe coercions written in.

Each coercion is an `Edit` of one key or one scalar. The text is patched at the exact spans libyaml
reports for those nodes, so comments, quoting and the layout of every untouched line stay byte for
byte as the person (or the LLM) wrote them (ADR 0050).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

import yaml
from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from osiris.validate.pointer import split

_Loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
KEEP = object()  # an Edit that leaves the value as it is
_FLOW_INDICATORS = re.compile(r"[,\[\]{}#]|\n")


@dataclass(frozen=True)
class Edit:
    """At the key `pointer` (as written in the text): rename the key and/or replace its value."""

    pointer: str
    rename_to: str | None = None
    value: Any = KEEP


def canonical_text(text: str, edits: list[Edit]) -> str:
    """`text` with `edits` applied; `text` itself when there are none or they cannot be placed."""
    if not edits:
        return text
    try:
        root = yaml.compose(text, Loader=_Loader)
    except yaml.YAMLError:
        return text
    spans: dict[tuple[int, int], str] = {}
    for edit in edits:
        found = _find(root, split(edit.pointer))
        if found is None:
            continue
        key, value = found
        if edit.rename_to is not None:
            spans[(key.start_mark.index, key.end_mark.index)] = _scalar(edit.rename_to, key.style)
        if edit.value is not KEEP and isinstance(value, ScalarNode) and _is_own(key, value):
            spans[(value.start_mark.index, value.end_mark.index)] = _value(edit.value, value)
    patched = text
    for (start, end), replacement in sorted(spans.items(), reverse=True):
        patched = patched[:start] + replacement + patched[end:]
    return patched


def _find(node: Node | None, parts: list[str]) -> tuple[ScalarNode, Node] | None:
    """The (key node, value node) of the last part of `parts`."""
    for position, part in enumerate(parts):
        last = position == len(parts) - 1
        if isinstance(node, MappingNode):
            pair = next(((k, v) for k, v in node.value if isinstance(k, ScalarNode) and k.value == part), None)
            if pair is None:
                return None
            if last:
                return pair
            node = pair[1]
        elif isinstance(node, SequenceNode) and part.isdigit() and int(part) < len(node.value) and not last:
            node = node.value[int(part)]
        else:
            return None
    return None


def _is_own(key: Node, value: ScalarNode) -> bool:
    """False for a YAML alias (*name): its node lives at the anchor, elsewhere in the text."""
    return value.start_mark.index >= key.end_mark.index and value.start_mark.line == value.end_mark.line


def _value(new: object, old: ScalarNode) -> str:
    if isinstance(new, list):
        return "[" + ", ".join(_value(item, old) for item in new) + "]"
    if isinstance(new, str):
        return _scalar(new, old.style if old.style in ("'", '"') else None)
    return _plain(new)


def _scalar(text: str, style: str | None) -> str:
    if style == '"':
        return json.dumps(text, ensure_ascii=False)
    if style == "'":
        return "'" + text.replace("'", "''") + "'"
    return _plain(text)


def _plain(value: object) -> str:
    """One scalar as YAML text that reads back the same in block and in flow context: plain where
    PyYAML's emitter allows it and no flow indicator is in it, double-quoted otherwise."""
    dumped = yaml.safe_dump(value, default_flow_style=True, allow_unicode=True, width=10**6)
    dumped = dumped.removesuffix("\n...\n").rstrip("\n")
    if isinstance(value, str) and not dumped.startswith(("'", '"')) and _FLOW_INDICATORS.search(dumped):
        return json.dumps(value, ensure_ascii=False)
    return dumped