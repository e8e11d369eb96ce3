"""One run of a pipeline at a time (docs/run-again.md): with real `osiris run` processes, a second
run of the same pipeline exits 7 at once naming the running one (its session and pid), `--wait`
waits for it, another pipeline is not held up, and `kill -9` leaves no stale lock.

The first run is held in the middle by a gate, not a clock: its PostgreSQL query waits for an
advisory lock the test holds."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import psycopg

from tests.run_helpers import RunProject, csv_step, pg_step
from tests.support import clean_env

DEADLINE_S = 120.0  # a generous limit on waiting for an observable event, not a measurement
GATED = "SELECT g AS id FROM generate_series(1, 3) g WHERE pg_advisory_lock_shared(5151) IS NOT NULL"
WAITING = "SELECT count(*) FROM pg_stat_activity WHERE application_name = 'osiris' AND wait_event_type = 'Lock'"


def start(proj: RunProject, path: Path, *args: str) -> subprocess.Popen[str]:
    return subprocess.Popen([sys.executable, "-m", "osiris", "run", str(path), *args], cwd=proj.root,
                            env=clean_env(**proj.env), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def wait_for(condition: Any, what: str) -> None:
    deadline = time.monotonic() + DEADLINE_S
    while not condition():
        assert time.monotonic() < deadline, f"not within {DEADLINE_S:.0f} s: {what}"
        time.sleep(0.05)


def test_a_second_run_exits_7_naming_the_first_and_wait_waits(tmp_path: Path, postgres_server: Any) -> None:
    proj = RunProject(tmp_path / "project", postgres=postgres_server)
    path = proj.pipeline([pg_step("read", "read", query=GATED), csv_step("write", "write", "out.csv")], name="nightly")
    other = proj.pipeline([csv_step("read", "read", "out.csv")], name="another")
    with psycopg.connect(postgres_server.dsn(), autocommit=True) as gate:
        gate.execute("SELECT pg_advisory_lock(5151)")
        first = start(proj, path)
        try:
            wait_for(lambda: gate.execute(WAITING).fetchone() == (1,), "the first run waits at the gate")
            session = json.loads((proj.root / ".osiris" / "locks" / "nightly.lock").read_text())["session"]
            began = time.monotonic()
            second = subprocess.run([sys.executable, "-m", "osiris", "run", str(path)], cwd=proj.root,
                                    env=clean_env(**proj.env), capture_output=True, text=True, timeout=60)
            assert second.returncode == 7, second.stderr
            assert time.monotonic() - began < 30  # at once, not after the first
            assert re.fullmatch(rf"osiris: error: pipeline 'nightly' is already running \(session {session}, "
                                rf"pid {first.pid}, since [0-9T:+-]+\); wait for it with --wait, or try again later\n",
                                second.stderr), second.stderr
            assert len(list((proj.root / ".osiris" / "sessions").iterdir())) == 1  # the second left no session
            (proj.root / "out.csv").write_text("id\n9\n")
            assert subprocess.run([sys.executable, "-m", "osiris", "run", str(other)], cwd=proj.root,
                                  env=clean_env(**proj.env), capture_output=True, text=True).returncode == 0
            waiter = start(proj, path, "--wait")
            assert waiter.stderr is not None
            said = waiter.stderr.readline()  # blocks until the waiter says it waits: its first line
            assert said.startswith(f"osiris: pipeline 'nightly' is already running (session {session}, pid {first.pid}")
            assert said.endswith("; waiting for it to finish\n")
            time.sleep(0.5)
            assert waiter.poll() is None  # still waiting
            assert gate.execute(WAITING).fetchone() == (1,)  # and not reading
            assert len(list((proj.root / ".osiris" / "sessions").iterdir())) == 2  # the first and `another`
        finally:
            gate.execute("SELECT pg_advisory_unlock(5151)")
        assert first.wait(timeout=DEADLINE_S) == 0
        out, err = waiter.communicate(timeout=DEADLINE_S)
        assert waiter.returncode == 0, err
    assert (proj.root / "out.csv").read_text() == "id\n1\n2\n3\n"


def test_kill_9_leaves_no_stale_lock(tmp_path: Path, postgres_server: Any) -> None:
    proj = RunProject(tmp_path / "project", postgres=postgres_server)
    path = proj.pipeline([pg_step("read", "read", query=GATED), csv_step("write", "write", "out.csv")], name="nightly")
    with psycopg.connect(postgres_server.dsn(), autocommit=True) as gate:
        gate.execute("SELECT pg_advisory_lock(5151)")
        first = start(proj, path)
        wait_for(lambda: gate.execute(WAITING).fetchone() == (1,), "the first run waits at the gate")
        os.kill(first.pid, signal.SIGKILL)
        first.wait(timeout=DEADLINE_S)
        gate.execute("SELECT pg_advisory_unlock(5151)")
    result = proj.run(str(path), process=True)
    assert result.returncode == 0, result.stderr
    assert (proj.root / "out.csv").read_text() == "id\n1\n2\n3\n"
