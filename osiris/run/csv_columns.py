"""A `filesystem.csv_extractor` step's `columns`: the file's columns the read keeps, in the order the
step lists them (as public Osiris's reader keeps them), on every engine.

A name the file lacks is OML502 naming the file's columns: a read never drops a listed column in
silence, nor keeps one the step left out (docs/components.md).
"""

from __future__ import annotations

from collections.abc import Sequence

from osiris.oml.values import Config
from osiris.run.fields import texts
from osiris.problems import file_column_problem


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
