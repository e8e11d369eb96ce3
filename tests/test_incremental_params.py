"""Incremental state per parameter value (docs/run-again.md, "Whose state"): on real PostgreSQL,
a pipeline run with `--param region=eu` and then `--param region=us` reads all of each region's
rows on its first run; `osiris state show` lists each key and `reset` forgets one or all; a state
file saved before parameters counted is used as it was for a read without parameters and refused,
naming the step, for one with them."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import psycopg
import pytest
import yaml

from tests.inprocess import run_inprocess
from tests.run_helpers import RunProject, pg_step, sql_step
from tests.support import clean_env
from tests.test_incremental import rows_read

STATE = Path(".osiris") / "state" / "regions-sync.json"


@pytest.fixture
def project(postgres_server: Any, tmp_path: Path) -> Any:
    conn = psycopg.connect(postgres_server.dsn(), autocommit=True)
    conn.execute("DROP TABLE IF EXISTS reg_source")
    conn.execute("DROP TABLE IF EXISTS reg_target")
    for table in ("reg_source", "reg_target"):
        conn.execute(f"CREATE TABLE {table} (id int PRIMARY KEY, region text, changed timestamp(6) NOT NULL)")
    # us rows are older than eu rows: one shared cursor would skip them after an eu run
    conn.execute("INSERT INTO reg_source VALUES (1, 'eu', '2026-02-01 00:00:00'), (2, 'eu', '2026-02-02 00:00:00'),"
                 " (3, 'us', '2026-01-01 00:00:00'), (4, 'us', '2026-01-02 00:00:00')")
    yield conn, RunProject(tmp_path / "project", postgres=postgres_server)
    conn.execute("DROP TABLE IF EXISTS reg_source")
    conn.execute("DROP TABLE IF EXISTS reg_target")
    conn.close()


def write_pipeline(proj: RunProject, steps: list[dict[str, Any]]) -> Path:
    path = proj.root / "regions-sync.yaml"
    document = {"oml_version": "0.1.0", "name": "regions-sync", "params": {"region": {"default": "eu"}}, "steps": steps}
    path.write_text(yaml.safe_dump(document, sort_keys=False), encoding="utf-8")
    return path


def target(conn: Any) -> list[tuple[Any, ...]]:
    return [tuple(r) for r in conn.execute("SELECT id, region FROM reg_target ORDER BY id").fetchall()]


def osiris(proj: RunProject, *args: str) -> Any:
    return run_inprocess(*args, cwd=proj.root, env=clean_env())


READ = pg_step("read", "read", query="SELECT id, region, changed FROM reg_source WHERE region = '${params.region}'",
               incremental={"cursor": "changed"})
WRITE = pg_step("write", "write", table="reg_target", write_mode="upsert", primary_key=["id"])


def test_each_parameter_value_reads_all_its_rows_on_its_first_run(project):
    conn, proj = project
    path = write_pipeline(proj, [READ, WRITE])
    assert proj.run(str(path), "--param", "region=eu").returncode == 0 and rows_read(proj) == 2
    result = proj.run(str(path), "--param", "region=us")
    assert result.returncode == 0, result.stderr
    assert rows_read(proj) == 2  # one shared cursor read 0: both us rows are older than the eu ones
    assert target(conn) == [(1, "eu"), (2, "eu"), (3, "us"), (4, "us")]
    assert json.loads((proj.root / STATE).read_text()) == {"steps": {}, "by_params": [
        {"step": "read", "params": {"region": "eu"}, "cursor": "changed", "value": "2026-02-02T00:00:00"},
        {"step": "read", "params": {"region": "us"}, "cursor": "changed", "value": "2026-01-02T00:00:00"}]}

    conn.execute("INSERT INTO reg_source VALUES (5, 'us', '2026-01-03 00:00:00')")
    assert proj.run(str(path)).returncode == 0 and rows_read(proj) == 0  # the default, eu: nothing new
    assert proj.run(str(path), "--param", "region=us").returncode == 0 and rows_read(proj) == 1

    shown = osiris(proj, "state", "show", str(path))
    assert shown.returncode == 0, shown.stderr
    assert shown.stdout == ("STEP  PARAMS     CURSOR   VALUE\n"
                            "read  region=eu  changed  2026-02-02T00:00:00\n"
                            "read  region=us  changed  2026-01-03T00:00:00\n")
    as_json = json.loads(osiris(proj, "state", "show", "regions-sync", "--json").stdout)
    assert [e["params"] for e in as_json["by_params"]] == [{"region": "eu"}, {"region": "us"}]

    reset = osiris(proj, "state", "reset", "regions-sync", "--param", "region=us")
    assert reset.returncode == 0, reset.stderr
    assert reset.stdout == ("state of 'regions-sync' step 'read' region=us reset: its next run with these values "
                            "reads from the step's initial value\n")
    assert [e["params"] for e in json.loads((proj.root / STATE).read_text())["by_params"]] == [{"region": "eu"}]
    assert proj.run(str(path), "--param", "region=us").returncode == 0 and rows_read(proj) == 3
    missing = osiris(proj, "state", "reset", "regions-sync", "--step", "reed")
    assert missing.returncode == 2
    assert "no state of 'regions-sync' matches; its entries: read region=eu, read region=us" in missing.stderr
    assert osiris(proj, "state", "reset", "regions-sync").returncode == 0 and not (proj.root / STATE).exists()


def test_a_parameter_of_a_step_the_rows_reach_keys_the_state_too(project):
    """The read is the same for both values, but a transform keeps only one region: each value is
    its own read, or the us run would skip the rows the eu run read and filtered out."""
    conn, proj = project
    read = pg_step("read", "read", query="SELECT id, region, changed FROM reg_source", incremental={"cursor": "changed"})
    keep = sql_step("keep", "SELECT * FROM input_df WHERE region = '${params.region}'")
    path = write_pipeline(proj, [read, keep, WRITE])
    assert proj.run(str(path), "--param", "region=eu").returncode == 0 and rows_read(proj) == 4
    assert proj.run(str(path), "--param", "region=us").returncode == 0 and rows_read(proj) == 4
    assert target(conn) == [(1, "eu"), (2, "eu"), (3, "us"), (4, "us")]


def test_a_state_saved_before_parameters_counted(project):
    conn, proj = project
    (proj.root / STATE).parent.mkdir(parents=True)
    legacy = '{"steps": {"read": {"cursor": "changed", "value": "2026-02-01T00:00:00"}}}\n'
    (proj.root / STATE).write_text(legacy)
    path = write_pipeline(proj, [READ, WRITE])
    refused = proj.run(str(path), "--param", "region=us")
    assert refused.returncode == 2, refused.stderr
    assert ("the state of step 'read' was saved without parameter values (before Osiris kept state per value, or "
            "before the step's rows depended on a parameter), so which values (region) it belongs to is unknown; "
            "`osiris state reset regions-sync --step read` reads again from its initial value for every value"
            ) in refused.stderr
    assert (proj.root / STATE).read_text() == legacy and target(conn) == []

    # a read without parameters keeps its entry as it was
    plain = write_pipeline(proj, [pg_step("read", "read", query="SELECT id, region, changed FROM reg_source",
                                          incremental={"cursor": "changed"}), WRITE])
    assert proj.run(str(plain)).returncode == 0 and rows_read(proj) == 1  # after 2026-02-01
    assert json.loads((proj.root / STATE).read_text()) == {
        "steps": {"read": {"cursor": "changed", "value": "2026-02-02T00:00:00"}}}
