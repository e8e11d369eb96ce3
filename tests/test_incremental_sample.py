"""A sample run and the incremental state (docs/run-again.md, "The sample run and the state"), on
real PostgreSQL: `osiris run --sample N` and the dry run of `osiris generate` read what the next
real run would read (after the saved cursor, for the same parameter values) and leave the state
file byte for byte as it was."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import psycopg
import pytest
import yaml

from tests.fake_anthropic import Reply
from tests.run_helpers import csv_step, pg_step
from tests.sample_project import SampleProject, pipeline
from tests.test_incremental import rows_read

STATE = Path(".osiris") / "state" / "orders-sync.json"
READ = pg_step("read", "read", query="SELECT id, region, changed FROM smp_source WHERE region = '${params.region}'",
               incremental={"cursor": "changed"})
WRITE = csv_step("write", "write", "output/orders-${params.region}.csv")


@pytest.fixture
def project(postgres_server: Any, fake_api: Any, tmp_path: Path) -> Any:
    conn = psycopg.connect(postgres_server.dsn(), autocommit=True)
    conn.execute("DROP TABLE IF EXISTS smp_source")
    conn.execute("CREATE TABLE smp_source (id int PRIMARY KEY, region text, changed timestamp(6) NOT NULL)")
    conn.execute("INSERT INTO smp_source SELECT i, CASE WHEN i % 2 = 0 THEN 'eu' ELSE 'us' END, "
                 "timestamp '2026-01-01' + i * interval '1 hour' FROM generate_series(1, 40) i")
    proj = SampleProject(tmp_path / "project", fake_api, postgres=postgres_server)
    document = {"oml_version": "0.1.0", "name": "orders-sync", "params": {"region": {"default": "eu"}},
                "steps": [READ, WRITE]}
    path = proj.root / "orders-sync.yaml"
    path.write_text(yaml.safe_dump(document, sort_keys=False), encoding="utf-8")
    assert proj.run(str(path)).returncode == 0 and rows_read(proj) == 20  # eu's state: up to id 40
    conn.execute("INSERT INTO smp_source SELECT i, CASE WHEN i % 2 = 0 THEN 'eu' ELSE 'us' END, "
                 "timestamp '2026-01-01' + i * interval '1 hour' FROM generate_series(41, 46) i")
    yield proj, path
    conn.execute("DROP TABLE IF EXISTS smp_source")
    conn.close()


def test_run_sample_reads_after_the_saved_cursor_and_keeps_the_state_bytes(project):
    proj, path = project
    before = (proj.root / STATE).read_bytes()
    result = proj.run(str(path), "--sample", "10")
    assert result.returncode == 0, result.stderr
    assert rows_read(proj) == 3  # ids 42, 44, 46: what the next eu run reads, not 10 old rows
    assert (proj.root / STATE).read_bytes() == before
    assert proj.run(str(path), "--sample", "10", "--param", "region=us").returncode == 0
    assert rows_read(proj) == 10  # us has no state: its next run reads from the start
    assert (proj.root / STATE).read_bytes() == before
    assert proj.run(str(path)).returncode == 0 and rows_read(proj) == 3  # the real run reads those three


def test_the_dry_run_of_generate_reads_after_the_saved_cursor_and_keeps_the_state_bytes(project, fake_api):
    proj, path = project
    before = (proj.root / STATE).read_bytes()
    fake_api.add(Reply(pipeline(READ, WRITE, name="orders-sync").replace(
        "steps:", "params:\n  region:\n    default: eu\nsteps:", 1)))

    done = proj.osiris("generate", "copy the new eu orders to a csv", "--dry-run")

    assert done.returncode == 0, done.stderr
    dry_run = proj.attempt_file(1, 1, "dry_run.json")
    assert dry_run["status"] == "passed"
    assert next(s["rows_out"] for s in dry_run["steps"] if s["id"] == "read") == 3
    assert (proj.root / STATE).read_bytes() == before
