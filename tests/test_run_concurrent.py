"""Two `osiris run` processes writing one CSV file at once (docs/run.md, "Two runs at once"): each
fills a partial file of its own, in its own scratch directory, and renames it onto the target when
it is whole, so the file ends as one run's file, whole, never a mix. (Two `replace` runs of one
database table: tests/test_sql_runtime_holds.py.)

The runs overlap by a gate, not a clock: each reads PostgreSQL rows whose 200,000th waits for an
advisory lock the test holds, so both stop in the middle of their writes, with rows already in
their partial files; the test lets go once it sees both partial files and both runs waiting."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import psycopg

from tests.run_helpers import RunProject, csv_step, pg_step
from tests.support import clean_env

ROWS, GATE_ROW = 300_000, 200_000  # 3 MB before the gate: the copy writes in 1 MiB pieces
DEADLINE_S = 120.0  # a generous limit on waiting for an observable event, not a measurement
PARTIALS = ".osiris/tmp/run-*/.osiris-out-*-out.csv"
GATED = ("SELECT g AS id, '{who}-' || g AS who FROM generate_series(1, {rows}) g "
         "WHERE g <> {gate} OR pg_advisory_lock_shared(4343) IS NOT NULL")


def start(proj: RunProject, path: Path) -> subprocess.Popen[str]:
    return subprocess.Popen([sys.executable, "-m", "osiris", "run", str(path)], cwd=proj.root,
                            env=clean_env(**proj.env), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def wait_for(condition: Any, runs: list[subprocess.Popen[str]], what: str) -> None:
    deadline = time.monotonic() + DEADLINE_S
    while not condition():
        for run in runs:
            assert run.poll() is None, f"a run ended before {what}: {run.communicate()}"
        assert time.monotonic() < deadline, f"not within {DEADLINE_S:.0f} s: {what}"
        time.sleep(0.05)


def expected(who: str) -> bytes:
    return ("id,who\n" + "".join(f"{g},{who}-{g}\n" for g in range(1, ROWS + 1))).encode()


def test_two_runs_writing_one_csv_file_leave_one_runs_file_whole(tmp_path: Path, postgres_server: Any) -> None:
    proj = RunProject(tmp_path / "project", postgres=postgres_server)
    (proj.root / "out.csv").write_bytes(b"id,who\n0,before\n")
    runs = {who: proj.pipeline([pg_step("read", "read", query=GATED.format(who=who, rows=ROWS, gate=GATE_ROW)),
                                csv_step("write", "write", "out.csv")], name=f"run-{who}") for who in "AB"}
    with psycopg.connect(postgres_server.dsn(), autocommit=True) as gate:
        gate.execute("SELECT pg_advisory_lock(4343)")
        waiting = ("SELECT count(*) FROM pg_stat_activity WHERE application_name = 'osiris' "
                   "AND wait_event_type = 'Lock'")
        first, second = start(proj, runs["A"]), start(proj, runs["B"])
        both = [first, second]
        wait_for(lambda: gate.execute(waiting).fetchone() == (2,), both, "both runs wait at the gate")
        wait_for(lambda: len([p for p in proj.root.glob(PARTIALS) if p.stat().st_size]) == 2, both,
                 "both partial files hold rows")
        assert len({p.parent for p in proj.root.glob(PARTIALS)}) == 2  # one scratch directory a run
        assert (proj.root / "out.csv").read_bytes() == b"id,who\n0,before\n"  # untouched while they write
        gate.execute("SELECT pg_advisory_unlock(4343)")
        outcomes = [(run.wait(timeout=DEADLINE_S), run.communicate()) for run in both]
    assert [code for code, _ in outcomes] == [0, 0], outcomes
    assert (proj.root / "out.csv").read_bytes() in (expected("A"), expected("B"))
    assert sorted(p.name for p in proj.root.iterdir()) == [".osiris", ".osiris.yaml", "out.csv", "run-A.yaml",
                                                           "run-B.yaml"]
    assert not list(proj.root.glob(".osiris/tmp/run-*"))
