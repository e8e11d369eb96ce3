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
    checks = ", ".join(_checks(quote_ident(name)) for name in doubles)
    row = con.execute(f"SELECT {checks} FROM read_csv({path_literal}{options}, all_varchar = true)").fetchone()
    found: dict[str, str] = {}
    for index, name in enumerate(doubles):
        exact, plain, whole, scale = row[index * 4: index * 4 + 4]
        if exact is not False:
            continue
        digits = int(whole or 0) + int(scale or 0)
        found[name] = f"DECIMAL({max(digits, 1)},{int(scale or 0)})" if plain and digits <= 38 else "VARCHAR"
    return found


def _checks(text: str) -> str:
    """Four aggregates over a column's text: every value exact as a double; every value a plain
    decimal (no exponent, NaN or infinity); the most digits before the point; the most after it."""
    number = f"TRY_CAST({text} AS DOUBLE)"
    mantissa = f"split_part(lower({text}), 'e', 1)"
    significant = f"length(regexp_replace(regexp_replace({mantissa}, '[^0-9]', '', 'g'), '^0+|0+$', '', 'g'))"
    exact = (f"{text} IS NULL OR lower(trim({text})) IN {_SPECIAL} OR CAST({number} AS VARCHAR) = {text} "
             f"OR (isfinite({number}) AND {significant} <= 15 AND ({number} <> 0 OR {significant} = 0))")
    plain = f"{text} IS NULL OR regexp_full_match(trim({text}), '[-+]?[0-9]*\\.?[0-9]*')"
    whole = f"length(ltrim(split_part(ltrim(trim({text}), '-+'), '.', 1), '0'))"
    scale = f"length(split_part(trim({text}), '.', 2))"
    return f"bool_and({exact}), bool_and({plain}), max({whole}), max({scale})"
