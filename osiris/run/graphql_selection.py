"""The columns a GraphQL query selects at a data_path, read from the query's text alone: what an
empty answer's table is made of when no record came to show them (docs/run-http.md).

    columns_at("query { items(first: 5) { nodes { id label: name } } }", "data.items.nodes", flat=True)
    # ["id", "label"]

A record's keys are the response keys (alias, else the field's name) of the selection at
data_path, the `data` of the answer being the operation's own selection; a list index in the path
(`data.items.0`) stands for each item. Named fragments are spread where they are used and inline
fragments merged in, each field once: the columns are every field the query can select there
(`@skip` and `@include` are not evaluated). When the columns cannot be told, `Unknowable` says why:
the query cannot be read, data_path leaves its selection, or, with flatten_result, a field with a
sub-selection may be an object (its fields become columns, `owner_login`) or a list (one column,
`owner`), which only the answer shows.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

_TOKEN = re.compile(r'"""(?:\\"""|.)*?"""|"(?:\\.|[^"\\\n])*"|\.\.\.|[_A-Za-z][_0-9A-Za-z]*|-?[0-9][0-9.eE+-]*'
                    r"|[!$&()\:=@\[\]{|}]", re.DOTALL)
_IGNORED = re.compile(r"(?:[\s,\ufeff]|#[^\n\r]*)+")


class Unknowable(Exception):
    """The columns at data_path cannot be told from the query; the message says why."""


@dataclass
class Selection:
    """Response keys in the order the query names them; each with its sub-selection, or None (a leaf)."""

    fields: dict[str, Selection | None] = field(default_factory=dict)

    def add(self, key: str, sub: Selection | None) -> None:
        """Merge a field as GraphQL merges fields of one response key."""
        known = self.fields.get(key)
        if key not in self.fields or known is None:
            self.fields[key] = sub
        elif sub is not None:
            for name, inner in sub.fields.items():
                known.add(name, inner)


def columns_at(query: str, data_path: str, *, flat: bool) -> list[str]:
    """The columns of the records at `data_path` (Unknowable when the query cannot tell)."""
    selection = _Parser(query).operation()
    parts = [part for part in data_path.split(".") if part]
    if not parts or parts[0] != "data":
        raise Unknowable(f"data_path '{data_path}' does not start at the answer's data")
    current: Selection | None = selection
    for part in parts[1:]:
        if part.isdigit():
            continue  # an index into a list: each item has the same selection
        if current is None or part not in current.fields:
            raise Unknowable(f"data_path '{data_path}' leaves the query's selection at '{part}'")
        current = current.fields[part]
    if current is None:
        return ["value"]  # a list of scalars: each record is {"value": item} (osiris.run.json_records)
    columns = _columns(current, flat)
    seen: dict[str, str] = {}
    for name in columns:
        if name.lower() in seen:
            raise Unknowable(f"fields '{seen[name.lower()]}' and '{name}' differ only by case, which the "
                             "engine's columns cannot tell apart")
        seen[name.lower()] = name
    return columns


def _columns(selection: Selection, flat: bool) -> list[str]:
    columns = []
    for key, sub in selection.fields.items():
        if sub is not None and flat:
            raise Unknowable(f"'{key}' has a sub-selection, and with flatten_result it becomes columns "
                             f"({key}_...) if the API answers an object, one column ({key}) if it answers a list")
        columns.append(key)
    return columns


class _Parser:
    """A GraphQL executable document, read as far as its selections: arguments, variables' types
    and directives are skipped, their values never looked at."""

    def __init__(self, text: str) -> None:
        self.tokens = _tokens(text)
        self.at = 0
        self.fragments: dict[str, int] = {}  # name -> where its selection set starts

    def operation(self) -> Selection:
        """The selection of the document's one operation, with its fragments spread."""
        starts = []
        while self.at < len(self.tokens):
            if self.peek() == "fragment":
                self.at += 1
                name = self.take()
                self.expect("on")
                self.take()
                self.skip_directives()
                self.fragments[name] = self.at
                self.skip_block()
                continue
            if self.peek() in ("query", "mutation", "subscription"):
                self.at += 1
                if self.peek() not in ("(", "@", "{"):
                    self.take()  # the operation's name
                if self.peek() == "(":
                    self.skip_block()
                self.skip_directives()
            starts.append(self.at)
            self.skip_block()
        if len(starts) != 1:
            raise Unknowable(f"the query holds {len(starts)} operations, and the step sends no operation name"
                             if starts else "the query holds no operation")
        self.at = starts[0]
        return self.selection(frozenset())

    def selection(self, spreading: frozenset[str]) -> Selection:
        self.expect("{")
        selection = Selection()
        while self.peek() != "}":
            self.selection_item(selection, spreading)
        self.at += 1
        return selection

    def selection_item(self, selection: Selection, spreading: frozenset[str]) -> None:
        if self.peek() == "...":
            self.at += 1
            if self.peek() in ("on", "@", "{"):
                if self.peek() == "on":
                    self.at += 2
                self.skip_directives()
                self._merge(selection, self.selection(spreading))
            else:
                self._merge(selection, self.fragment(self.take(), spreading))
                self.skip_directives()
            return
        key = self.name()
        if self.peek() == ":":
            self.at += 1
            self.name()  # the field's name; the response key is the alias
        if self.peek() == "(":
            self.skip_block()
        self.skip_directives()
        selection.add(key, self.selection(spreading) if self.peek() == "{" else None)

    def fragment(self, name: str, spreading: frozenset[str]) -> Selection:
        if name in spreading or name not in self.fragments:
            raise Unknowable(f"the fragment '{name}' spreads itself" if name in spreading
                             else f"the fragment '{name}' is not in the query")
        back, self.at = self.at, self.fragments[name]
        selection = self.selection(spreading | {name})
        self.at = back
        return selection

    @staticmethod
    def _merge(into: Selection, other: Selection) -> None:
        for key, sub in other.fields.items():
            into.add(key, sub)

    def skip_directives(self) -> None:
        while self.peek() == "@":
            self.at += 2
            if self.peek() == "(":
                self.skip_block()

    def skip_block(self) -> None:
        """Skip a balanced (...) or {...} from its opening token."""
        opening = self.peek()
        closing = {"(": ")", "{": "}"}.get(opening)
        if closing is None:
            raise Unknowable(f"the query cannot be read: '{opening or 'the end'}' where ( or {{ was expected")
        depth = 0
        while True:
            token = self.take()
            depth += token == opening
            depth -= token == closing
            if depth == 0:
                return

    def name(self) -> str:
        token = self.take()
        if not (token[0].isalpha() or token[0] == "_"):
            raise Unknowable(f"the query cannot be read: '{token}' where a field was expected")
        return token

    def peek(self) -> str:
        return self.tokens[self.at] if self.at < len(self.tokens) else ""

    def take(self) -> str:
        if self.at >= len(self.tokens):
            raise Unknowable("the query cannot be read: it ends inside a selection")
        self.at += 1
        return self.tokens[self.at - 1]

    def expect(self, token: str) -> None:
        if self.take() != token:
            raise Unknowable(f"the query cannot be read: '{self.tokens[self.at - 1]}' where {token} was expected")


def _tokens(text: str) -> list[str]:
    """The query's tokens; strings kept whole (a brace inside one is not a brace)."""
    tokens, at = [], 0
    while at < len(text):
        ignored = _IGNORED.match(text, at)
        if ignored:
            at = ignored.end()
            continue
        token = _TOKEN.match(text, at)
        if token is None:
            raise Unknowable(f"the query cannot be read at character {at + 1}")
        tokens.append(token.group(0))
        at = token.end()
    return tokens
