"""MySQL's and MariaDB's types, both ways (docs/types.md): what PyMySQL's values become in the
engine (DuckDB), and what the engine's columns become in a MySQL table.

Reading, each value arrives exactly: FLOAT as FLOAT (read widened to DOUBLE: the text protocol
prints a FLOAT with six digits; a query that cannot be widened has its FLOAT refused, OML504),
BIGINT UNSIGNED as UBIGINT, DECIMAL wider than 38 digits as its exact text, TIME (negative, or over
24 hours) as an INTERVAL, TIMESTAMP (an instant, read in a UTC session) as TIMESTAMP WITH TIME
ZONE, binary as BLOB, BIT as its number. A zero or partial date (0000-00-00, 2024-00-15), which no
other date type has, stops the read with the row count.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import timedelta
from typing import TYPE_CHECKING

from osiris.run.drivers.sql_types import INFINITE_DATE, LONG_INTERVAL, NOT_A_NUMBER, Refusal, base, is_nested
from osiris.run.problems import inexact_float_problem, value_problem
from osiris.run.spool import Column
from osiris.text_table import duration_text

if TYPE_CHECKING:
    from pymysql.cursors import Cursor

UNSIGNED_FLAG, BINARY_CHARSET = 32, 63
DECIMALS, DATES, INSTANT, TIME, BIT, JSON, GEOMETRY = (0, 246), (7, 10, 12, 14), 7, 11, 16, 245, 255
INTEGERS, FLOATS, TEXTS = (1, 2, 3, 8, 9, 13), (4, 5), (15, 249, 250, 251, 252, 253, 254)
FLOAT = 4  # single precision
_DUCKDB_TO_MYSQL = {"BIGINT": "BIGINT", "INTEGER": "INT", "SMALLINT": "SMALLINT", "TINYINT": "TINYINT",
                    "UBIGINT": "BIGINT UNSIGNED", "UINTEGER": "INT UNSIGNED", "USMALLINT": "SMALLINT UNSIGNED",
                    "UTINYINT": "TINYINT UNSIGNED", "HUGEINT": "DECIMAL(39,0)", "UHUGEINT": "DECIMAL(39,0)",
                    "DOUBLE": "DOUBLE", "FLOAT": "FLOAT", "BOOLEAN": "BOOLEAN", "DATE": "DATE", "TIME": "TIME(6)",
                    "INTERVAL": "TIME(6)", "TIMESTAMP": "DATETIME(6)", "TIMESTAMP WITH TIME ZONE": "DATETIME(6)",
                    "UUID": "CHAR(36)", "VARCHAR": "TEXT", "JSON": "JSON", "BLOB": "LONGBLOB"}
REFUSALS: dict[str, Refusal] = {"DOUBLE": NOT_A_NUMBER, "FLOAT": NOT_A_NUMBER, "DATE": INFINITE_DATE,
                                "TIMESTAMP": INFINITE_DATE, "TIMESTAMP WITH TIME ZONE": INFINITE_DATE,
                                "INTERVAL": LONG_INTERVAL}
Convert = Callable[[object], object]  # a value as PyMySQL gives it -> as the spool writes it
Row = tuple[object, ...]  # a row as PyMySQL gives it


@dataclass(frozen=True)
class Field:
    """What the reader needs of a result's column: PyMySQL's field descriptor packet, whose flags and
    charset `cursor.description` leaves out."""

    name: str
    type_code: int
    flags: int
    charsetnr: int
    length: int
    scale: int

    @classmethod
    def of(cls, packet: object) -> Field:
        """The packet's fields (PyMySQL's FieldDescriptorPacket sets them; its stubs do not name them)."""
        found = vars(packet)
        return cls(str(found["name"]), int(found["type_code"]), int(found["flags"]), int(found["charsetnr"]),
                   int(found["length"]), int(found["scale"]))


def result_fields(cursor: Cursor) -> list[Field]:
    """The fields of the result a cursor just read (PyMySQL's private `cursor._result`)."""
    return [Field.of(packet) for packet in vars(cursor)["_result"].fields]


class ReadColumns:
    """The engine's columns for a result's fields, and each row's values as the spool writes them."""

    def __init__(self, fields: Sequence[Field], floats: set[str] | None = None) -> None:
        """`floats`: the FLOAT columns a query reads widened to DOUBLE (mysql._single_floats)."""
        self._floats = floats or set()
        typed = [self._typed(field) for field in fields]
        self.columns = [column for column, _ in typed]
        self._converts = [convert for _, convert in typed]
        self.zero_dates: Counter[str] = Counter()

    def rows(self, batch: Sequence[Row]) -> Sequence[Row]:
        if not any(self._converts):
            return batch
        converts = self._converts
        return [tuple(v if v is None or f is None else f(v) for f, v in zip(converts, row, strict=True))
                for row in batch]

    def refuse_zero_dates(self) -> None:
        """OML504 after the read when a date column held zero or partial dates (naming how many rows)."""
        for name, count in self.zero_dates.items():
            rows = "1 row" if count == 1 else f"{count:,} rows"
            raise value_problem(name, f"holds a zero or partial date (0000-00-00, 2024-00-15) in {rows}, which no "
                                      "date type outside MySQL has",
                                f"read them as NULL with NULLIF({name}, '0000-00-00') in the step's query (or "
                                f"as text with CAST({name} AS CHAR))")

    def _typed(self, field: Field) -> tuple[Column, Convert | None]:
        name, code = field.name, field.type_code
        unsigned, binary = bool(field.flags & UNSIGNED_FLAG), field.charsetnr == BINARY_CHARSET
        if code in DECIMALS:
            digits = field.length - (1 if field.scale else 0) - (0 if unsigned else 1)  # a display width
            if digits <= 38:
                return Column(name, f"DECIMAL({max(digits, field.scale, 1)},{field.scale})"), None
            return Column(name, "VARCHAR", note="numeric"), _exact_decimal
        if code in DATES:
            return self._date(name, code)
        if code in INTEGERS:
            return Column(name, "UBIGINT" if code == 8 and unsigned else "BIGINT"), None
        if code == FLOAT:  # not widened (mysql._single_floats could not): six digits, never exact
            raise inexact_float_problem(name)
        if code in FLOATS:
            return Column(name, "FLOAT" if name in self._floats else "DOUBLE"), None
        if code == TIME:
            return Column(name, "INTERVAL"), _duration  # MySQL's own text, which DuckDB reads as an INTERVAL
        if code == BIT:
            return Column(name, "UBIGINT"), _bit_number
        if code == GEOMETRY or (code in TEXTS and binary):
            return Column(name, "BLOB", parse="unhex({0})"), _hex
        return Column(name, "JSON" if code == JSON else "VARCHAR"), None

    def _date(self, name: str, code: int) -> tuple[Column, Convert]:
        def checked(value: object) -> object:
            if isinstance(value, str):  # PyMySQL's value for a date it cannot make: 0000-00-00, 2024-00-15
                self.zero_dates[name] += 1
                return None
            return f"{value}+00" if code == INSTANT else value

        kind = {10: "DATE", 14: "DATE", 12: "TIMESTAMP", INSTANT: "TIMESTAMP WITH TIME ZONE"}[code]
        return Column(name, kind), checked


def _exact_decimal(value: object) -> str:
    return format(value, "f")  # the digits as MySQL shows them: never 0E-30


def _duration(value: object) -> str:
    if not isinstance(value, timedelta):  # PyMySQL reads a TIME as a timedelta
        raise TypeError(f"PyMySQL read a TIME as {type(value).__name__}, not a timedelta")
    return duration_text(value)


def _bit_number(value: object) -> int:
    return int.from_bytes(_bytes(value), "big")


def _hex(value: object) -> str:
    return _bytes(value).hex()


def _bytes(value: object) -> bytes:
    if not isinstance(value, bytes):  # PyMySQL reads a BIT and a binary column as bytes
        raise TypeError(f"PyMySQL read a binary value as {type(value).__name__}, not bytes")
    return value


# --- writing -------------------------------------------------------------------------------------

def mysql_type(kind: str, is_key: bool, widest: tuple[int, int] | None = None) -> str:
    """The MySQL column type for an engine column; `widest` (digits before and after the point)
    for a text column a reader noted as numeric: a DECIMAL that holds every value exactly."""
    if kind.startswith("DECIMAL"):
        return kind
    if widest is not None:
        whole, scale = widest
        return f"DECIMAL({max(whole + scale, 1)},{scale})" if whole + scale <= 65 and scale <= 30 else "TEXT"
    found = "JSON" if is_nested(kind) else _DUCKDB_TO_MYSQL.get(kind, "TEXT")
    return "VARCHAR(255)" if found == "TEXT" and is_key else found


def render(name: str, kind: str, target_type: str | None) -> str | None:
    """How an engine column is fetched for PyMySQL to send as MySQL takes it exactly, or None as it is."""
    if kind == "TIMESTAMP WITH TIME ZONE":
        return f"timezone('UTC', {name})"  # the instant in UTC, the session's zone
    if is_nested(kind):
        return f"CAST(to_json({name}) AS VARCHAR)"
    if base(kind) in ("TIME", "INTERVAL", "TIME WITH TIME ZONE", "UUID", "JSON", "BIT"):
        return f"CAST({name} AS VARCHAR)"  # MySQL's own TIME text (PyMySQL's would be wrong when negative)
    if kind == "VARCHAR" and target_type is not None and target_type.startswith("bit"):
        # PostgreSQL's bit string text (0101) into a BIT column: its number (text that is not bits is refused)
        return f"CAST(CAST({name} AS BIT) AS UBIGINT)"
    if kind == "VARCHAR" and target_type is not None and ("blob" in target_type or "binary" in target_type):
        # PostgreSQL's bytea text (\x00ff10, as a CSV file holds binary values) into a binary column: the bytes
        return (f"CASE WHEN starts_with({name}, '\\x') AND regexp_full_match(substr({name}, 3), '[0-9a-fA-F]*') "
                f"THEN unhex(substr({name}, 3)) ELSE encode({name}) END")
    return None
