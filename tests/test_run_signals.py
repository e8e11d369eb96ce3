"""SIGTERM and SIGHUP stop a run as Ctrl-C does (docs/run.md, "Stopping a run"): real signals sent
to a real `osiris run` process while it writes a CSV file. Exit 130, the
step shown as interrupted, the target as it was, no partial file and no scratch (spill) directory
left, and `run_end` in the trail says `interrupted`. (SIGTERM during a PostgreSQL write:
tests/test_run_cli.py, beside SIGINT's.)"""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from tests.run_helpers import RunProject, csv_step, sql_step
from tests.support import clean_env

SCRATCH = ".osiris/tmp/run-*"  # the run's scratch directory: partial files and DuckDB's spill (docs/security.md)


def run_end(proj: RunProject) -> dict:
    events = [json.loads(line) for line in (proj.last_session() / "events.jsonl").read_text().splitlines()]
    [end] = [e for e in events if e["event_type"] == "run_end"]
    return end


def start_a_csv_write(proj: RunProject, hup: Any = signal.SIG_DFL) -> subprocess.Popen:
    """`osiris run` of 3M rows CSV -> transform -> CSV, returned once the writer's partial file
    (in the run's scratch directory) holds bytes. `hup`: the child's SIGHUP disposition at its
    start, set here whatever the test run inherited (a suite started under nohup ignores SIGHUP)."""
    with open(proj.root / "big.csv", "w") as out:
        out.write("id,payload\n")
        for start in range(0, 3_000_000, 100_000):
            out.write("".join(f"{i},{'x' * 40}\n" for i in range(start, start + 100_000)))
    path = proj.pipeline([csv_step("read", "read", "big.csv"),
                          sql_step("pick", "SELECT id, payload || id AS payload FROM input_df"),
                          csv_step("write", "write", "out.csv")], name="big")
    process = subprocess.Popen([sys.executable, "-m", "osiris", "run", str(path)], cwd=proj.root,
                               env=clean_env(**proj.env), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               preexec_fn=lambda: signal.signal(signal.SIGHUP, hup))
    partial = f"{SCRATCH}/.osiris-out-*-out.csv"
    deadline = time.monotonic() + 120  # a wait for an event, not a measurement: fail rather than hang
    while not any(p.stat().st_size for p in _existing(proj.root.glob(partial))):
        assert process.poll() is None, "the run ended before its write could be stopped"
        assert time.monotonic() < deadline, "the writer never began its file within 120 s"
        time.sleep(0.01)
    return process


def _existing(paths) -> list[Path]:
    return [p for p in paths if p.exists()]


@pytest.mark.parametrize("number", [signal.SIGTERM, signal.SIGHUP])
def test_a_signal_during_a_csv_write_keeps_the_old_file_and_leaves_no_scratch(tmp_path, number) -> None:
    proj = RunProject(tmp_path / "project")
    (proj.root / "out.csv").write_bytes(b"id,payload\n1,the old file\n")
    process = start_a_csv_write(proj)
    process.send_signal(number)
    stdout, stderr = process.communicate(timeout=60)
    assert process.returncode == 130, stderr
    assert "write  interrupted" in stdout
    assert stderr.endswith("osiris: interrupted\n"), stderr
    assert "Traceback" not in stderr
    assert (proj.root / "out.csv").read_bytes() == b"id,payload\n1,the old file\n"
    assert not list(proj.root.glob(SCRATCH))
    assert sorted(p.name for p in proj.root.iterdir()) == [".osiris", ".osiris.yaml", "big.csv", "big.yaml",
                                                           "out.csv"]
    end = run_end(proj)
    assert end["status"] == "interrupted"


def test_sighup_ignored_when_the_run_began_stays_ignored(tmp_path) -> None:
    """As under `nohup`: the run goes on to write its file whole."""
    proj = RunProject(tmp_path / "project")
    process = start_a_csv_write(proj, hup=signal.SIG_IGN)
    process.send_signal(signal.SIGHUP)
    stdout, stderr = process.communicate(timeout=120)
    assert process.returncode == 0, stderr
    assert "write  ok  3,000,000 rows" in stdout
    with (proj.root / "out.csv").open(encoding="utf-8") as written:
        assert sum(1 for _ in written) == 3_000_001
    assert run_end(proj)["status"] == "succeeded"
