"""Read an API's JSON body, and write one record as a line of JSON, for what real APIs send.

Python's json module reads any JSON text, but some of it then fails later with an error that says
nothing to a person: an integer longer than Python converts (4,300 digits), nesting deeper than
the interpreter's recursion limit, and a lone escaped surrogate (`"\\ud800"`, which is not Unicode
and which no UTF-8 file can hold). Here each is either kept (the long integer arrives as its digits,
as text; the lone surrogate as U+FFFD) or is one clear reason (docs/run-http.md, "Records become a
table").
"""

from __future__ import annotations

import json
import re
import sys

from osiris.oml.values import Value
from osiris.run.json_numbers import parse_float
from osiris.run.json_numbers import parse_integer as exact_integer

LONG_INTEGER_DIGITS = 4300  # Python's default int_max_str_digits
_SURROGATE = re.compile("[\ud800-\udfff]")


class JsonTextError(Exception):
    """A body that cannot be read as JSON; `what` says why when it is more than "not JSON"."""

    def __init__(self, what: str | None = None, hint: str | None = None) -> None:
        super().__init__(what or "not JSON")
        self.what = what
        self.hint = hint

    def reason(self, content_type: str) -> str:
        return self.what or f"the body is not JSON ({content_type})"


def parse_integer(digits: str) -> int | str:
    """An integer as Python's int, or as its digits when it is too long for one."""
    if len(digits) < 19:  # within BIGINT, and far from the longest int Python reads
        return int(digits)
    if len(digits.lstrip("-")) > LONG_INTEGER_DIGITS:
        return digits
    return exact_integer(digits)


def parse_json(data: bytes) -> Value:
    """The JSON value of `data` (UTF-8, or UTF-16/32 with their byte order); JsonTextError otherwise."""
    try:
        value: Value = json.loads(data, parse_int=parse_integer, parse_float=parse_float)  # JSON's values only
        return value
    except RecursionError:
        raise JsonTextError(f"the body nests deeper than Osiris reads (about {sys.getrecursionlimit():,} levels)",
                            "Ask the API for flatter records, or for fewer fields.") from None
    except ValueError:  # JSONDecodeError and UnicodeDecodeError
        raise JsonTextError() from None


def record_line(record: object) -> str:
    """One record as a line of JSON for the spool. Raises JsonTextError for a record nested
    deeper than the JSON encoder goes."""
    try:
        return json.dumps(record, ensure_ascii=False, default=str)
    except RecursionError:
        raise JsonTextError("a record nests deeper than Osiris reads") from None


def without_surrogates(text: str) -> str:
    """`text` with each lone surrogate (which UTF-8 cannot hold) as U+FFFD."""
    return _SURROGATE.sub("\ufffd", text)
