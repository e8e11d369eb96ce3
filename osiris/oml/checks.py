"""Checks on data (docs/run-again.md, "Checks on data"): a step's `checks:` list, read once for the
validator (OML217) and the runtime (OML537, OML538).

    checks:
      - not_null: [email]
      - unique: [id]
      - accepted_values: {status: [active, closed]}
      - row_count: {min: 1}
      - expression: "amount >= 0"
        level: warning
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import partial

from osiris.oml.values import Scalar, Value


KINDS = ("not_null", "unique", "accepted_values", "row_count", "expression")
LEVELS = ("error", "warning")
SCALARS = (str, int, float, bool)


@dataclass(frozen=True)
class Check:
    """One check of a step: its kind, what it names, its level and its place in the list."""

    index: int
    kind: str
    columns: tuple[str, ...] = ()  # not_null, unique, accepted_values (one column)
    accepted: tuple[Scalar, ...] = ()  # accepted_values
    minimum: int | None = None  # row_count
    maximum: int | None = None
    expression: str = ""
    level: str = "error"

    @property
    def label(self) -> str:
        """How messages name it: `not_null(email)`, `unique(id, day)`, `row_count`, `expression`."""
        return f"{self.kind}({', '.join(self.columns)})" if self.columns else self.kind


@dataclass(frozen=True)
class Mistake:
    """Why a check's shape is wrong: where (a pointer under the check), what, and how to fix it."""

    pointer: str
    message: str
    hint: str


def read_checks(value: object) -> tuple[list[Check], list[Mistake]]:
    """The checks of a step's `checks:` value, and the mistakes in their shape."""
    if value is None:
        return [], []
    if not isinstance(value, list):
        return [], [Mistake("", "checks must be a list", "write checks: [{not_null: [email]}, {row_count: {min: 1}}]")]
    checks: list[Check] = []
    mistakes: list[Mistake] = []
    for index, item in enumerate(value):
        check = _read_one(index, item, mistakes)
        checks.extend(check)
    return checks, mistakes


def _read_one(index: int, item: object, mistakes: list[Mistake]) -> list[Check]:
    here = f"/{index}"
    if not isinstance(item, dict):
        mistakes.append(Mistake(here, f"check {index} must be a mapping, such as {{not_null: [email]}}", _KINDS_HINT))
        return []
    kinds = [k for k in item if k in KINDS]
    unknown = [k for k in item if k not in KINDS and k != "level" and not str(k).startswith("x-")]
    for key in unknown:
        from osiris.suggest import did_you_mean

        mistakes.append(Mistake(f"{here}/{key}", f"unknown check '{key}'", _KINDS_HINT + did_you_mean(key, KINDS)))
    level = item.get("level", "error")
    if level not in LEVELS:
        mistakes.append(Mistake(f"{here}/level", f"level '{level}' is not error or warning", "write level: warning, "
                                "or leave it out for error"))
        level = "error"
    if len(kinds) != 1:
        if not unknown:
            mistakes.append(Mistake(here, f"check {index} must name exactly one kind of check, not {len(kinds)}",
                                    _KINDS_HINT))
        return []
    kind = kinds[0]
    return _READERS[kind](index, item[kind], level, f"{here}/{kind}", mistakes)


def _columns(index: int, value: Value, level: str, where: str, mistakes: list[Mistake], kind: str) -> list[Check]:
    columns = [value] if isinstance(value, str) else value
    if not (isinstance(columns, list) and columns and all(isinstance(c, str) and c for c in columns)):
        mistakes.append(Mistake(where, f"{kind} takes a list of column names", f"write {kind}: [email]"))
        return []
    if kind == "unique":  # the columns together are the key
        return [Check(index, kind, tuple(columns), level=level)]
    return [Check(index, kind, (column,), level=level) for column in columns]


def _accepted(index: int, value: Value, level: str, where: str, mistakes: list[Mistake]) -> list[Check]:
    if not isinstance(value, dict) or not value:
        mistakes.append(Mistake(where, "accepted_values takes a mapping of column to its values",
                                "write accepted_values: {status: [active, closed]}"))
        return []
    found, before = [], len(mistakes)
    for column, values in value.items():
        if not (isinstance(values, list) and values and all(isinstance(v, SCALARS) for v in values)):
            mistakes.append(Mistake(f"{where}/{column}", f"the accepted values of '{column}' must be a list of values",
                                    f"write {column}: [active, closed]"))
            continue
        found.append(Check(index, "accepted_values", (str(column),), accepted=tuple(values), level=level))
    return found if len(mistakes) == before else []


def _row_count(index: int, value: Value, level: str, where: str, mistakes: list[Mistake]) -> list[Check]:
    bounds = value if isinstance(value, dict) else {}
    low, high = bounds.get("min"), bounds.get("max")
    whole = all(n is None or (isinstance(n, int) and not isinstance(n, bool) and n >= 0) for n in (low, high))
    if not isinstance(value, dict) or set(bounds) - {"min", "max"} or (low is None and high is None) or not whole:
        mistakes.append(Mistake(where, "row_count takes min and/or max, whole numbers from 0",
                                "write row_count: {min: 1} or row_count: {min: 1, max: 1000000}"))
        return []
    if low is not None and high is not None and low > high:
        mistakes.append(Mistake(where, f"row_count's min {low} is above its max {high}", "make min at most max"))
        return []
    return [Check(index, "row_count", minimum=low, maximum=high, level=level)]


def _expression(index: int, value: Value, level: str, where: str, mistakes: list[Mistake]) -> list[Check]:
    if not isinstance(value, str) or not value.strip():
        mistakes.append(Mistake(where, "expression takes a SQL condition over the step's columns",
                                'write expression: "amount >= 0"'))
        return []
    return [Check(index, "expression", expression=value, level=level)]


_READERS: dict[str, Callable[[int, Value, str, str, list[Mistake]], list[Check]]] = {
    "not_null": partial(_columns, kind="not_null"), "unique": partial(_columns, kind="unique"),
    "accepted_values": _accepted, "row_count": _row_count, "expression": _expression,
}

_KINDS_HINT = f"a check is one of {', '.join(KINDS)}, optionally with level: warning"


def check_query(table: str, expression: str) -> str:
    """The query that counts the rows of `table` for which `expression` is not true: the form the
    validator parses and the runtime runs, so what is checked is what runs."""
    return f'SELECT count(*) FROM "{table}" WHERE NOT coalesce((\n{expression}\n), false)'
