"""Every import of osiris/ points down the layer table of docs/architecture.md ("Layers"), so no
package circle can come back: an import at module level, inside a function or under TYPE_CHECKING
into the package's own row or a row above fails here, naming the file and the line.

The imports are read by bench/import_graph.py, the tool that prints the layer picture."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.support import REPO, bench_script

ARCHITECTURE = REPO / "docs" / "architecture.md"


graph = bench_script("import_graph")


def package_name(written: str) -> str:
    """`osiris/cli.py` -> "cli", `commands/` -> "commands", `osiris/__init__.py` -> "osiris"."""
    name = written.removeprefix("osiris/").removesuffix("/").removesuffix(".py")
    return "osiris" if name == "__init__" else name


def layer_table(text: str) -> dict[str, int]:
    """package -> its row in the table under "## Layers" (row 1 is the top)."""
    section = text.split("## Layers", 1)[1].split("\n## ", 1)[0]
    rows: dict[str, int] = {}
    for line in section.splitlines():
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if len(cells) < 3 or not cells[0].isdigit():
            continue
        for written in re.findall(r"`([^`]+)`", cells[1]):
            name = package_name(written)
            assert name not in rows, f"{name} is in two rows of the layer table"
            rows[name] = int(cells[0])
    return rows


def violations(root: Path, rows: dict[str, int]) -> list[str]:
    """Each import of a module under `root` that does not point to a lower row (a higher number)."""
    graph.ROOT = root
    found = []
    for path in sorted(root.rglob("*.py")):
        source = graph.package_of(graph.module_name(path))
        for target_module, line in graph.located_imports(path):
            target = graph.package_of(target_module)
            if target == source:
                continue
            if source not in rows or target not in rows:
                missing = source if source not in rows else target
                found.append(f"{path.relative_to(root.parent)}:{line}: package {missing} has no row in the layer table")
            elif rows[target] <= rows[source]:
                found.append(f"{path.relative_to(root.parent)}:{line}: {source} (row {rows[source]}) imports "
                             f"{target_module} (row {rows[target]}), which is not below it")
    return found


def test_every_import_of_osiris_points_down_the_layer_table() -> None:
    rows = layer_table(ARCHITECTURE.read_text(encoding="utf-8"))
    assert violations(REPO / "osiris", rows) == []


def test_every_package_has_a_row() -> None:
    rows = layer_table(ARCHITECTURE.read_text(encoding="utf-8"))
    root = REPO / "osiris"
    graph.ROOT = root
    packages = {graph.package_of(graph.module_name(path)) for path in root.rglob("*.py")}
    assert sorted(packages - set(rows)) == []
    assert sorted(set(rows) - packages) == []


def test_the_import_graph_has_no_circle() -> None:
    graph.ROOT = REPO / "osiris"
    by_package = graph.package_imports(sorted(graph.ROOT.rglob("*.py")))
    assert graph.circles(graph.package_edges(by_package)) == []


@pytest.mark.parametrize("where", ["module", "function", "type_checking"])
def test_an_upward_import_anywhere_in_a_file_is_named(tmp_path: Path, where: str) -> None:
    root = tmp_path / "osiris"
    (root / "low").mkdir(parents=True)
    (root / "high").mkdir()
    for package in ("", "low/", "high/"):
        (root / f"{package}__init__.py").write_text("")
    (root / "high" / "top.py").write_text("VALUE = 1\n")
    upward = {
        "module": "from osiris.high.top import VALUE\n",
        "function": "def f():\n    from osiris.high.top import VALUE\n    return VALUE\n",
        "type_checking": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    import osiris.high.top\n",
    }[where]
    (root / "low" / "base.py").write_text(upward)
    (root / "high" / "use.py").write_text("from osiris.low import base\n")
    rows = layer_table("## Layers\n\n| row | packages | job |\n|---|---|---|\n| 1 | `high/` | up |\n"
                       "| 2 | `low/` | down |\n| 3 | `osiris/__init__.py` | the package |\n")
    line = 3 if where == "type_checking" else 2 if where == "function" else 1
    assert violations(root, rows) == [f"osiris/low/base.py:{line}: low (row 2) imports osiris.high.top (row 1), "
                                      "which is not below it"]


def test_a_sibling_in_the_same_row_may_not_be_imported(tmp_path: Path) -> None:
    root = tmp_path / "osiris"
    root.mkdir()
    (root / "__init__.py").write_text("")
    (root / "left.py").write_text("from osiris import right\n")
    (root / "right.py").write_text("X = 1\n")
    rows = layer_table("## Layers\n\n| row | packages | job |\n|---|---|---|\n"
                       "| 1 | `osiris/left.py`, `osiris/right.py`, `osiris/__init__.py` | all |\n")
    assert violations(root, rows) == ["osiris/left.py:1: left (row 1) imports osiris.right (row 1), which is not below it"]
