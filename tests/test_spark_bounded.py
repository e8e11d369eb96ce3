"""The Spark engine holds the two rules of docs/security.md that every engine must: what it says
carries no cell value ("What an engine says"), and a run the loop starts ends at its deadline, its
jobs cancelled ("Every run ends"). Real local Spark (slow: two cases only)."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest
import yaml

from tests.run_helpers import RunProject, csv_step, sql_step
from tests.support import clean_env

pytestmark = pytest.mark.xdist_group("spark")

CANARY = "Ann-CANARY-7731"
DEADLINE = 2
# A query no sample size makes cheap: 5 rows become 390,625, then a four-way nested-loop join of
# those. Spark's generated loop for it never looks at its task's interrupt flag, so cancelling its
# job leaves the task running (the case the engine must still end).
NEVER_ENDS = ("WITH n AS (SELECT a.id * 5 + b.id AS k FROM df_read a, df_read b), "
              "m AS (SELECT x.k * 25 + y.k AS k FROM n x, n y) "
              "SELECT count(*) AS s FROM m a, m b, m c, m d WHERE a.k + b.k <> c.k + d.k")


def spark_project(root: Path, **settings: object) -> RunProject:
    proj = RunProject(root)
    config = {"run": {"engine": "spark", "spark": {"master": "local[1]"}}, **settings}
    (root / ".osiris.yaml").write_text(yaml.safe_dump(config), encoding="utf-8")
    (root / "rows.csv").write_text(f"id,name\n1,{CANARY}\n", encoding="utf-8")
    return proj


def steps(query: str) -> list[dict[str, object]]:
    return [csv_step("read", "read", "rows.csv"), sql_step("pick", query, needs=["read"])]


def test_an_error_raised_from_a_cell_on_spark_carries_no_value(tmp_path: Path) -> None:
    proj = spark_project(tmp_path / "p")

    done = proj.run(str(proj.pipeline(steps("SELECT error(name) AS e FROM df_read"))), "--sample", "5")

    assert done.returncode in (1, 6), done.stderr  # refused (the SQL allowlist) or failed at run time
    shown = done.stderr + "\n".join(p.read_text(encoding="utf-8") for p in (proj.root / ".osiris").rglob("*.json*"))
    assert "OML" in done.stderr
    for piece in (CANARY, "CANARY", "7731"):
        assert piece not in shown


def test_a_spark_job_that_never_ends_is_cancelled_at_the_deadline(tmp_path: Path) -> None:
    proj = spark_project(tmp_path / "p", validation={"dry_run_timeout_seconds": DEADLINE})
    (proj.root / "rows.csv").write_text("id,name\n" + "".join(f"{n},x\n" for n in range(5)), encoding="utf-8")
    path = proj.pipeline(steps(NEVER_ENDS))

    started = time.monotonic()
    done = proj.run(str(path), "--sample", "5")
    took = time.monotonic() - started

    assert done.returncode == 6, done.stderr
    # The Spark session's start counts against the deadline and cannot be cut short: on a loaded
    # machine the deadline may pass before the read, which then carries the one OML532 line.
    assert re.search(r"OML532 step '(read|pick)': the run passed its deadline "
                     rf"\({DEADLINE} s, validation.dry_run_timeout_seconds\)", done.stderr), done.stderr
    assert done.stderr.count("OML532") == 1
    run = json.loads((proj.last_session() / "artifacts" / "dry_run.json").read_text(encoding="utf-8"))
    assert [s["status"] for s in run["steps"]] in (["ok", "failed"], ["failed", "skipped"])
    print(f"spark: {took:.1f} s from the run's start to its end (deadline {DEADLINE} s)")


IN_ONE_PROCESS = """
import sys, threading, time
from pathlib import Path
from osiris.run.spark import session
from osiris.run.spark.session import running_tasks
from osiris.run.deadline import RunLimit
from osiris.run.duckdb_run import RunOptions
from osiris.run.spark.spark_run import run_on_spark
from osiris.settings.model import SparkSettings

root, never_ends = Path(sys.argv[1]), sys.argv[2]
settings = SparkSettings(master="local[1]")

class StopAtPick:
    # The deadline passes once the transform's task has run for 3 s (its broadcasts, quick jobs that
    # do stop when cancelled, are behind it then), however slow the machine.
    def __init__(self, limit):
        self.limit = limit
    def step_started(self, step):
        if step.step_id == "pick":
            threading.Thread(target=self.stop_when_stuck, daemon=True).start()
    def stop_when_stuck(self):
        busy_since = None
        while self.limit.reason is None:
            busy = session._current is not None and running_tasks(session._current[1]) > 0
            busy_since = (busy_since or time.monotonic()) if busy else None
            if busy_since is not None and time.monotonic() - busy_since > 3:
                self.limit.stop("deadline")
            time.sleep(0.2)
    def step_progress(self, step, rows): pass
    def step_finished(self, step): pass

def run(query, limit):
    pipeline = {"steps": [
        {"id": "read", "component": "filesystem.csv_extractor", "mode": "read", "config": {"path": "rows.csv"}},
        {"id": "pick", "component": "duckdb.processor", "mode": "transform", "config": {"query": query},
         "needs": ["read"]}]}
    options = RunOptions(connections={}, env={}, base_dir=root, sample=5, limit=limit)
    result = run_on_spark(pipeline, options, settings, StopAtPick(limit))
    return [(s.status, s.problem.code if s.problem else None) for s in result.steps]

limit = RunLimit(None, "validation.dry_run_timeout_seconds")
print("first:", run(never_ends, limit), flush=True)
print("second:", run("SELECT count(*) AS s FROM df_read", RunLimit(None)), flush=True)
"""


def test_a_task_its_cancelled_job_left_running_does_not_block_the_next_run(tmp_path: Path) -> None:
    """Chat and MCP run many pipelines in one process, on one Spark session. The deadline cancels
    the job, but its task runs on in the executor's only core: the next run must still finish."""
    (tmp_path / "rows.csv").write_text("id,name\n" + "".join(f"{n},x\n" for n in range(5)), encoding="utf-8")
    script = tmp_path / "two_runs.py"
    script.write_text(IN_ONE_PROCESS, encoding="utf-8")

    try:
        done = subprocess.run([sys.executable, str(script), str(tmp_path), NEVER_ENDS], capture_output=True,
                              text=True, timeout=300, env=clean_env())
    except subprocess.TimeoutExpired as hung:
        pytest.fail(f"the second run waited behind the first run's task for 300 s: {hung.stdout!r}")

    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.splitlines() == ["first: [('ok', None), ('failed', 'OML532')]",
                                        "second: [('ok', None), ('ok', None)]"]
