"""A `filesystem.csv_extractor` step's `columns`: the file's columns the read keeps, in the order the
step lists them (as public Osiris's reader keeps them), on every engine.

A name the file lacks is OML502 naming the file's columns: a read never drops a listed column in
silence, nor keeps one the step left out (docs/components.md). A header that names one column twice
is OML540 (`repeated_header`): DuckDB's reader would rename the second `id` to `id_1` in silence.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from osiris.oml.values import Config
from osiris.problems import file_column_problem, repeated_header, repeated_header_problem
from osiris.run.fields import flag, optional_integer, texts


def header_index(config: Config) -> int | None:
    """The row of the file (after `skip_rows`) that holds the header, as pandas reads `header`:
    true is 0, a number is that row (the rows before it are skipped), false is None (no header)."""
    value = config.get("header")
    if isinstance(value, bool) or value is None:
        return 0 if flag(config, "header") else None
    if isinstance(value, int) and value >= 0:
        return value
    raise TypeError(f"header: expected true, false or a row number, got {value!r}")


def lines_skipped(config: Config) -> int:
    """The lines a read skips before its header (or first row): `skip_rows`, then a `header: N`'s N."""
    return (optional_integer(config, "skip_rows") or 0) + (header_index(config) or 0)


def kept_columns(config: Config, found: Sequence[str], shown: str) -> list[str] | None:
    """The columns of `found` (the file's, in its order) the step keeps; None when it keeps them all.
    `shown`: the step's path, as the person wrote it."""
    wanted = texts(config, "columns")
    if not wanted:
        return None
    for name in wanted:
        if name not in found:
            raise file_column_problem(name, found, shown)
    return wanted


def refuse_repeated_header(config: Config, found: Sequence[str], header_row: Callable[[], Sequence[str]],
                           shown: str) -> None:
    """OML540 when the file's header row names a column twice (names ignore case). `found`: the
    column names DuckDB gave the file; `header_row`: the first row as text, read only where a name
    looks like a renamed twin (osiris.problems.repeated_header, the rule `osiris discover` uses too)."""
    if header_index(config) is None:
        return
    twin = repeated_header(found, header_row)
    if twin is not None:
        raise repeated_header_problem(shown, twin)
