"""Where a character of a YAML string value sits in the YAML file: line and column.

SQL errors point into the SQL text (a value in the pipeline); people need the position in the file.
The value's node is found again by composing the YAML (only when an SQL issue needs a position),
and each character of the value is matched to the source in order. This is exact for plain, quoted
and block (`|`, `>`) scalars; escapes in double-quoted strings (`\\"`) are stepped over.
"""

from __future__ import annotations


import yaml
from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from osiris.extract import Position
from osiris.validate.pointer import split

_Loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class ValueLocator:
    """Positions inside the string values of one YAML text (as the validator parsed it)."""

    def __init__(self, text: str, line_offset: int = 0) -> None:
        self.text = text
        self.line_offset = line_offset
        self._root: Node | None | bool = False  # False: not composed yet
        self._maps: dict[str, list[int] | None] = {}

    def position(self, pointer: str, offset: int) -> Position | None:
        """The file position of character `offset` of the string value at `pointer`."""
        if pointer not in self._maps:
            self._maps[pointer] = self._char_map(pointer)
        mapping = self._maps[pointer]
        if not mapping:
            return None
        index = mapping[max(0, min(offset, len(mapping) - 1))]
        return self._line_column(index)

    def _char_map(self, pointer: str) -> list[int] | None:
        node = self._node(pointer)
        if not isinstance(node, ScalarNode):
            return None
        return align(node.value, self.text, node.start_mark.index, node.end_mark.index, node.style)

    def _node(self, pointer: str) -> Node | None:
        if self._root is False:
            try:
                self._root = yaml.compose(self.text, Loader=_Loader)
            except yaml.YAMLError:
                self._root = None
        node = self._root if isinstance(self._root, Node) else None
        for part in split(pointer):
            node = _child(node, part)
            if node is None:
                return None
        return node

    def _line_column(self, index: int) -> Position:
        line_start = self.text.rfind("\n", 0, index) + 1
        line = self.text.count("\n", 0, index) + 1
        return Position(line + self.line_offset, index - line_start + 1)


def _child(node: Node | None, part: str) -> Node | None:
    if isinstance(node, MappingNode):
        pairs: list[tuple[Node, Node]] = node.value
        for key, value in pairs:
            if isinstance(key, ScalarNode) and key.value == part:
                return value
    if isinstance(node, SequenceNode) and part.isdigit() and int(part) < len(node.value):
        items: list[Node] = node.value
        return items[int(part)]
    return None


def align(value: str, source: str, start: int, end: int, style: str | None) -> list[int]:
    """For each character of `value`, its index in `source[start:end]` (the scalar as written)."""
    cursor = start
    if style in ("'", '"'):
        cursor += 1
    elif style in ("|", ">"):
        cursor = source.find("\n", start, end) + 1 or end
    positions: list[int] = []
    last = max(start, end - 1)
    for char in value:
        while cursor < end and not _same(char, source[cursor]):
            cursor += 1
        positions.append(min(cursor, last))
        cursor += 1
    return positions


def _same(char: str, written: str) -> bool:
    """Folded lines turn line breaks into spaces and back: any whitespace matches any other."""
    return char == written or (char in " \n\t" and written in " \n\t\r")


def sql_offset(sql: str, line: int, column: int) -> int:
    """0-based index in `sql` of 1-based (line, column), as sqlglot reports them."""
    index = 0
    for _ in range(max(line, 1) - 1):
        found = sql.find("\n", index)
        if found < 0:
            break
        index = found + 1
    return min(index + max(column, 1) - 1, max(len(sql) - 1, 0))
