"""Numbers a `filesystem.csv_extractor` reads arrive exactly as the file holds them.

DuckDB's sniffer reads a column of numbers with a fraction or an exponent as DOUBLE, which holds
15 to 17 significant digits: `12345678901234567890.123456789` would arrive as 1.2345678901234567e+19.
So each column the sniffer makes DOUBLE stays DOUBLE only when every value is one a double holds
exactly (at most 15 significant digits, or the very text DuckDB writes for that double, as Osiris's
own CSV files hold it, or NaN or infinity); otherwise it becomes the DECIMAL(p,s) that holds every
value, or, wider than 38 digits, the exact text (VARCHAR), which a numeric column of a database
takes exactly. docs/types.md.

`read_exactly` does it in one pass where it can (ADR 0166): the file is read with those columns as
text, each value checked and cast to DOUBLE as the table is made. Only when a value fails the check
(or the read fails at all, or a row limit means the table would not see every value) does it take
the two passes: the checks over the whole file first (`exact_number_types`), then the read with the
types they found, which also reports a bad value the way it always has.

The file is sniffed once (ADR 0205): DuckDB's `sniff_csv` gives its dialect and column types, and
the one-pass read names them (`auto_detect = false`), so neither the read nor any later bind of a
view over it (a fused read, osiris.run.fused) sniffs the file again. The two passes, which only a
failing or row-limited read takes, sniff as they always did, and so report a bad value as before.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from typing import TYPE_CHECKING, Protocol

from osiris.run.csv_output import literal
from osiris.run.spool import quote_ident

if TYPE_CHECKING:
    import duckdb

INEXACT = "osiris-inexact"  # the error of a value the one-pass read finds a double does not hold
_DOUBLES = ("DOUBLE", "FLOAT")
_SPECIAL = "('nan', '-nan', '+nan', 'inf', '-inf', '+inf', 'infinity', '-infinity', '+infinity')"
_EMPTY = "(empty)"  # sniff_csv's word for no quote, escape, comment or line end


class ReadOptions(Protocol):
    """read_csv's options for a step (`, name = value, ...`): `types` for some columns, or with
    `sniffed`, the options of a read that does not sniff (`Sniffed.options`), whose columns carry the types."""

    def __call__(self, types: Mapping[str, str], sniffed: Mapping[str, str] | None = None) -> str: ...


class Sniffed:
    """DuckDB's one sniff of a file: its columns and types, and the options that read it again as sniffed."""

    def __init__(self, columns: list[tuple[str, str]], dialect: dict[str, str]) -> None:
        self.columns, self.dialect = columns, dialect

    def options(self, types: Mapping[str, str]) -> dict[str, str]:
        """read_csv options (SQL each) that read the file without sniffing it, `types` overriding some columns'."""
        listed = ", ".join(f"{literal(name)}: {literal(types.get(name, kind))}" for name, kind in self.columns)
        return {**self.dialect, "auto_detect": "false", "columns": "{" + listed + "}"}


def sniff(con: duckdb.DuckDBPyConnection, source: str, options: ReadOptions) -> Sniffed | None:
    """The file's dialect and columns, as `read_csv(source{options({})})` would sniff them; None when
    sniff_csv cannot say (an empty file, a broken one): the caller then reads as before, sniffing."""
    from osiris.duckdb_core import duckdb

    try:
        row = con.execute("SELECT Quote, Escape, NewLineDelimiter, Comment, SkipRows, Columns, DateFormat, TimestampFormat "
                          f"FROM sniff_csv({source}{options({})})").fetchone()
    except duckdb.Error:
        return None
    assert row is not None  # sniff_csv: one row
    quote, escape, new_line, comment, skip, columns, date_format, timestamp_format = row
    dialect = {"quote": literal("" if quote == _EMPTY else str(quote)),
               "escape": literal("" if escape == _EMPTY else str(escape)),
               "comment": literal("" if comment == _EMPTY else str(comment)), "skip": str(int(skip))}
    if new_line != _EMPTY:
        dialect["new_line"] = literal(str(new_line))
    if date_format is not None:
        dialect["dateformat"] = literal(str(date_format))
    if timestamp_format is not None:
        dialect["timestampformat"] = literal(str(timestamp_format))
    return Sniffed([(str(column["name"]), str(column["type"])) for column in columns], dialect)


def read_exactly(con: duckdb.DuckDBPyConnection, table: str, source: str, options: ReadOptions, limit: str,
                 typed: Collection[str]) -> None:
    """CREATE TABLE `table` (quoted) from `read_csv(source{options(types)})`, every number exact
    (above); `typed`: the columns the step gives a dtype, which keep it unchecked."""
    from osiris.duckdb_core import duckdb

    sniffed = sniff(con, source, options)
    _, doubles, checked = _checked_read(con, source, options, typed, sniffed)
    if not limit and (doubles or sniffed is not None):
        try:
            con.execute(f"CREATE OR REPLACE TABLE {table} AS {checked}")
            return
        except duckdb.Error:
            pass  # a number a double does not hold, or a value that is no number: the two passes say which
    found = exact_number_types(con, source, options({}), list(doubles))
    con.execute(f"CREATE OR REPLACE TABLE {table} AS SELECT * FROM read_csv({source}{options(found)}){limit}")


def exact_view(con: duckdb.DuckDBPyConnection, view: str, source: str, options: ReadOptions,
               typed: Collection[str]) -> list[tuple[str, str]]:
    """CREATE VIEW `view` (quoted) over the file: the one-pass read above, run by whatever query reads
    the view (a read fused into its transform, osiris.run.fused); its columns and types. A number a
    double does not hold fails that query with INEXACT; the caller then reads the file into a table."""
    columns, _, checked = _checked_read(con, source, options, typed, sniff(con, source, options))
    con.execute(f"CREATE OR REPLACE VIEW {view} AS {checked}")
    return columns  # a double checked is still a DOUBLE


def _checked_read(con: duckdb.DuckDBPyConnection, source: str, options: ReadOptions, typed: Collection[str],
                  sniffed: Sniffed | None) -> tuple[list[tuple[str, str]], dict[str, str], str]:
    """The file's columns and types, its sniffed DOUBLE columns the step does not type, and the SELECT
    that reads the file (as sniffed once, where sniff_csv can say), those columns as text, each value
    checked and cast (`_checked`)."""
    columns = sniffed.columns if sniffed is not None else [
        (str(row[0]), str(row[1])) for row in con.execute(f"DESCRIBE SELECT * FROM read_csv({source}{options({})})").fetchall()]
    doubles = {name: kind for name, kind in columns if kind in _DOUBLES and name not in typed}
    as_text = dict.fromkeys(doubles, "VARCHAR")
    read = f"read_csv({source}{options({}, sniffed.options(as_text)) if sniffed is not None else options(as_text)})"
    if not doubles:
        return columns, doubles, f"SELECT * FROM {read}"
    names = [name for name, _ in columns]
    parsed = {name: _unused(f"{name} as double", names) for name in doubles}
    inner = ", ".join([quote_ident(name) for name in names] +
                      [f"TRY_CAST({quote_ident(name)} AS DOUBLE) AS {quote_ident(parsed[name])}" for name in doubles])
    outer = ", ".join(_checked(quote_ident(name), quote_ident(parsed[name]), doubles[name]) if name in doubles
                      else quote_ident(name) for name in names)
    return columns, doubles, f"SELECT {outer} FROM (SELECT {inner} FROM {read})"


def _checked(text: str, number: str, kind: str) -> str:
    """`text` (a column read as text) as `kind`, `number` being its TRY_CAST to DOUBLE, computed once
    beside it: the number when a double holds it exactly, NULL for NULL, else INEXACT (a value that is
    no number fails too). The first test is `_exact`'s answer for most values, in two comparisons: a
    finite, non-zero number of at most 15 characters (ADR 0205); `_exact` decides the others."""
    value = number if kind == "DOUBLE" else f"CAST({text} AS {kind})"
    return (f"CASE WHEN length({text}) <= 15 AND isfinite({number}) AND {number} <> 0 THEN {value} "
            f"WHEN {number} IS NOT NULL AND {_exact(text)} THEN {value} WHEN {text} IS NULL THEN NULL "
            f"ELSE error('{INEXACT}') END AS {text}")


def _unused(name: str, names: list[str]) -> str:
    while name in names:
        name += "_"
    return name


def exact_number_types(con: duckdb.DuckDBPyConnection, path_literal: str, options: str, doubles: list[str]) -> dict[str, str]:
    """{column: DuckDB type} for those of the sniffed DOUBLE columns `doubles` of
    `read_csv(path{options})` that a double would not carry exactly; empty when every number fits."""
    if not doubles:
        return {}
    text = f"read_csv({path_literal}{options}, all_varchar = true)"
    checks = ", ".join(f"bool_and({_exact(quote_ident(name))})" for name in doubles)
    exact = con.execute(f"SELECT {checks} FROM {text}").fetchone()
    assert exact is not None  # aggregates without GROUP BY: always one row
    wide = [name for name, fits in zip(doubles, exact, strict=True) if fits is False]
    if not wide:
        return {}
    shapes = ", ".join(_shape(quote_ident(name)) for name in wide)
    row = con.execute(f"SELECT {shapes} FROM {text}").fetchone()
    assert row is not None  # aggregates: always one row
    found: dict[str, str] = {}
    for index, name in enumerate(wide):
        plain, whole, scale = row[index * 3: index * 3 + 3]
        digits = int(whole or 0) + int(scale or 0)
        found[name] = f"DECIMAL({max(digits, 1)},{int(scale or 0)})" if plain and digits <= 38 else "VARCHAR"
    return found


def _exact(text: str) -> str:
    """True when a double holds the number `text` exactly; the cheap tests first (CASE stops there)."""
    number = f"TRY_CAST({text} AS DOUBLE)"
    mantissa = f"split_part(lower({text}), 'e', 1)"
    significant = f"length(regexp_replace(regexp_replace({mantissa}, '[^0-9]', '', 'g'), '^0+|0+$', '', 'g'))"
    no_digit = f"NOT regexp_matches({mantissa}, '[1-9]')"
    return (f"CASE WHEN {text} IS NULL THEN true "
            f"WHEN NOT isfinite({number}) THEN lower(trim({text})) IN {_SPECIAL} "
            f"WHEN {number} = 0 THEN {no_digit} "  # 1e-400 is not zero
            f"WHEN length({text}) <= 15 OR CAST({number} AS VARCHAR) = {text} THEN true "  # <= 15 digits; DuckDB's text
            f"ELSE {significant} <= 15 END")


def _shape(text: str) -> str:
    """Three aggregates over a column's text: every value a plain decimal (no exponent, NaN or
    infinity); the most digits before the point; the most after it."""
    plain = f"{text} IS NULL OR regexp_full_match(trim({text}), '[-+]?[0-9]*\\.?[0-9]*')"
    whole = f"length(ltrim(split_part(ltrim(trim({text}), '-+'), '.', 1), '0'))"
    scale = f"length(split_part(trim({text}), '.', 2))"
    return f"bool_and({plain}), max({whole}), max({scale})"
