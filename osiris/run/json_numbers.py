"""JSON numbers from an API, exactly (docs/types.md, "From a JSON API").

Python reads a JSON number with a fraction or an exponent as a double, and DuckDB's `read_json`
infers DOUBLE for an integer beyond BIGINT: `1234567890.123456789` would arrive as
`1234567890.1234567`, `12345678901234567890123` as `1.2345678901234568e+22`. Here:

- `parse_float` keeps a number a double does not hold exactly (its shortest text is another value)
  as `WideNumber`, a float that remembers its text. Integers stay Python's exact ints.
- `spool_form` writes a record for the NDJSON spool: a wide number (a `WideNumber`, or an integer
  outside BIGINT) at the top of a record becomes a marked string of its exact text, and names its
  column; inside a nested value it becomes a plain string of its exact digits (a STRUCT field has
  no type that would hold it).
- `settle_columns` gives each named column, read by DuckDB as JSON (which tells a marked string
  from a number), the type that holds every value: HUGEINT for integers up to 38 digits,
  DECIMAL(p,s) up to 38 digits, else VARCHAR holding the exact text. A column that also holds text
  or objects stays JSON, its wide numbers as strings of their exact digits.
"""

from __future__ import annotations

import secrets
from collections.abc import Mapping
from decimal import Decimal, InvalidOperation
from typing import TYPE_CHECKING

from osiris.oml.values import Value
from osiris.run.decimal_fit import column_texts, holding_type

if TYPE_CHECKING:
    import duckdb

BIGINT_MIN, BIGINT_MAX = -(1 << 63), (1 << 63) - 1
_MARK = f"osiris-number-{secrets.token_hex(8)}:"  # no API text holds it: a random token, new each process
_read = {"wide": 0}  # how many wide numbers this process has parsed: records are walked only after one


class WideNumber(float):
    """A JSON number a double does not hold exactly: the nearest double, and the number's `text`."""

    text: str

    def __new__(cls, text: str) -> WideNumber:
        number = super().__new__(cls, text)
        number.text = text
        return number


def parse_float(text: str) -> float:
    """`json.loads`'s parse_float: a float, or a WideNumber when its text is not the double's value."""
    if len(text) <= 15 and "e" not in text and "E" not in text:  # 15 digits always survive a double
        return float(text)
    value = float(text)
    if repr(value) == text:  # the shortest text of a double, as most APIs write them
        return value
    try:
        if Decimal(repr(value)) == Decimal(text):
            return value
    except InvalidOperation:  # inf: the number is beyond a double
        pass
    _read["wide"] += 1
    return WideNumber(text)


def parse_integer(digits: str) -> int:
    """`json.loads`'s parse_int (for digits Python converts): an int, counted when beyond BIGINT."""
    value = int(digits)
    if len(digits) > 18 and not BIGINT_MIN <= value <= BIGINT_MAX:  # 18 digits always fit
        _read["wide"] += 1
    return value


def _is_wide(value: Value) -> bool:
    if isinstance(value, WideNumber):
        return True
    return type(value) is int and not BIGINT_MIN <= value <= BIGINT_MAX


def _exact_text(value: Value) -> str:
    return value.text if isinstance(value, WideNumber) else str(value)


def _nested(value: Value) -> Value:
    """A nested value with each wide number as a JSON string of its exact digits."""
    if isinstance(value, Mapping):
        return {key: _nested(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_nested(item) for item in value]
    return _exact_text(value) if _is_wide(value) else value


def spool_form(record: Mapping[str, Value]) -> tuple[Mapping[str, Value], set[str]]:
    """The record as the spool writes it (pass it to `dumps`), and the top-level columns that hold a
    wide number. The record itself when no wide number has been parsed in this process."""
    if not _read["wide"]:
        return record, set()
    wide: set[str] = set()
    form: dict[str, Value] = {}
    for key, value in record.items():
        if _is_wide(value):
            wide.add(key)
            form[key] = _MARK + _exact_text(value)
        elif isinstance(value, (Mapping, list)):
            form[key] = _nested(value)
        else:
            form[key] = value
    return form, wide


def settle_columns(con: duckdb.DuckDBPyConnection, table: str, names: list[str]) -> None:
    """Give each named column of `table` (read as JSON) the type that holds all its numbers exactly;
    a column that also holds text or objects stays JSON, its wide numbers as strings of their digits."""
    quoted_table = _quote(table)
    present = {str(row[0]) for row in con.execute(f"DESCRIBE {quoted_table}").fetchall()}
    for name in names:
        if name not in present:  # the records' keys made no column of it (DuckDB read them as one map)
            from osiris.run.problems import value_problem

            raise value_problem(name, "holds numbers too wide for a double, and the records' keys (an empty or "
                                      "duplicate one) made DuckDB read them as one map, where they cannot stay exact",
                                "select the fields you need in the API request, or read the records from a "
                                "data_path whose keys are plain names")
        column = _quote(name)
        text = f"replace(json_extract_string({column}, '$'), '{_MARK}', '')"
        kind = holding_type((_number_text(t) for t in column_texts(con, quoted_table, column)), whole="HUGEINT")
        if kind is None:
            kind, text = "JSON", (f"CASE WHEN starts_with(json_extract_string({column}, '$'), '{_MARK}') "
                                  f"THEN to_json({text}) ELSE {column} END")
        con.execute(f"ALTER TABLE {quoted_table} ALTER {column} TYPE {kind} USING CAST({text} AS {kind})")
        if kind == "VARCHAR":  # numbers as text: a created PostgreSQL column is `numeric` (osiris.run.spool.Column)
            con.execute(f"COMMENT ON COLUMN {quoted_table}.{column} IS 'numeric'")


def _number_text(json_text: str) -> str:
    """The number a JSON text holds (a marked string's digits, or a number as written); "" for another value."""
    marked = '"' + _MARK
    if json_text.startswith(marked):
        return json_text[len(marked):-1]
    return json_text if json_text[:1] in ("-", *"0123456789") else ""


def _quote(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'
