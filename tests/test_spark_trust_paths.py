"""Issue 42, items 3, 4 and 8 on the Spark engine (docs/security.md, "Files"): Spark reads and writes
CSV files too (osiris/run/spark/files.py), so a hidden path, a link, or a folder swapped for a link
after the check is refused there as well. The pipelines go straight to the engine, as an
unvalidated one would. One test, one shared local Spark (tests/test_spark.py's setup): Spark is slow.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.run_helpers import csv_step
from tests.support import shows_number

pytestmark = pytest.mark.xdist_group("spark")

DOTENV = "AWS_SECRET_ACCESS_KEY=planted-Dotenv-7c21\n"
GIT_CONFIG = "[core]\n\trepositoryformatversion = 0\n"


def test_hidden_and_linked_paths_are_refused_on_spark(tmp_path, monkeypatch):
    from osiris.run.display import Listeners
    from osiris.run.duckdb_run import RunOptions
    from osiris.run.spark import files
    from osiris.run.spark.spark_run import run_on_spark
    from osiris.settings.model import SparkSettings

    project, outside = tmp_path / "p", tmp_path / "outside"
    (project / ".git").mkdir(parents=True)
    (project / "data").mkdir()
    (project / "out").mkdir()
    outside.mkdir()
    (project / ".git" / "config").write_text(GIT_CONFIG)
    (project / ".env").write_text(DOTENV)
    (project / "data" / "rows.csv").write_text("id\n1\n2\n")
    (project / "data" / "alias.csv").symlink_to(project / ".env")
    (outside / "rows.csv").write_text("id\n666\n")
    options = RunOptions(connections={}, env={}, base_dir=project)

    def run(*steps: dict[str, Any]) -> tuple[list[str], str]:
        result = run_on_spark({"steps": list(steps)}, options, SparkSettings(master="local[1]"), Listeners())
        problems = [s.problem for s in result.steps if s.problem]
        return [p.code for p in problems], " ".join(p.message for p in problems) + repr(result)

    read = csv_step("read", "read", "data/rows.csv")
    write = {**csv_step("write", "write", "out/x.csv"), "needs": ["read"]}
    hostile = {
        "write .git/config": [read, {**write, "config": {"path": ".git/config", "header": False}}],
        "read .env": [csv_step("read", "read", ".env", delimiter="=")],
        "read a link": [csv_step("read", "read", "data/alias.csv", delimiter="=")],
    }
    for name, steps in hostile.items():
        codes, said = run(*steps)
        assert codes == ["OML517"], (name, said)
        assert "AWS_SECRET" not in said and "planted-Dotenv" not in said, name
    assert run(read, write)[0] == []  # the harmless twin
    assert (project / "out" / "x.csv").read_text() == "id\n1\n2\n"

    checked = files.project_file

    def swap_after_checking(reads: bool) -> Any:
        """project_file, but right after it checked a source (`reads`) or a target, its first folder
        becomes a link to outside: the moment of item 8 made certain."""
        def swapped(where: Any, path: str, *, existing: bool) -> Path:
            found = checked(where, path, existing=existing)
            if existing is reads:
                folder = project / path.split("/")[0]
                folder.rename(folder.with_name(folder.name + "-real"))
                folder.symlink_to(outside)
            return found
        return swapped

    monkeypatch.setattr(files, "project_file", swap_after_checking(reads=True))
    codes, said = run(csv_step("read", "read", "data/rows.csv"))  # item 8, reading
    assert codes == ["OML517"] and "passes through a symbolic link (data)" in said
    assert not shows_number(said, "666")  # the row outside; `said` holds durations too
    (project / "data").unlink()
    (project / "data-real").rename(project / "data")
    monkeypatch.setattr(files, "project_file", swap_after_checking(reads=False))
    codes, said = run(read, write)  # item 8, writing
    assert codes == ["OML517"] and "passes through a symbolic link (out)" in said, said
    assert sorted(p.name for p in outside.iterdir()) == ["rows.csv"]
    assert (project / ".git" / "config").read_text() == GIT_CONFIG
