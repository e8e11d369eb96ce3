"""Every run the loop starts ends (docs/security.md, "Every run ends"): an LLM answer whose SQL never
finishes (`SELECT sum(i) FROM range(10000000000000)`) is interrupted at the deadline by `osiris run
--sample`, by the dry run of `osiris generate`, by MCP `run_sample`, and by a full `osiris run` with
`run.timeout_seconds`; the step fails with one OML532 line, and no scratch is left behind. A
cancelled MCP call stops its run. Real DuckDB, the real SDK against the fake Messages API, the
real MCP client; nothing mocked."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import anyio
import pytest
import yaml

from osiris.trust.sandbox import OWNER, remove_stale_scratch
from tests.fake_anthropic import Reply
from tests.run_helpers import RunProject, csv_step, sql_step
from tests.sample_project import SampleProject, last_user_message, pipeline

FOREVER = "SELECT sum(i) AS s FROM range(10000000000000) t(i)"
HARMLESS = "SELECT count(*) AS s FROM df_read"
DEADLINE = 2
SLACK = 8  # seconds past the deadline a loaded 2-core machine may take to start, interrupt and clean up
OML532 = "OML532 step 'pick': the run passed its deadline"


def steps(query: str) -> list[dict[str, Any]]:
    return [csv_step("read", "read", "rows.csv"), sql_step("pick", query, needs=["read"]),
            csv_step("write", "write", "out/s.csv", ) | {"needs": ["pick"]}]


def project(root: Path, **settings: Any) -> RunProject:
    proj = RunProject(root)
    config = yaml.safe_load((root / ".osiris.yaml").read_text(encoding="utf-8"))
    config.update(settings)
    (root / ".osiris.yaml").write_text(yaml.safe_dump(config), encoding="utf-8")
    (root / "rows.csv").write_text("id,name\n1,Ann\n", encoding="utf-8")
    return proj


def scratch_left(root: Path) -> list[Path]:
    return list(root.glob(".osiris/tmp/run-*"))


def test_run_sample_of_a_query_that_never_ends_stops_at_the_deadline_with_oml532(tmp_path: Path) -> None:
    proj = project(tmp_path / "p", validation={"dry_run_timeout_seconds": DEADLINE})
    path = proj.pipeline(steps(FOREVER))

    started = time.monotonic()
    done = proj.run(str(path), "--sample", "5", process=True)
    took = time.monotonic() - started

    assert done.returncode == 6, done.stderr
    assert f"{path} {OML532} ({DEADLINE} s, validation.dry_run_timeout_seconds); the query was interrupted" \
           in done.stderr
    assert "Traceback" not in done.stderr
    assert took < DEADLINE + SLACK, took
    assert not scratch_left(proj.root)
    run = json.loads((proj.last_session() / "artifacts" / "dry_run.json").read_text(encoding="utf-8"))
    assert [(s["id"], s["status"]) for s in run["steps"]] == [("read", "ok"), ("pick", "failed"), ("write", "skipped")]


def test_a_full_run_is_bounded_by_run_timeout_seconds_when_set(tmp_path: Path) -> None:
    proj = project(tmp_path / "p", run={"timeout_seconds": DEADLINE})
    path = proj.pipeline(steps(FOREVER))

    started = time.monotonic()
    done = proj.run(str(path), process=True)

    assert done.returncode == 6, done.stderr
    assert f"{OML532} ({DEADLINE} s, run.timeout_seconds)" in done.stderr
    assert time.monotonic() - started < DEADLINE + SLACK
    assert not scratch_left(proj.root)


def test_the_deadline_leaves_a_harmless_run_alone(tmp_path: Path) -> None:
    proj = project(tmp_path / "p", validation={"dry_run_timeout_seconds": DEADLINE}, run={"timeout_seconds": 30})
    path = proj.pipeline(steps(HARMLESS))
    assert proj.run(str(path), "--sample", "5").returncode == 0
    assert proj.run(str(path)).returncode == 0
    assert (proj.root / "out" / "s.csv").read_text(encoding="utf-8") == "s\n1\n"


def test_generate_dry_run_stops_the_answer_at_the_deadline_and_the_retry_carries_oml532(tmp_path: Path,
                                                                                         fake_api: Any) -> None:
    proj = SampleProject(tmp_path / "p", fake_api, validation={"dry_run_timeout_seconds": DEADLINE})
    (proj.root / "rows.csv").write_text("id,name\n1,Ann\n", encoding="utf-8")
    fake_api.add(Reply(pipeline(*steps(FOREVER))), Reply(pipeline(*steps(HARMLESS))))

    done = proj.osiris("generate", "sum the ids of rows.csv into out/s.csv", "--dry-run")

    assert done.returncode == 0, done.stderr
    assert len(fake_api.requests) == 2
    retry = last_user_message(fake_api.requests[1])
    assert ("OML532 /steps/1/config: step 'pick' failed on sample rows: the run passed its deadline "
            f"({DEADLINE} s, validation.dry_run_timeout_seconds); the query was interrupted") in retry
    first = proj.attempt_file(1, 1, "dry_run.json")
    assert first["status"] == "failed"
    assert first["duration_ms"] < (DEADLINE + SLACK) * 1000, first["duration_ms"]  # the sample run, not the LLM
    assert not scratch_left(proj.root)


def oml(query: str) -> str:
    return yaml.safe_dump({"oml_version": "0.1.0", "name": "forever", "steps": steps(query)}, sort_keys=False)


def test_mcp_run_sample_stops_at_the_deadline_with_oml532(tmp_path: Path, mcp_in: Any) -> None:
    proj = project(tmp_path / "p", validation={"dry_run_timeout_seconds": DEADLINE})
    started = time.monotonic()
    data = mcp_in(proj.root).call("run_sample", {"oml": oml(FOREVER), "rows": 5}).data

    assert time.monotonic() - started < DEADLINE + SLACK
    assert data["status"] == "failed"
    [problem] = data["problems"]
    assert problem["code"] == "OML532" and problem["step"] == "pick"
    assert problem["message"].startswith(f"the run passed its deadline ({DEADLINE} s, validation.dry_run_timeout_seconds)")
    assert not scratch_left(proj.root)


def test_a_cancelled_mcp_call_stops_its_run(tmp_path: Path, mcp_in: Any) -> None:
    proj = project(tmp_path / "p")  # the default deadline, 60 s: only the cancel can end it sooner
    server = mcp_in(proj.root)

    async def call_then_give_up() -> None:
        with anyio.move_on_after(3):
            await server.client.call_tool("run_sample", {"oml": oml(FOREVER), "rows": 5})

    server._portal.call(call_then_give_up)
    cancelled = time.monotonic()
    while scratch_left(proj.root) and time.monotonic() - cancelled < SLACK:
        time.sleep(0.1)
    assert not scratch_left(proj.root), "the run's scratch is removed when the run ends: it still runs"
    run = json.loads((proj.last_session() / "artifacts" / "dry_run.json").read_text(encoding="utf-8"))
    assert run["status"] == "interrupted"
    assert time.monotonic() - cancelled < SLACK


def test_scratch_of_a_killed_run_is_removed_at_the_next_run(tmp_path: Path) -> None:
    proj = project(tmp_path / "p")
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True,
                          check=True).stdout.strip()
    stale, live, unowned = (proj.root / ".osiris" / "tmp" / name for name in ("run-killed", "run-live", "run-old"))
    for folder, owner in ((stale, dead), (live, str(os.getpid())), (unowned, None)):
        (folder / "spill").mkdir(parents=True)
        (folder / "spill" / "block.tmp").write_bytes(b"\0" * 4096)
        if owner:
            (folder / OWNER).write_text(owner, encoding="ascii")

    assert proj.run(str(proj.pipeline(steps(HARMLESS)))).returncode == 0

    assert not stale.exists()
    assert (live / "spill" / "block.tmp").is_file() and (unowned / "spill" / "block.tmp").is_file()
    assert remove_stale_scratch(proj.root / ".osiris" / "tmp") == []


def test_a_sample_run_that_outgrows_the_scratch_cap_fails_with_oml533(tmp_path: Path,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """A sort of generated rows that spills beyond the cap fails with one OML533 line and leaves no
    scratch. The cap (1024 MB) is made tiny for this in-process run only, and the engine's memory
    (run.memory_limit) too, so 2,000 rows read, crossed into 4,000,000 and sorted, pass the cap
    within a second or two."""
    import osiris.run.duckdb_engine as engine

    monkeypatch.setattr(engine, "SCRATCH_CAP_MB", 1)
    proj = project(tmp_path / "p")
    proj.env.update({"OSIRIS_RUN__MEMORY_LIMIT": "16MB", "OSIRIS_RUN__THREADS": "1"})
    (proj.root / "rows.csv").write_text("id,name\n" + "".join(f"{i},n{i:05d}\n" for i in range(2000)), encoding="utf-8")
    path = proj.pipeline(steps("SELECT a.id AS x, b.id AS y, a.name || b.name AS n "
                               "FROM df_read a CROSS JOIN df_read b ORDER BY n DESC"))

    done = proj.run(str(path), "--sample", "2000")

    assert done.returncode == 6, done.stderr
    assert (f"{path} OML533 step 'pick': the step needs more scratch space than the run's cap (1 MB of spill)"
            in done.stderr), done.stderr
    assert "Traceback" not in done.stderr
    assert not scratch_left(proj.root)
    assert not (proj.root / "out" / "s.csv").exists()
