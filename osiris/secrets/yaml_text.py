"""Redact a YAML document so that it stays YAML: the same shape, the same lines.

The parser's events give each scalar's place in the text. A scalar under a secret key is
replaced by the mask in its own style (`"***"`, `'***'`, or a block scalar whose every line
reads `***`); any other scalar has the free-text patterns applied to its value, and is written
back quoted when the masked value could not stand as a plain scalar. The text between scalars
(comments, indicators) gets the free-text patterns too. Line numbers of issues stay right.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING

from osiris.secrets.names import MASK
from osiris.secrets.patterns import YAML_PROPERTIES, is_reference

if TYPE_CHECKING:
    import yaml

_NOTHING = {"", "~", "null", "Null", "NULL"}
_BRACKETS = re.compile(r"[\[\]{}]")
_NAMES_OR_COMMENTS = re.compile(r"[#&*!%]")
_SAFE_PLAIN = re.compile(r"[A-Za-z0-9_./(\\$][^\n:#,\[\]{}]*")


@dataclass
class _Frame:
    is_mapping: bool
    secret: bool
    at_key: bool = True  # in a mapping: is the next node a key?
    key_secret: bool = False  # in a mapping: does the current key name a secret?


def redact_yaml(text: str, is_secret_key: Callable[[str], bool], mask: Callable[[str], str]) -> str | None:
    """`text` with secrets masked, or None when it is not a YAML mapping or sequence."""
    import yaml

    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    if _too_deep(text):
        return None  # the YAML parser slows down quadratically on deep flow nesting: free text
    try:
        events = list(yaml.parse(text, Loader=loader))
    except Exception:  # noqa: BLE001 - whatever the parser makes of hostile text, it is then free text
        return None
    if not any(isinstance(e, (yaml.MappingStartEvent, yaml.SequenceStartEvent)) for e in events[:4]):
        return None
    # An alias under a secret key makes its anchor secret wherever the anchor is written.
    secret_anchors = {event.anchor for event, _key, secret in _walk(events, is_secret_key)
                      if secret and isinstance(event, yaml.AliasEvent)}
    pieces: list[str] = []
    position = 0
    for event, _is_key, secret in _walk(events, is_secret_key):
        if not isinstance(event, yaml.ScalarEvent):
            continue
        if event.start_mark is None or event.end_mark is None:  # the parser marks every event
            continue
        start, end = event.start_mark.index, event.end_mark.index
        secret = (secret or event.anchor in secret_anchors) and not _is_empty(event) and not is_reference(event.value)
        source = text[start:end]
        replaced = _secret_scalar(source, event, mask) if secret else _masked_scalar(source, event, mask)
        pieces += [_between(text[position:start], mask), source if replaced is None else replaced]
        position = end
    pieces.append(_between(text[position:], mask))
    redacted = "".join(pieces)
    try:
        for _event in yaml.parse(redacted, Loader=loader):
            pass
    except Exception:  # noqa: BLE001 - a shape the masks could not keep: the caller falls back to free text
        return None
    return redacted


MAX_FLOW_DEPTH = 64


def _too_deep(text: str) -> bool:
    """Whether `{`/`[` nest deeper than MAX_FLOW_DEPTH anywhere (quotes not considered: a cheap bound)."""
    depth = 0
    for match in _BRACKETS.finditer(text):
        depth = depth + 1 if match.group() in "{[" else max(depth - 1, 0)
        if depth > MAX_FLOW_DEPTH:
            return True
    return False


def _walk(events: list[yaml.Event], is_secret_key: Callable[[str], bool]) -> Iterator[tuple[yaml.Event, bool, bool]]:
    """(event, is it a mapping key?, is it in a secret place?) for each node event."""
    import yaml

    stack: list[_Frame] = []
    for event in events:
        if isinstance(event, (yaml.MappingStartEvent, yaml.SequenceStartEvent)):
            stack.append(_Frame(isinstance(event, yaml.MappingStartEvent), _value_is_secret(stack)))
        elif isinstance(event, (yaml.MappingEndEvent, yaml.SequenceEndEvent)):
            stack.pop()
            _node_done(stack, key_secret=False)
        elif isinstance(event, (yaml.ScalarEvent, yaml.AliasEvent)):
            is_key = bool(stack) and stack[-1].is_mapping and stack[-1].at_key
            yield event, is_key, not is_key and _value_is_secret(stack)
            names_secret = is_key and isinstance(event, yaml.ScalarEvent) and is_secret_key(event.value)
            _node_done(stack, key_secret=names_secret)


def _between(gap: str, mask: Callable[[str], str]) -> str:
    """Text between scalars: indicators, and comments, anchors, aliases, tags and directives, which
    may hold anything (a known secret pasted into `!!python/name:os...` too)."""
    return mask(gap) if _NAMES_OR_COMMENTS.search(gap) else gap


def _value_is_secret(stack: list[_Frame]) -> bool:
    """Whether the node about to start is secret: inside a secret node, or under a secret key."""
    if not stack:
        return False
    frame = stack[-1]
    return frame.secret or (frame.is_mapping and not frame.at_key and frame.key_secret)


def _node_done(stack: list[_Frame], *, key_secret: bool) -> None:
    if stack and stack[-1].is_mapping:
        frame = stack[-1]
        if frame.at_key:
            frame.key_secret = key_secret
        frame.at_key = not frame.at_key


def _is_empty(event: yaml.ScalarEvent) -> bool:
    return event.value in ("", MASK) or (event.style in (None, "") and event.value in _NOTHING)


def _split_properties(source: str, mask: Callable[[str], str]) -> tuple[str, str]:
    """`&pw !!str value` -> ('&pw !!str ', 'value'): anchors and tags stay where they are, masked."""
    found = YAML_PROPERTIES.match(source) if source[:1] in "&!" else None
    return (mask(source[: found.end()]), source[found.end():]) if found else ("", source)


def _secret_scalar(source: str, event: yaml.ScalarEvent, mask: Callable[[str], str]) -> str:
    """The mask in the scalar's own style; a block scalar keeps its header and its line count."""
    head, body = _split_properties(source, mask)
    if event.style in ("|", ">"):
        return head + _block_lines(body, lambda _line: MASK)
    if event.style == "'":
        return f"{head}'{MASK}'"
    return f'{head}"{MASK}"'


def _masked_scalar(source: str, event: yaml.ScalarEvent, mask: Callable[[str], str]) -> str | None:
    """The scalar with free-text secrets masked, in a style that parses back; None when unchanged."""
    value = event.value
    masked = mask(value)
    if masked == value and mask(source) == source:
        return None
    head, body = _split_properties(source, mask)
    if event.style in ("|", ">"):
        return head + _block_lines(body, mask)
    if event.style == "'" and "\n" not in masked:
        return head + "'" + masked.replace("'", "''") + "'"
    if event.style in (None, "") and _SAFE_PLAIN.fullmatch(masked) and masked == masked.strip():
        return head + masked
    return head + json.dumps(masked, ensure_ascii=False)


def _block_lines(body: str, change: Callable[[str], str]) -> str:
    """A block scalar's header line kept; each content line changed after its indentation."""
    header, _, content = body.partition("\n")
    lines = []
    for line in content.split("\n"):
        stripped = line.lstrip(" ")
        lines.append(line[: len(line) - len(stripped)] + change(stripped) if stripped.strip() else line)
    return header + "\n" + "\n".join(lines) if "\n" in body else body
