"""What a step id may be (docs/oml.md, "Step ids"): safe as a DuckDB table name, a folder name and a
word in a hint, and distinct from every other id once it is a table name.

- One to 100 characters: ASCII letters, digits, `-` and `_`, starting with a letter or a digit
  (public Osiris's ids are all of this form: `extract-movies`, `write_csv`, `load1`).
- Two ids whose tables (`osiris.oml.step_graph.table_name`) differ only in case or in `-` against `_`
  (`x-1` and `x_1`, `Orders` and `orders`) would share a table: DuckDB matches names without case.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from osiris.oml.step_graph import table_name

MAX_LENGTH = 100
STEP_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]{0,99}")
RULE = "ASCII letters, digits, - and _, starting with a letter or a digit, at most 100 characters"


def is_step_id(value: object) -> bool:
    """True for an id that follows the rule."""
    return isinstance(value, str) and STEP_ID.fullmatch(value) is not None


def safe_step_id(value: str, taken: Iterable[str] = ()) -> str:
    """An id that follows the rule, close to `value` and not in `taken`: "/tmp/.ssh" -> "tmp-ssh"."""
    words = re.findall(r"[A-Za-z0-9_]+", value)
    base = "-".join(words).strip("_-")[:MAX_LENGTH - 3] or "step"
    used = {table_key(name) for name in taken}
    candidate, number = base, 2
    while table_key(candidate) in used:
        candidate, number = f"{base}-{number}", number + 1
    return candidate


def table_key(step_id: str) -> str:
    """What two ids must not share: their table name as DuckDB compares it (without case)."""
    return table_name(step_id).lower()
