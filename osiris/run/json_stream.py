"""Records from a large JSON body on disk, one at a time, so that memory holds one record.

A body larger than the client keeps in memory (osiris.run.http, SPILL_BYTES) is on disk. Python's
json module has no streaming reader, but `JSONDecoder.raw_decode` reads one value from a position
in a string, at C speed. `JsonText` walks the document with it over a sliding window of the file's
text: it steps into the objects on a dotted path by their keys (skipping other members whole) and
then yields each item of the list found there, reading more of the file only when a value runs
past the window. The window is dropped behind the reader, so memory is the largest single value
read (a record is at most 8 MiB; a skipped sibling as large as it is).

Used by the rest and graphql extractors for large pages; a small body is parsed whole as before.
"""

from __future__ import annotations

import codecs
import json
import re
from collections.abc import Iterator
from enum import Enum
from typing import IO, Final

from osiris.oml.values import Value
from osiris.run.json_numbers import parse_float
from osiris.run.json_text import JsonTextError, parse_integer

CHUNK = 1 << 20
NEAR_END = 64  # an error this close to the window's end may be a value cut by it (`tr|ue`)
_SPACE = re.compile(r"[ \t\n\r]*")
class Missing(Enum):
    """What value_at gives when the path leads nowhere (JSON's null is None, a value)."""

    MISSING = "missing"


missing: Final = Missing.MISSING


class JsonText:
    """A JSON document read from a binary file, forwards only."""

    def __init__(self, file: IO[bytes]) -> None:
        file.seek(0)
        self._file = file
        self._decode = codecs.getincrementaldecoder("utf-8")().decode
        self._decoder = json.JSONDecoder(parse_int=parse_integer, parse_float=parse_float)
        self._text, self._at, self._ended = "", 0, False

    def records(self, path: str) -> Iterator[Value]:
        """Each item of the list at dotted `path` (an object there is one record); JsonTextError
        when nothing list- or object-shaped is there."""
        if not self._walk(path):
            raise JsonTextError(f"no list at {path or 'the top'}")
        opening = self._peek()
        if opening == "{":
            yield self._value()
            return
        if opening != "[":
            raise JsonTextError(f"no list at {path or 'the top'}")
        self._at += 1
        if self._peek() == "]":
            return
        while True:
            yield self._value()
            separator = self._peek()
            self._at += 1
            if separator == "]":
                return
            if separator != ",":
                raise JsonTextError()

    def value_at(self, path: str) -> Value | Missing:
        """The value at dotted `path` (a cursor, a pageInfo object), or `missing`."""
        return self._value() if self._walk(path) else missing

    def keys(self) -> list[str] | None:
        """The top-level keys of an object body (values skipped), or None for another body."""
        if self._peek() != "{":
            return None
        self._at += 1
        names: list[str] = []
        while self._peek() != "}":
            names.append(str(self._value()))
            if self._peek() != ":":
                raise JsonTextError()
            self._at += 1
            self._value()
            if self._peek() == ",":
                self._at += 1
        return names

    def _walk(self, path: str) -> bool:
        """Move to the value at `path`; False when the document has none there."""
        for part in [p for p in path.split(".") if p]:
            opening = self._peek()
            self._at += 1
            if opening == "{" and self._member(part):
                continue
            if opening == "[" and part.isdigit() and self._item(int(part)):
                continue
            return False
        return True

    def _member(self, key: str) -> bool:
        """Inside an object: move to the value of `key`, skipping the other members."""
        while self._peek() != "}":
            name = self._value()
            if self._peek() != ":":
                raise JsonTextError()
            self._at += 1
            if name == key:
                return True
            self._value()  # another member's value, read and dropped
            if self._peek() == ",":
                self._at += 1
        return False

    def _item(self, index: int) -> bool:
        """Inside a list: move to item `index`, skipping the ones before it."""
        for _ in range(index):
            if self._peek() == "]":
                return False
            self._value()
            if self._peek() == ",":
                self._at += 1
        return self._peek() not in ("]", "")

    def _peek(self) -> str:
        """The next character that is not white space ("" at the end)."""
        while True:
            self._at = _SPACE.match(self._text, self._at).end()  # type: ignore[union-attr]
            if self._at < len(self._text) or self._ended:
                return self._text[self._at:self._at + 1]
            self._more()

    def _value(self) -> Value:
        """The JSON value at the reader's position, reading more of the file until it is whole."""
        self._peek()
        value: Value  # what the decoder reads is JSON's: parse_integer and parse_float give int, text or float
        while True:
            try:
                value, end = self._decoder.raw_decode(self._text, self._at)
            except RecursionError:
                raise JsonTextError("the body nests deeper than Osiris reads") from None
            except json.JSONDecodeError as error:
                if self._ended or not self._maybe_cut(error):
                    raise JsonTextError() from None
                self._more()
                continue
            if end == len(self._text) and not self._ended:  # a number may go on in the next chunk
                self._more()
                continue
            self._at = end
            return value

    def _maybe_cut(self, error: json.JSONDecodeError) -> bool:
        """Whether a decoding error may only mean that the value goes on past the window."""
        return error.msg.startswith("Unterminated string") or error.pos >= len(self._text) - NEAR_END

    def _more(self) -> None:
        """Read the next chunk, dropping the text already read."""
        data = self._file.read(CHUNK)
        self._text = self._text[self._at:] + self._decode(data, final=not data)
        self._at = 0
        self._ended = not data
