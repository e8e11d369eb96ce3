"""OML501-OML503, OML540: the tables, columns and SQL of a database or of the engine, with the
helpers that find a name in a library's error text, list the names there are, and find the name a
CSV header repeats."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence

from osiris.problems.base import RuntimeProblem
from osiris.suggest import did_you_mean, listing

_QUOTED = re.compile(r"""["'`]([^"'`]+)["'`]""")
_NUMBERED = re.compile(r"(.+)_\d+")  # DuckDB's name for a CSV header's second `id`: `id_1`


def quoted_name(text: str) -> str | None:
    """The first quoted name in an error text: `column "emial" does not exist` -> `emial`."""
    match = _QUOTED.search(text)
    return match.group(1) if match else None


def names_hint(kind: str, wrong: str | None, known: Iterable[str]) -> str:
    """`tables the database knows: a, b (did you mean 'a'?)`."""
    names = sorted(set(known))
    if not names:
        return f"the database lists no {kind}s this connection can see"
    bare = wrong.split(".")[-1] if wrong else None
    return f"{kind}s the database knows: {listing(names)}{did_you_mean(bare, names)}"


def unknown_table_problem(table: str | None, known: Iterable[str]) -> RuntimeProblem:
    """OML501: a step reads a table the database does not have."""
    return RuntimeProblem("OML501", f'table "{table}" does not exist', names_hint("table", table, known),
                          value=table)


def engine_table_problem(table: str | None, known: Iterable[str]) -> RuntimeProblem:
    """OML501: a transform reads a table the engine (DuckDB or Spark) does not have."""
    return RuntimeProblem("OML501", f'table "{table}" does not exist in the engine',
                          names_hint("table", table, known).replace("the database knows", "the engine has"), value=table)


def unknown_column_problem(column: str | None, known: Iterable[str], where: str = "") -> RuntimeProblem:
    """OML502: a column the table (`where`, when named) does not have."""
    place = f" in {where}" if where else ""
    return RuntimeProblem("OML502", f'column "{column}" does not exist{place}', names_hint("column", column, known),
                          value=column)


def nothing_to_discover_problem(component: str, hint: str) -> RuntimeProblem:
    """OML503: `osiris discover` on a step that reads no database of its own (a transform)."""
    return RuntimeProblem("OML503", f"{component} has nothing to discover", hint)


def sql_problem(detail: str) -> RuntimeProblem:
    """OML503: the database or the engine rejected a step's SQL."""
    return RuntimeProblem("OML503", f"the database rejected the SQL: {detail}",
                          "correct the SQL in this step's query and run again")


def repeated_header(found: Sequence[str], header_row: Callable[[], Sequence[str]]) -> str | None:
    """The name a CSV file's header row gives two columns (ignoring case), or None. `found`: the
    column names DuckDB gave the file, which renames a header's second `id` to `id_1` in silence;
    only where one looks like such a twin (`id_1` beside `id`) is the header row itself read
    (`header_row`, the first row as text), so a real header `id,x_1,x` stands as it is. One rule
    for a run's read (OML540, osiris.run.csv_columns) and `osiris discover FILE.csv`."""
    lower = {name.lower() for name in found}
    if not any((numbered := _NUMBERED.fullmatch(name)) and numbered.group(1).lower() in lower for name in found):
        return None
    return repeated_name(header_row())


def repeated_name(names: Iterable[str]) -> str | None:
    """The first name that comes again (the engine's column names ignore case), or None."""
    seen: set[str] = set()
    for name in names:
        if name.lower() in seen:
            return name
        seen.add(name.lower())
    return None


def repeated_column_problem(column: str) -> RuntimeProblem:
    """OML540: a reader's query gives two columns one name, which the step's table cannot hold;
    refused before any row is read (docs/types.md)."""
    return RuntimeProblem(
        "OML540", f"the query's result has two columns named '{column}' (column names ignore case)",
        f"give each its own name with AS in the step's query (e.g. b.{column} AS b_{column}); nothing was read",
        value=column)
