"""The sample tier inside `osiris generate`, end to end: the real SDK against the fake Messages API,
a real PostgreSQL and MariaDB, the real validator and runtime. The dry run catches what only real
data shows, and the retry prompt (the request body the LLM gets) carries what the sample showed."""

from __future__ import annotations

from pathlib import Path

import psycopg
import pymysql
import pytest
import yaml

from tests.fake_anthropic import Reply
from tests.run_helpers import csv_step, mysql_step, pg_step
from tests.sample_project import SampleProject, last_user_message, pipeline

REQUEST = "copy the active customers from postgres to output/active.csv"


@pytest.fixture
def pg_customers(postgres_server):
    with psycopg.connect(postgres_server.dsn(), autocommit=True) as conn:
        conn.execute("DROP TABLE IF EXISTS sample_customers")
        conn.execute("CREATE TABLE sample_customers (id integer PRIMARY KEY, email text, status text)")
        conn.execute("INSERT INTO sample_customers SELECT i, 'c' || i || '@x.org', "
                     "CASE WHEN i % 2 = 0 THEN 'active' ELSE 'gone' END FROM generate_series(1, 40) i")
        yield conn


def wrong_then_right(column: str) -> tuple[str, str]:
    steps = lambda where: (pg_step("extract-customers", "read", query=f"SELECT id, email FROM sample_customers {where}"),
                           csv_step("write-csv", "write", "output/active.csv"))
    return pipeline(*steps(f"WHERE {column} = 1")), pipeline(*steps("WHERE status = 'active'"))


def test_dry_run_catches_an_unknown_column_and_the_retry_prompt_names_the_real_ones(tmp_path, fake_api, postgres_server,
                                                                                  pg_customers):
    proj = SampleProject(tmp_path / "p", fake_api, postgres=postgres_server)
    wrong, right = wrong_then_right("active")
    fake_api.add(Reply(wrong), Reply(right))

    done = proj.osiris("generate", REQUEST, "--dry-run")

    assert done.returncode == 0, done.stderr
    assert yaml.safe_load(done.stdout)["steps"][0]["config"]["query"].endswith("WHERE status = 'active'")
    assert len(fake_api.requests) == 2
    retry = last_user_message(fake_api.requests[1])
    assert "failed when Osiris ran it on sample data (10 rows a source" in retry
    assert 'OML502 /steps/0/config: step \'extract-customers\' failed on sample rows: column "active" does not exist' in retry
    assert "- table sample_customers has columns: id integer, email text, status text" in retry
    assert "- step 'extract-customers' (postgres.extractor): failed with OML502" in retry
    assert "osiris: attempt 1/3 on sample rows: 1 error; asking the LLM to fix them" in done.stderr
    assert "osiris: testing on samples (attempt 2/3), last time: unknown column 'active' in sample_customers…" in done.stderr
    assert "osiris: attempt 2: ran on 10 sample rows a source (2 steps ok" in done.stderr
    assert "tested on 10 sample rows; tokens:" in done.stderr
    # the preview: each step's first rows, on stderr
    assert "  extract-customers: 10 rows (first 5)" in done.stderr
    assert "    id  email" in done.stderr and "    2   c2@x.org" in done.stderr
    # nothing kept: the CSV writer wrote into a temporary folder, not to its path nor the session
    assert not (proj.root / "output").exists()
    assert not list(proj.last_session().rglob("*.csv"))


def test_the_trail_records_each_dry_run_without_values(tmp_path, fake_api, postgres_server, pg_customers):
    proj = SampleProject(tmp_path / "p", fake_api, postgres=postgres_server)
    fake_api.add(*(Reply(answer) for answer in wrong_then_right("active")))

    assert proj.osiris("generate", REQUEST, "--dry-run").returncode == 0

    first, second = proj.attempt_file(1, 1, "dry_run.json"), proj.attempt_file(1, 2, "dry_run.json")
    assert first["status"] == "failed" and [i["code"] for i in first["issues"]] == ["OML502"]
    assert second["status"] == "passed" and second["values_saved"] is False
    read = second["steps"][0]
    assert (read["id"], read["status"], read["rows_out"]) == ("extract-customers", "ok", 10)
    assert read["columns"] == [{"name": "id", "type": "INTEGER"}, {"name": "email", "type": "VARCHAR"}]
    assert "sample_rows" not in read
    assert "c2@x.org" not in (proj.last_session() / "artifacts" / "cycle-1" / "attempt-2" / "dry_run.json").read_text()
    events = proj.events()
    kinds = [e["event_type"] for e in events]
    assert kinds.count("dry_run_start") == 2 and kinds.count("dry_run_complete") == 2
    complete = [e for e in events if e["event_type"] == "dry_run_complete"]
    assert [(e["attempt_index"], e["status"], e["error_codes"]) for e in complete] == [
        (1, "failed", ["OML502"]), (2, "passed", [])]
    assert [e["kind"] for e in events if e["event_type"] == "validation_attempt_start"] == ["generate", "fix_sample"]
    accepted = [e for e in events if e["event_type"] == "pipeline_accepted"]
    assert accepted[0]["dry_run"] == "passed"
    tiers = proj.trail()["tiers"]
    assert tiers["validation"] == {"attempts": 2, "failed": 0}
    assert {k: tiers["dry_run"][k] for k in ("runs", "passed", "failed", "skipped")} == {
        "runs": 2, "passed": 1, "failed": 1, "skipped": 0}


def test_save_samples_keeps_the_rows(tmp_path, fake_api, postgres_server, pg_customers):
    proj = SampleProject(tmp_path / "p", fake_api, postgres=postgres_server, sessions={"save_samples": True})
    fake_api.add(Reply(wrong_then_right("active")[1]))

    assert proj.osiris("generate", REQUEST, "--dry-run").returncode == 0

    read = proj.attempt_file(1, 1, "dry_run.json")["steps"][0]
    assert read["sample_rows"][0] == {"id": 2, "email": "c2@x.org"}
