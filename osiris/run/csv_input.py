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
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping
from typing import TYPE_CHECKING

from osiris.run.spool import quote_ident

if TYPE_CHECKING:
    import duckdb

INEXACT = "osiris-inexact"  # the error of a value the one-pass read finds a double does not hold
_DOUBLES = ("DOUBLE", "FLOAT")
_SPECIAL = "('nan', '-nan', '+nan', 'inf', '-inf', '+inf', 'infinity', '-infinity', '+infinity')"


def read_exactly(con: duckdb.DuckDBPyConnection, table: str, source: str, options: Callable[[Mapping[str, str]], str], limit: str,
                 typed: Collection[str]) -> None:
    """CREATE TABLE `table` (quoted) from `read_csv(source{options(types)})`, every number exact
    (above); `typed`: the columns the step gives a dtype, which keep it unchecked."""
    import duckdb

    doubles, checked = _checked_read(con, source, options, typed)
    if doubles and not limit:
        try:
            con.execute(f"CREATE OR REPLACE TABLE {table} AS {checked}")
            return
        except duckdb.Error:
            pass  # a number a double does not hold, or a value that is no number: the two passes say which
    found = exact_number_types(con, source, options({}), list(doubles))
    con.execute(f"CREATE OR REPLACE TABLE {table} AS SELECT * FROM read_csv({source}{options(found)}){limit}")


def exact_view(con: duckdb.DuckDBPyConnection, view: str, source: str, options: Callable[[Mapping[str, str]], str],
               typed: Collection[str]) -> list[tuple[str, str]]:
    """CREATE VIEW `view` (quoted) over the file: the one-pass read above, run by whatever query reads
    the view (a read fused into its transform, osiris.run.fused); its columns and types. A number a
    double does not hold fails that query with INEXACT; the caller then reads the file into a table."""
    described: list[tuple[object, ...]] = []
    con.execute(f"CREATE OR REPLACE VIEW {view} AS {_checked_read(con, source, options, typed, described)[1]}")
    return [(str(row[0]), str(row[1])) for row in described]  # a double checked is still a DOUBLE


def _checked_read(con: duckdb.DuckDBPyConnection, source: str, options: Callable[[Mapping[str, str]], str],
                  typed: Collection[str], described: list[tuple[object, ...]] | None = None) -> tuple[dict[str, str], str]:
    """The sniffed DOUBLE columns, and the SELECT that reads them as text, checks and casts them;
    `described` receives DuckDB's description of the file."""
    described = described if described is not None else []
    described += con.execute(f"DESCRIBE SELECT * FROM read_csv({source}{options({})})").fetchall()
    doubles = {str(name): str(kind) for name, kind, *_ in described if str(kind) in _DOUBLES and name not in typed}
    columns = ", ".join(f"CAST(CASE WHEN {_exact(quote_ident(n))} THEN {quote_ident(n)} ELSE error('{INEXACT}') "
                        f"END AS {doubles[n]}) AS {quote_ident(n)}" if n in doubles else quote_ident(n)
                        for n in (str(row[0]) for row in described))
    return doubles, f"SELECT {columns} FROM read_csv({source}{options(dict.fromkeys(doubles, 'VARCHAR'))})"


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
