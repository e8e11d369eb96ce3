"""A module's name says which one it is (docs/architecture.md, "One name for each concept"): no new
module under osiris/ takes a file name that another module already has. The names still shared are
counted below, as they were when the rule came in; the count may only go down (lower it when you
rename one)."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

OSIRIS = Path(__file__).resolve().parent.parent / "osiris"
PACKAGE_FILES = {"__init__.py", "__main__.py"}

SHARED = {  # file name -> how many modules still have it
    "checks.py": 4, "errors.py": 3, "incremental.py": 3, "boundary.py": 2, "config.py": 2, "connections.py": 2,
    "deadline.py": 2, "display.py": 2, "files.py": 2, "history.py": 2, "loader.py": 2, "lock.py": 2,
    "paging.py": 2, "params.py": 2, "paths.py": 2, "patterns.py": 2, "pointer.py": 2, "problems.py": 2,
    "progress.py": 2, "reader.py": 2, "resources.py": 2, "rules.py": 2, "sql.py": 2, "store.py": 2,
    "types.py": 2,
}


def module_names() -> Counter[str]:
    return Counter(path.name for path in OSIRIS.rglob("*.py") if path.name not in PACKAGE_FILES)


def test_no_module_takes_a_name_another_module_has() -> None:
    grown = {name: count for name, count in module_names().items() if count > SHARED.get(name, 1)}
    assert grown == {}


def test_the_names_that_said_least_are_gone() -> None:
    names = module_names()
    assert [name for name in ("trail.py", "engine.py", "graph.py", "dry_run.py") if names[name]] == []
