"""The SQL functions a transform may call, per engine: data in osiris/trust/allowlists/ (docs/security.md,
"SQL allowed by list").

`<engine>.txt` holds one function name a line (`#` starts a comment); `deny.txt` the patterns no
list may match (tests/test_trust_allowlist.py holds every list to them, and to the engine's own
functions).
"""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path

FOLDER = Path(__file__).with_name("allowlists")
ENGINES = ("duckdb", "spark")
ENGINE_NAMES = {"duckdb": "DuckDB", "spark": "Spark"}
# The row generators a transform may read FROM: they compute rows from their arguments and reach
# nothing (their size is bounded by the sample run's deadline, not here).
ROW_GENERATORS = {"duckdb": frozenset({"range", "generate_series", "unnest"}),
                  "spark": frozenset({"explode", "explode_outer", "posexplode", "posexplode_outer", "inline",
                                      "inline_outer", "stack"})}


def _lines(path: Path) -> list[str]:
    return [line.strip() for line in path.read_text(encoding="utf-8").splitlines()
            if line.strip() and not line.lstrip().startswith("#")]


@cache
def functions(engine: str) -> frozenset[str]:
    """The functions a transform may call on `engine` ("duckdb" or "spark"), lower case."""
    return frozenset(name.lower() for name in _lines(FOLDER / f"{engine}.txt"))


@cache
def deny_patterns() -> tuple[re.Pattern[str], ...]:
    """The name patterns no allowlist may hold (file, network, environment, JVM, settings, state)."""
    return tuple(re.compile(pattern) for pattern in _lines(FOLDER / "deny.txt"))


def allowed(engine: str, name: str) -> bool:
    return name.lower() in functions(engine)
