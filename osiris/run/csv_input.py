"""Numbers a `filesystem.csv_extractor` reads arrive exactly as the file holds them.

DuckDB's sniffer reads a column of numbers with a fraction or an exponent as DOUBLE, which holds
15 to 17 significant digits: `12345678901234567890.123456789` would arrive as 1.2345678901234567e+19.
So before the read, each column the sniffer makes DOUBLE is checked in one pass over its text: it
stays DOUBLE when every value is one a double holds exactly (at most 15 significant digits, or the
very text DuckDB writes for that double, as Osiris's own CSV files hold it, or NaN or infinity);
otherwise it becomes the DECIMAL(p,s) that holds every value, or, wider than 38 digits, the exact
text (VARCHAR), which a numeric column of a database takes exactly. docs/types.md.
"""

from __future__ import annotations

from typing import Any

from osiris.run.spool import quote_ident

_SPECIAL = "('nan', '-nan', '+nan', 'inf', '-inf', '+inf', 'infinity', '-infinity', '+infinity')"


def exact_number_types(con: Any, path_literal: str, options: str) -> dict[str, str]:
    """{column: DuckDB type} for the sniffed DOUBLE columns of `read_csv(path{options})` that a
    double would not carry exactly; empty when every number fits."""
    described = con.execute(f"DESCRIBE SELECT * FROM read_csv({path_literal}{options})").fetchall()
    doubles = [str(row[0]) for row in described if str(row[1]) in ("DOUBLE", "FLOAT")]
    if not doubles:
        return {}
    text = f"read_csv({path_literal}{options}, all_varchar = true)"
    checks = ", ".join(f"bool_and({_exact(quote_ident(name))})" for name in doubles)
    exact = con.execute(f"SELECT {checks} FROM {text}").fetchone()
    wide = [name for name, fits in zip(doubles, exact, strict=True) if fits is False]
    if not wide:
        return {}
    shapes = ", ".join(_shape(quote_ident(name)) for name in wide)
    row = con.execute(f"SELECT {shapes} FROM {text}").fetchone()
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
