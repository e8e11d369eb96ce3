"""What a run may tell (docs/security.md, "What a run tells"): codes, step ids, column names, types
and counts; never a cell value, a file's contents, or a secret, whole or in part.

A database's or DuckDB's error text often quotes the value that failed ("Could not convert string
'root:x:0:0:root' to INT32"). Such a text reaches the terminal, the session trail and, from a dry
run, the LLM; `withhold_values` takes the values out and keeps the words, the names and the types,
and `conversion_problem` says which column and which type instead. Every text is redacted first and
cut after (`shorten`): cutting first would leave the head of a secret that the redactor no longer
recognises.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from osiris.trust.engine_words import filtered

WITHHELD = "(value withheld)"
DUCKDB_TYPES = {"INT8": "TINYINT", "INT16": "SMALLINT", "INT32": "INTEGER", "INT64": "BIGINT", "INT128": "HUGEINT",
                "UINT8": "UTINYINT", "UINT16": "USMALLINT", "UINT32": "UINTEGER", "UINT64": "UBIGINT",
                "FLOAT": "FLOAT", "DOUBLE": "DOUBLE", "BOOL": "BOOLEAN"}
_CONVERT = re.compile(r"""[Cc]ould not convert string (['"]).*\1 to '?(?P<type>[A-Za-z0-9_()]+)'?""")
_CAST_VALUE = re.compile(r"Type (?P<source>\w+) with value .*? can't be cast(?P<rest>.*?destination type (?P<type>\w+))?")
_CSV_LINE = re.compile(r"CSV Error on Line: (\d+)")
_SOURCE_COLUMN = re.compile(r'converting column "(?P<column>.+?)"\. |source column (?P<bare>[^\n]+)')  # names whole
_WITHHELD_SHAPES = (
    (_CONVERT, lambda m: f"could not convert a value to {_type(m['type'])}"),
    (_CAST_VALUE, lambda m: f"a {_type(m['source'])} value can't be cast{m['rest'] or ''}"),
    (re.compile(r"(Duplicate (?:entry|key)) (['\"]).*?\2"), lambda m: f"{m[1]} {WITHHELD}"),
    (re.compile(r"\(([^()]*)\)=\((?:[^()]|\([^()]*\))*\)"), lambda m: f"({m[1]})={WITHHELD}"),
    (re.compile(r"(Failing row contains) \(.*\)"), lambda m: f"{m[1]} (values withheld)"),
    (re.compile(r"(: |value |string )(['\"]).*?\2(?=$|[\s,;.)])"), lambda m: f"{m[1]}{WITHHELD}"),
)


def withhold_values(text: str) -> str:
    """`text` with the values a database error quotes taken out: conversions, duplicate keys,
    `Key (id)=(5)`, failing rows, and a quoted text after a colon (`invalid input syntax for type
    integer: "abc"`). Names in quotes elsewhere (`column "emial" does not exist`) stay."""
    for pattern, replace in _WITHHELD_SHAPES:
        text = pattern.sub(replace, text)
    return text


def conversion_problem(text: str) -> str:
    """A DuckDB conversion error (its whole text) as names and types: `column 'amount' holds a value
    that does not convert to INTEGER; the value is withheld`, with the column and a CSV file's line
    when DuckDB names them. Inside a run, the column's name and any other text of the engine's keep
    only known words (osiris.trust.engine_words)."""
    kind = _CONVERT.search(text) or _CAST_VALUE.search(text)
    if not kind:
        return filtered(withhold_values((text.strip().splitlines() or [""])[0]))
    column = _SOURCE_COLUMN.search(text)
    line = _CSV_LINE.search(text)  # a position in the file, never a value
    holder = f"column '{filtered(column['column'] or column['bare'])}'" if column else "a column"
    target = f" to {filtered(_type(kind['type']))}" if kind["type"] else ""
    where = f" (line {line[1]} of the file)" if line else ""
    return f"{holder} holds a value that does not convert{target}{where}; the value is withheld"


def shorten(text: str, limit: int, redact: Callable[[str], str] = lambda text: text) -> str:
    """`text` redacted, then cut to `limit` characters with an ellipsis: never the other way round."""
    shown = redact(text)
    return shown if len(shown) <= limit else shown[: max(limit - 1, 0)] + "…"


def _type(name: str) -> str:
    return DUCKDB_TYPES.get(name.upper(), name.upper())
