"""A runtime problem is one line with its own code (docs/errors.md), and nothing else reaches stderr
(issue 25): sqlglot's warning on `CALL ...`, a writer given two inputs or a step given a writer's
(the engine's second lock, for a pipeline run without validation)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from osiris.run.duckdb_run import RunOptions, RunResult, StepResult, run_pipeline
from tests.run_helpers import csv_step, sql_step
from tests.support import run_osiris


class Quiet:
    def step_started(self, step: StepResult) -> None: ...
    def step_progress(self, step: StepResult, rows: int) -> None: ...
    def step_finished(self, step: StepResult) -> None: ...


def unvalidated(tmp_path: Path, steps: list[dict[str, Any]]) -> RunResult:
    (tmp_path / "rows.csv").write_text("id\n1\n", encoding="utf-8")
    return run_pipeline({"steps": steps}, RunOptions(connections={}, env={}, base_dir=tmp_path), Quiet())


def test_call_is_one_oml405_issue_and_no_sqlglot_warning(tmp_path: Path) -> None:
    """In a process of its own: sqlglot's logger is set up once a process, so only a fresh one shows
    whether its warning reaches stderr."""
    (tmp_path / ".osiris.yaml").write_text("connections: {}\n", encoding="utf-8")
    (tmp_path / "rows.csv").write_text("id\n1\n", encoding="utf-8")
    steps = [csv_step("read", "read", "rows.csv"), sql_step("q", "CALL pragma_version()"),
             csv_step("write", "write", "out.csv")]
    (tmp_path / "p.yaml").write_text(yaml.safe_dump({"oml_version": "0.1.0", "name": "call", "steps": steps},
                                                    sort_keys=False), encoding="utf-8")
    result = run_osiris("run", "p.yaml", cwd=tmp_path)
    assert result.returncode == 1
    assert result.stderr.splitlines() == [
        "p.yaml:13:12 OML405 SQL syntax error in step 'q' (DuckDB): 'CALL' does not start a query",
        "    hint: correct the SQL at this position; it must be one DuckDB query (SELECT ... or WITH ... SELECT ...)",
        "p.yaml: invalid: fix it before running (osiris validate p.yaml)"]


def test_a_csv_writer_with_two_inputs_is_oml519(tmp_path: Path) -> None:
    result = unvalidated(tmp_path, [csv_step("a", "read", "rows.csv"), csv_step("b", "read", "rows.csv"),
                                    {**csv_step("write", "write", "out.csv"), "needs": ["a", "b"]}])
    problem = result.steps[2].problem
    assert problem is not None
    assert (problem.code, problem.message, problem.hint) == (
        "OML519", "a CSV writer writes one input, but this step has 2",
        "join or union the inputs in a duckdb.processor step first, and write its result")
    assert not (tmp_path / "out.csv").exists()


def test_a_step_that_takes_a_writers_rows_is_oml519(tmp_path: Path) -> None:
    result = unvalidated(tmp_path, [csv_step("read", "read", "rows.csv"), csv_step("write", "write", "out.csv"),
                                    {**sql_step("after", "SELECT * FROM input_df"), "needs": ["write"]}])
    problem = result.steps[2].problem
    assert problem is not None
    assert (problem.code, problem.message) == (
        "OML519", "its input 'write' leaves no table to read (a writer has no output)")


def test_the_dry_run_keeps_an_out_of_memory_step_from_the_llm() -> None:
    """OML526 is the machine's, not the pipeline's: the sample is skipped with the reason, no issue
    for the retry loop; an SQL the database rejected is still the LLM's to fix."""
    from osiris.run.driver import RuntimeProblem
    from osiris.run.duckdb_engine import started_cap_mb
    from osiris.run.problems import memory_problem, sql_problem
    from osiris.sample.sample_run import judge

    def failed(problem: RuntimeProblem) -> RunResult:
        step = StepResult("sort", "duckdb.processor", "transform", status="failed", problem=problem)
        return RunResult([step])

    pipeline = {"steps": [{"id": "sort"}]}
    verdict = judge(pipeline, failed(memory_problem()), 10)
    assert (verdict.status, verdict.issues) == ("skipped", [])
    cap = started_cap_mb()  # the cap of the last engine this process started (run.memory_limit), or the default
    assert verdict.reason == f"step 'sort': the step needs more memory than the engine's {cap} MB cap, even spilling to disk"
    assert judge(pipeline, failed(sql_problem("syntax error")), 10).status == "failed"


def test_api_keys_that_differ_only_in_case_are_one_oml515_line(tmp_path: Path) -> None:
    """Found by the runs fuzz (tests/fuzz_runs.py): DuckDB's columns cannot hold `name` and `Name`
    side by side; before, an OML503 quoting DuckDB with the hint to set OSIRIS_DEBUG."""
    from tests.inprocess import run_inprocess
    from tests.servers.json_api import json_api
    from tests.support import clean_env

    (tmp_path / ".osiris.yaml").write_text("connections: {}\n", encoding="utf-8")
    with json_api({"items": [{"id": 1}, {"name": 1.5, "Name": {}}]}) as api:
        steps = [{"id": "get", "component": "rest.extractor", "mode": "read",
                  "config": {"base_url": api.url, "endpoint": "/items"}}]  # the whole answer, one record
        (tmp_path / "p.yaml").write_text(yaml.safe_dump({"oml_version": "0.1.0", "name": "twins", "steps": steps}),
                                         encoding="utf-8")
        result = run_inprocess("run", "p.yaml", cwd=tmp_path, env=clean_env())
    assert result.returncode == 6
    assert result.stderr.splitlines()[:2] == [
        "p.yaml OML515 step 'get': invalid API response: a record cannot be loaded: it has two keys spelt 'Name' "
        "but for upper and lower case, which the engine's columns cannot tell apart",
        "    hint: Ask the API for fewer fields or smaller records (its own parameters in params), or point "
        "data_path at the part of the record you need."]


def test_dtype_naming_a_column_the_file_lacks_is_oml502_with_the_names(tmp_path: Path) -> None:
    """Found by the runs fuzz: DuckDB's text withheld the names (they are quoted), leaving an OML503
    that said to check the delimiter; the names are the step's own, so the line shows them."""
    read = {**csv_step("read", "read", "rows.csv"), "config": {"path": "rows.csv", "dtype": {"zz": "INTEGER"}}}
    result = unvalidated(tmp_path, [read])
    problem = result.steps[0].problem
    assert problem is not None
    assert (problem.code, problem.message) == ("OML502", "dtype names a column rows.csv does not have (dtype names: zz)")


BUG_PLANTED = """
import sys
from osiris.run.drivers import filesystem

def broken(self, ctx, files):
    return {}["no such key"]  # a bug planted in the CSV reader: no real input reaches one

filesystem.FilesystemDriver._read = broken
from osiris.cli import main
sys.exit(main(sys.argv[1:]))
"""


def test_a_bug_in_a_driver_is_oml105_and_exit_5_with_the_run_recorded(tmp_path: Path) -> None:
    """An error no driver maps is a bug in Osiris (issue 25): one OML105 line naming the step, the
    exception's type and Osiris's line (never its text), exit 5, and the session still ends with
    `run_end`. The bug is planted by patching the CSV reader in the child (it cannot be caused by
    input, which is the point); everything else is the real `osiris run`."""
    import json
    import re
    import subprocess
    import sys

    from tests.support import clean_env

    (tmp_path / ".osiris.yaml").write_text("connections: {}\n", encoding="utf-8")
    (tmp_path / "rows.csv").write_text("id\n1\n", encoding="utf-8")
    steps = [csv_step("read", "read", "rows.csv"), csv_step("write", "write", "out.csv")]
    (tmp_path / "p.yaml").write_text(yaml.safe_dump({"oml_version": "0.1.0", "name": "bug", "steps": steps},
                                                    sort_keys=False), encoding="utf-8")
    done = subprocess.run([sys.executable, "-c", BUG_PLANTED, "run", "p.yaml"], cwd=tmp_path, env=clean_env(),
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 5, done.stderr
    lines = done.stderr.splitlines()
    assert re.fullmatch(r"p\.yaml OML105 step 'read': the filesystem\.csv_extractor driver stopped at an internal "
                        r"error \(KeyError in osiris/run/drivers/filesystem\.py:\d+\)", lines[0]), lines[0]
    assert lines[1] == "    hint: this is a bug in Osiris, not in the pipeline: please report it with this line"
    assert lines[-1] == "osiris: error: the run stopped at an internal error at step 'read'"
    assert "no such key" not in done.stdout + done.stderr
    assert not (tmp_path / "out.csv").exists()
    session = next((tmp_path / ".osiris" / "sessions").iterdir())
    events = [json.loads(line) for line in (session / "events.jsonl").read_text().splitlines()]
    [end] = [e for e in events if e["event_type"] == "run_end"]
    assert end["status"] == "failed", end
