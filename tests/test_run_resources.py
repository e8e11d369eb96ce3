"""`run.threads` and `run.memory_limit` reach the run's DuckDB, layered CLI > env > file, and a bad
value is one settings line (docs/configuration.md, ADR 0200).

What the engine's DuckDB was set to is read back from that DuckDB itself (`current_setting`), just
before the run closes it: a transform may not call current_setting (docs/security.md, "SQL allowed
by list"), so the test wraps `Engine.close` of this in-process run (tests/inprocess.py); the
connection, the settings and the run are all real.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import duckdb
import pytest
import yaml

from osiris.run import duckdb_engine
from tests.run_helpers import RunProject, csv_step, sql_step


@pytest.fixture
def engine_settings(monkeypatch: pytest.MonkeyPatch) -> list[dict[str, Any]]:
    """What each engine a run closes was set to: threads, memory_limit, temp_directory."""
    seen: list[dict[str, Any]] = []
    close = duckdb_engine.Engine.close

    def reading_back(self: duckdb_engine.Engine) -> None:
        if self.con is not None:
            threads, memory, temp = self.con.execute(
                "SELECT current_setting('threads'), current_setting('memory_limit'), "
                "current_setting('temp_directory')").fetchone()
            seen.append({"threads": threads, "memory_limit": memory, "temp_directory": temp})
        close(self)

    monkeypatch.setattr(duckdb_engine.Engine, "close", reading_back)
    return seen


def duckdb_shows(size: str) -> str:
    """How DuckDB shows a memory_limit of `size` (e.g. '300MB' -> '286.1 MiB')."""
    con = duckdb.connect()
    try:
        con.execute(f"SET memory_limit = '{size}'")
        return str(con.execute("SELECT current_setting('memory_limit')").fetchone()[0])
    finally:
        con.close()


def transform_project(tmp_path: Path, settings: dict[str, Any] | None = None) -> tuple[RunProject, Path]:
    """CSV -> SQL -> CSV, so the run starts DuckDB (a plain copy may take a direct route past it)."""
    proj = RunProject(tmp_path / "project")
    if settings:
        (proj.root / ".osiris.yaml").write_text(yaml.safe_dump({"connections": {}, "run": settings}),
                                                encoding="utf-8")
    (proj.root / "in.csv").write_text("id,name\n1,a\n2,b\n", encoding="utf-8")
    path = proj.pipeline([csv_step("read", "read", "in.csv"),
                          sql_step("pick", "SELECT id, name FROM input_df WHERE id > 1"),
                          csv_step("write", "write", "out.csv")])
    return proj, path


def machine_cores() -> int:
    return len(os.sched_getaffinity(0))


def machine_quarter_mb() -> int:
    """A quarter of /proc/meminfo's MemTotal in MB (1,000,000 bytes), at least 256."""
    total_kib = next(int(line.split()[1]) for line in Path("/proc/meminfo").read_text().splitlines()
                     if line.startswith("MemTotal:"))
    return max(256, total_kib * 1024 // 1_000_000 // 4)


def test_unset_the_engine_uses_the_cores_and_a_quarter_of_the_memory(tmp_path, engine_settings) -> None:
    proj, path = transform_project(tmp_path)
    result = proj.run(str(path))
    assert result.returncode == 0, result.stderr
    [seen] = engine_settings
    assert seen["threads"] == min(machine_cores(), machine_quarter_mb() // 256)
    assert seen["memory_limit"] == duckdb_shows(f"{machine_quarter_mb()}MB")


@pytest.mark.parametrize(("limit", "threads"), [("256MB", 1), ("300MB", 1), ("512MB", 2), ("16GB", 62)])
def test_unset_threads_are_one_per_256_mb_of_the_limit_at_most_the_cores(tmp_path, engine_settings, limit,
                                                                        threads) -> None:
    """1 GB of 1,000-character rows cannot sort on two threads under 256 MB (docs/performance.md):
    a limit that low gets one thread unless run.threads asks for more; the cores bound them all."""
    proj, path = transform_project(tmp_path, {"memory_limit": limit})
    assert proj.run(str(path)).returncode == 0
    assert proj.run(str(path), "--threads", "3").returncode == 0
    assert [s["threads"] for s in engine_settings] == [min(threads, machine_cores()), 3]


@pytest.mark.parametrize("layer", ["file", "env", "cli"])
def test_each_layer_reaches_the_engines_duckdb(tmp_path, engine_settings, layer) -> None:
    file = {"threads": 3, "memory_limit": "300MB"} if layer == "file" else None
    proj, path = transform_project(tmp_path, file)
    env = {"OSIRIS_RUN__THREADS": "3", "OSIRIS_RUN__MEMORY_LIMIT": "300MB"} if layer == "env" else None
    args = ["--threads", "3", "--memory-limit", "300MB"] if layer == "cli" else []
    result = proj.run(str(path), *args, env=env)
    assert result.returncode == 0, result.stderr
    assert (proj.root / "out.csv").read_text(encoding="utf-8") == "id,name\n2,b\n"
    [seen] = engine_settings
    assert (seen["threads"], seen["memory_limit"]) == (3, duckdb_shows("300MB"))


def test_cli_over_env_over_file(tmp_path, engine_settings) -> None:
    proj, path = transform_project(tmp_path, {"threads": 3, "memory_limit": "1GB"})
    env = {"OSIRIS_RUN__THREADS": "2", "OSIRIS_RUN__MEMORY_LIMIT": "500MB"}
    assert proj.run(str(path), env=env).returncode == 0
    assert proj.run(str(path), "--threads", "1", "--memory-limit", "200MB", env=env).returncode == 0
    assert proj.run(str(path), "--memory-limit", "2GB", env={"OSIRIS_RUN__THREADS": "2"}).returncode == 0
    assert [(s["threads"], s["memory_limit"]) for s in engine_settings] == [
        (2, duckdb_shows("500MB")), (1, duckdb_shows("200MB")), (2, duckdb_shows("2GB"))]


def test_the_engine_spills_inside_the_projects_scratch(tmp_path, engine_settings) -> None:
    proj, path = transform_project(tmp_path, {"memory_limit": "64MB"})
    assert proj.run(str(path)).returncode == 0
    [seen] = engine_settings
    spill = Path(seen["temp_directory"])
    assert spill.is_relative_to((proj.root / ".osiris" / "tmp").resolve()) or spill.is_relative_to(
        proj.root / ".osiris" / "tmp")
    assert spill.name == "spill"


@pytest.mark.parametrize(("where", "given", "line"), [
    ("cli", ["--threads", "0"], "osiris: error: cli: run.threads = 0 is not allowed; it must be a whole number "
                                "from 1 to 1024 or null"),
    ("cli", ["--threads", "two"], "osiris: error: cli: run.threads = 'two' is not allowed; it must be a whole "
                                  "number from 1 to 1024 or null"),
    ("cli", ["--memory-limit", "8MB"], "osiris: error: cli: run.memory_limit = '8MB' is not allowed; it must be a "
                                       "whole number of MB or GB, at least 16MB, e.g. '2GB' or '512MB', or null for "
                                       "a quarter of the machine's memory"),
    ("env", {"OSIRIS_RUN__MEMORY_LIMIT": "lots"},
     "osiris: error: env OSIRIS_RUN__MEMORY_LIMIT: run.memory_limit = 'lots' is not allowed; it must be a whole "
     "number of MB or GB, at least 16MB, e.g. '2GB' or '512MB', or null for a quarter of the machine's memory"),
    ("env", {"OSIRIS_RUN__MEMORY_LIMIT": "1.5GB"},
     "osiris: error: env OSIRIS_RUN__MEMORY_LIMIT: run.memory_limit = '1.5GB' is not allowed; it must be a whole "
     "number of MB or GB, at least 16MB, e.g. '2GB' or '512MB', or null for a quarter of the machine's memory"),
    ("env", {"OSIRIS_RUN__THREADS": "-2"}, "osiris: error: env OSIRIS_RUN__THREADS: run.threads = -2 is not "
                                           "allowed; it must be a whole number from 1 to 1024 or null"),
])
def test_a_bad_value_is_one_line_and_nothing_runs(tmp_path, engine_settings, where, given, line) -> None:
    proj, path = transform_project(tmp_path)
    args = given if where == "cli" else []
    result = proj.run(str(path), *args, env=given if where == "env" else None)
    assert result.returncode == 2
    assert result.stderr.splitlines() == [line]
    assert "Traceback" not in result.stderr
    assert engine_settings == [] and not (proj.root / "out.csv").exists()


def test_a_bad_value_in_the_file_names_the_file(tmp_path, engine_settings) -> None:
    proj, path = transform_project(tmp_path, {"memory_limit": "0GB"})
    result = proj.run(str(path))
    assert result.returncode == 2
    assert result.stderr.splitlines() == [
        f"osiris: error: {proj.root / '.osiris.yaml'}: run.memory_limit = '0GB' is not allowed; it must be a whole "
        "number of MB or GB, at least 16MB, e.g. '2GB' or '512MB', or null for a quarter of the machine's memory"]
