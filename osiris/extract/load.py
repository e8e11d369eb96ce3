"""Parse one YAML document safely: line numbers, duplicate keys, several documents, limits.

libyaml (CSafeLoader) builds the node tree; this module turns nodes into Python values itself,
so that it can record the position of every JSON pointer, reject duplicate keys, and stop alias
bombs by counting the nodes it visits. libyaml crashes the process on very deep nesting, so the
depth is estimated from the text before libyaml ever sees it (ADR 0010).
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, NamedTuple

import yaml
from yaml.error import Mark
from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from osiris.extract.scalars import BadValue, ScalarReader, check_collection_tag

_Loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)

MAX_CHARS = 1_000_000  # an OML pipeline is a few kB; 1 MB is generous
MAX_DEPTH = 64  # OML needs about 6 levels
_SAFE_FOR_LIBYAML = 8_000  # shorter texts cannot nest deep enough to crash libyaml (ADR 0010)
MAX_NODES = 10_000  # values built, counting every expansion of an alias; OML needs a few hundred
MAX_EVENTS = 50_000  # parser events (keys, values, starts and ends) of a long text, counted before building
_SMALL_TEXT = 64_000  # texts this short cannot hold enough events to matter


class Position(NamedTuple):
    line: int  # 1-based
    column: int  # 1-based


class Positions(Mapping[str, Position]):
    """JSON pointer -> Position. Keeps libyaml's marks and converts only the ones asked for:
    most pointers of a valid pipeline are never looked up."""

    def __init__(self, line_offset: int = 0) -> None:
        self.marks: dict[str, Mark] = {}
        self.line_offset = line_offset

    def __getitem__(self, pointer: str) -> Position:
        return _position(self.marks[pointer], self.line_offset)

    def __contains__(self, pointer: object) -> bool:
        return pointer in self.marks

    def __iter__(self) -> Iterator[str]:
        return iter(self.marks)

    def __len__(self) -> int:
        return len(self.marks)


@dataclass
class Problem:
    """Why the text could not become a value: an OML1xx code, a message, where."""

    code: str
    message: str
    hint: str
    position: Position | None = None


@dataclass
class Loaded:
    """The value of the one document, and the position of each JSON pointer inside it."""

    value: Any = None
    positions: Mapping[str, Position] = field(default_factory=dict)
    problems: list[Problem] = field(default_factory=list)
    empty: bool = False


class _LimitExceeded(Exception):
    pass


_FLOW_CHARS = re.compile(r"[^\[\]{}\n]+")
_INDENT = re.compile(r"^([ \t]*)(?:[-?:][ \t]+)*", re.MULTILINE)


def estimated_depth(text: str) -> int:
    """An upper bound of the nesting depth, computed without parsing (libyaml can crash on it)."""
    depth = deepest = 0
    for char in _FLOW_CHARS.sub("", text):
        if char in "[{":
            depth += 1
            deepest = max(deepest, depth)
        elif char in "]}":
            depth = max(0, depth - 1)
    indents: set[int] = set()
    chain = 0
    for match in _INDENT.finditer(text):
        indents.add(len(match.group(1)))
        chain = max(chain, match.group(0).count("-") + match.group(0).count("?") + match.group(0).count(":"))
    return deepest + len(indents) + chain


def load_document(text: str, line_offset: int = 0) -> Loaded:
    """Parse `text` (one YAML document). Never raises: problems come back in `Loaded.problems`."""
    if len(text) > MAX_CHARS:
        return _fail("OML105", f"the YAML is {len(text):,} characters; the limit is {MAX_CHARS:,}",
                     "send a pipeline of a reasonable size; OML files are normally a few kilobytes")
    surrogate = _lone_surrogate(text)
    if surrogate is not None:
        return _fail("OML101", f"the text holds a lone surrogate (U+{ord(text[surrogate]):04X}), which is not valid Unicode",
                     "send plain UTF-8 text", _offset_position(text, surrogate, line_offset))
    if len(text) > _SAFE_FOR_LIBYAML and estimated_depth(text) > MAX_DEPTH * 4:
        return _fail("OML105", f"the YAML nests deeper than {MAX_DEPTH} levels",
                     "flatten the document; an OML pipeline needs only a few levels")
    try:
        if len(text) > _SMALL_TEXT and _too_many_events(text):
            return _fail("OML105", f"the YAML holds more than {MAX_EVENTS:,} values and keys",
                         "send one pipeline of a reasonable size; OML files hold a few hundred values")
        documents = _compose_documents(text)
    except yaml.MarkedYAMLError as error:
        mark = error.problem_mark or error.context_mark
        return _fail("OML101", _describe_yaml_error(error), _syntax_hint(error),
                     _position(mark, line_offset) if mark else None)
    except yaml.YAMLError as error:  # reader errors: binary or non-printable characters
        return _fail("OML101", f"the text is not valid YAML: {_one_line(str(error))}",
                     "send plain UTF-8 text without control characters")
    except (RecursionError, MemoryError):
        return _fail("OML105", "the YAML is too deeply nested or too large to parse",
                     "flatten the document; an OML pipeline needs only a few levels")
    if len(documents) > 1:
        return _fail("OML103", f"the text holds {len(documents)} YAML documents separated by '---'",
                     "send exactly one pipeline document (no '---' between parts)",
                     _position(documents[1].start_mark, line_offset))
    if not documents or _is_null(documents[0]):
        return Loaded(empty=True)
    return _build(documents[0], line_offset)


def _lone_surrogate(text: str) -> int | None:
    """The index of the first lone surrogate (libyaml cannot encode one), or None."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as error:
        return error.start
    return None


def _offset_position(text: str, index: int, line_offset: int) -> Position:
    line_start = text.rfind("\n", 0, index) + 1
    return Position(text.count("\n", 0, index) + 1 + line_offset, index - line_start + 1)


def _too_many_events(text: str) -> bool:
    """Count parser events up to the budget, before any node is built: bounds time and memory."""
    loader = _Loader(text)
    try:
        for _ in range(MAX_EVENTS):
            if loader.get_event() is None:
                return False
        return True
    finally:
        loader.dispose()


def _compose_documents(text: str) -> list[Node]:
    documents: list[Node] = []
    loader = _Loader(text)
    try:
        while loader.check_node():
            node = loader.get_node()
            if node is not None:
                documents.append(node)
            if len(documents) > 1:
                break
    finally:
        loader.dispose()
    return documents


def _build(root: Node, line_offset: int) -> Loaded:
    builder = _Builder(line_offset)
    try:
        value = builder.build(root, "", 0)
    except _LimitExceeded as error:
        return _fail("OML105", str(error), "remove YAML anchors and aliases (&name, *name) and deep nesting")
    except BadValue as error:
        hint = ("write a smaller number, or quote it if it is meant as text" if error.code == "OML105"
                else "leave out YAML tags (!!name); quote values that are meant as text")
        return _fail(error.code, str(error), hint, _position(error.mark, line_offset))
    except (yaml.YAMLError, ValueError, TypeError, OverflowError) as error:
        mark = getattr(error, "problem_mark", None)
        return _fail("OML101", f"a value cannot be read: {_one_line(str(error))}",
                     "quote values that are meant as text",
                     _position(mark, line_offset) if mark else None)
    loaded = Loaded(value=value, positions=builder.positions, problems=builder.problems)
    return loaded


class _Builder:
    """Node tree -> Python values, recording positions and duplicate keys, within limits."""

    def __init__(self, line_offset: int) -> None:
        self.line_offset = line_offset
        self.positions = Positions(line_offset)
        self.marks = self.positions.marks
        self.problems: list[Problem] = []
        self.count = 0
        self.scalars = ScalarReader()

    def build(self, node: Node, pointer: str, depth: int) -> object:
        """The value of `node`: a scalar, a list or a dict of them (osiris.oml.values.Value, a layer up)."""
        self.count += 1
        if self.count > MAX_NODES:
            raise _LimitExceeded(f"the YAML holds or expands (through anchors and aliases) to more than {MAX_NODES:,} values")
        if depth > MAX_DEPTH:
            raise _LimitExceeded(f"the YAML nests deeper than {MAX_DEPTH} levels")
        self.marks.setdefault(pointer, node.start_mark)
        check_collection_tag(node)
        if isinstance(node, MappingNode):
            return self._mapping(node, pointer, depth)
        if isinstance(node, SequenceNode):
            return [self.build(item, f"{pointer}/{index}", depth + 1) for index, item in enumerate(node.value)]
        if isinstance(node, ScalarNode):
            return self.scalars.read(node)
        raise ValueError(f"unsupported YAML node {node.tag}")

    def _mapping(self, node: MappingNode, pointer: str, depth: int) -> dict[str, object]:
        result: dict[str, object] = {}
        for key_node, value_node in node.value:
            if not isinstance(key_node, ScalarNode):
                raise ValueError("a mapping key must be a plain value, not a list or mapping")
            # Keys are taken as written: OML keys are names, so `on:` stays "on" (not true), `1:` stays "1".
            # Merge keys (<<) are not expanded: they are not OML, and merges of merges grow exponentially.
            key = key_node.value
            self.scalars.read(key_node)  # a tag safe_load would refuse is refused on a key too
            child = f"{pointer}/{escape(str(key))}"
            if key in result:
                self.count += 1
                if self.count > MAX_NODES:
                    raise _LimitExceeded(f"the YAML holds more than {MAX_NODES:,} values")
                self.problems.append(Problem(
                    "OML104", f"key '{key}' appears twice in the same mapping",
                    f"keep one '{key}' and delete the other",
                    _position(key_node.start_mark, self.line_offset)))
                continue
            self.marks[child] = key_node.start_mark
            result[key] = self.build(value_node, child, depth + 1)
        return result


def escape(key: str) -> str:
    """A JSON-pointer reference token (RFC 6901)."""
    if "~" not in key and "/" not in key:
        return key
    return key.replace("~", "~0").replace("/", "~1")


def _is_null(node: Node) -> bool:
    return isinstance(node, ScalarNode) and node.tag == "tag:yaml.org,2002:null"


def _position(mark: Mark, line_offset: int) -> Position:
    return Position(mark.line + 1 + line_offset, mark.column + 1)


def _fail(code: str, message: str, hint: str, position: Position | None = None) -> Loaded:
    return Loaded(problems=[Problem(code, message, hint, position)])


def _describe_yaml_error(error: yaml.MarkedYAMLError) -> str:
    parts = [error.context, error.problem]
    return _one_line("; ".join(part for part in parts if part)) or "invalid YAML"


def _syntax_hint(error: yaml.MarkedYAMLError) -> str:
    problem = (error.problem or "").lower()
    if "tab" in problem:
        return "indent with spaces, never tabs"
    if "mapping values are not allowed" in problem:
        return "quote values that contain ': ' (a colon and a space), or fix the indentation"
    if "could not find expected ':'" in problem or "simple key" in problem:
        return "every key needs a ':' after it; check the indentation of this line"
    if "found character '%'" in problem or "found character '@'" in problem or "`" in problem:
        return "quote values that start with @, % or `, e.g. connection: \"@mysql.default\""
    if "end of the stream" in problem or "expected" in problem:
        return "close every bracket and quote; check the indentation around this line"
    return "fix the YAML syntax around this line; keep two-space indentation"


def _one_line(text: str) -> str:
    return " ".join(text.split())
