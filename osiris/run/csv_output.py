"""The bytes a `filesystem.csv_writer` step writes: its spec's options as DuckDB `COPY` options, and
a second pass for what `COPY` cannot write itself.

DuckDB writes UTF-8 only and quotes a forced column's header name with its values. So a file in
utf-16, ascii or latin-1, and a `nonnumeric` file with a header (where every header name is text,
hence quoted, as Python's csv.QUOTE_NONNUMERIC does), are written by `COPY` as UTF-8 beside the
target and then re-encoded in blocks of TRANSCODE_BYTES, never whole in memory.

Quoting (docs/run.md, "CSV files written"):
- `minimal`: DuckDB's own rule: a field is quoted when it holds the delimiter, a quote, a line break
  or `#` (DuckDB's comment character); a leading or trailing space is not quoted;
- `all`: every field and header name is quoted;
- `nonnumeric`: every field of a column that is not an integer, decimal or floating type (text,
  dates, booleans, ...) is quoted, and every header name.
In every mode NULL is an empty, unquoted field, and an empty string is `""`. Values are written so
that `filesystem.csv_extractor` reads them back the same (docs/types.md): nested values as JSON text,
binary as PostgreSQL's hex text, instants in UTC with `+00`.
"""

from __future__ import annotations

import codecs
import re
from collections.abc import Iterator
from pathlib import Path

from osiris.oml.values import Config
from osiris.problems import RuntimeProblem, unencodable_problem
from osiris.run.drivers.sql_types import is_nested
from osiris.run.fields import flag, text
from osiris.run.spool import quote_ident
from osiris.trust.duckdb_sql import literal as literal  # re-exported: drivers quote with it

TRANSCODE_BYTES = 1 << 20
NEWLINES = {"lf": "\n", "crlf": "\r\n"}
_PYTHON_CODECS = {"utf-8": "utf-8", "utf-16": "utf-16-le", "ascii": "ascii", "latin-1": "latin-1"}
_NUMERIC = re.compile(r"(U?(TINY|SMALL|BIG|HUGE)?INT(EGER)?|FLOAT|DOUBLE|REAL|DECIMAL(\(.*\))?)")


class CsvFormat:
    """A writer step's config (validated against its spec): what COPY is told, and whether a second
    pass is needed."""

    def __init__(self, config: Config, columns: list[tuple[str, str]]) -> None:
        self.delimiter = text(config, "delimiter")
        self.header = flag(config, "header")
        self.newline = NEWLINES[text(config, "newline").lower()]
        self.quoting = text(config, "quoting").lower()
        self.encoding = text(config, "encoding").lower()
        self.columns = columns

    @property
    def own_header(self) -> bool:
        """A `nonnumeric` header quotes every name; DuckDB would quote only the forced columns'."""
        return self.header and self.quoting == "nonnumeric"

    @property
    def second_pass(self) -> bool:
        return self.own_header or self.encoding != "utf-8"

    def copy_options(self) -> str:
        parts = ["FORMAT csv", f"HEADER {'true' if self.header and not self.own_header else 'false'}",
                 f"DELIMITER {literal(self.delimiter)}"]
        if self.newline != "\n":
            parts.append("NEW_LINE '\\r\\n'")
        if self.quoting == "all":
            parts.append("FORCE_QUOTE *")
        quoted = [name for name, kind in self.columns if not _NUMERIC.fullmatch(kind.upper())]
        if self.quoting == "nonnumeric" and quoted:
            parts.append("FORCE_QUOTE (" + ", ".join(quote_ident(name) for name in quoted) + ")")
        return ", ".join(parts)

    def select_list(self) -> str:
        """The columns as COPY writes them: nested values as JSON text, binary as `\\x` and hex
        digits (PostgreSQL's bytea text), instants in UTC; the rest as DuckDB writes them."""
        parts = []
        for name, kind in self.columns:
            shown = quote_ident(name)
            if is_nested(kind):
                shown = f"to_json({shown})"
            elif kind == "BLOB":
                shown = f"'\\x' || lower(hex({shown}))"
            elif kind == "TIMESTAMP WITH TIME ZONE":
                shown = (f"CASE WHEN isinf({shown}) THEN CAST({shown} AS VARCHAR) "
                         f"ELSE CAST(timezone('UTC', {shown}) AS VARCHAR) || '+00' END")
            parts.append(f"{shown} AS {quote_ident(name)}" if shown != quote_ident(name) else shown)
        return ", ".join(parts)

    def header_line(self) -> str:
        return self.delimiter.join(quote_ident(name) for name, _ in self.columns) + self.newline

    def finish(self, written: Path, target: Path) -> None:
        """Re-encode COPY's UTF-8 file `written` into `target`, the header first when it is ours."""
        codec = _PYTHON_CODECS[self.encoding]
        line = 1
        with open(target, "wb") as out:
            if self.encoding == "utf-16":
                out.write(codecs.BOM_UTF16_LE)  # what Python's and pandas' "utf-16" write, on any machine
            for text in _texts(written, self.header_line() if self.own_header else None):
                try:
                    out.write(text.encode(codec))
                except UnicodeEncodeError as error:
                    raise self._unencodable(text, error.start, line) from None
                line += text.count("\n")

    def _unencodable(self, text: str, at: int, line: int) -> RuntimeProblem:
        char = text[at]
        return unencodable_problem(self.encoding, char, line + text.count(chr(10), 0, at))


def _texts(path: Path, header: str | None) -> Iterator[str]:
    if header is not None:
        yield header
    decoder = codecs.getincrementaldecoder("utf-8")()
    with open(path, "rb") as raw:
        while block := raw.read(TRANSCODE_BYTES):
            yield decoder.decode(block)
    yield decoder.decode(b"", final=True)
