"""A run that will use DuckDB starts its connection while the run's own modules load
(osiris.run.duckdb_engine.start_connecting, docs/performance.md): the engine takes that very
connection on first use, sets it up as any other, and an error in the thread reaches the run."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from osiris import duckdb_core
from osiris.run import duckdb_engine
from tests.run_helpers import RunProject, csv_step, sql_step
from tests.support import clean_env


def test_the_engine_takes_the_connection_started_early(tmp_path: Path) -> None:
    duckdb_engine.start_connecting()
    started = duckdb_engine._connecting
    assert started is not None
    engine = duckdb_engine.Engine(tmp_path, threads=1, memory_mb=300)
    try:
        assert engine.execute("SELECT current_setting('threads')").fetchone() == (1,)
        assert engine.con is started.con and started.name == "osiris-duckdb-connect"
        assert duckdb_engine._connecting is None  # taken once: the next engine connects anew
    finally:
        engine.close()


def test_an_error_while_connecting_is_raised_where_the_engine_is_first_used(tmp_path: Path,
                                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    def refused(database: str) -> None:
        raise duckdb_core.duckdb.IOException("cannot start")

    monkeypatch.setattr(duckdb_core.duckdb, "connect", refused)
    duckdb_engine.start_connecting()
    with pytest.raises(duckdb_core.duckdb.IOException, match="cannot start"):
        duckdb_engine.Engine(tmp_path).execute("SELECT 1")
    assert duckdb_engine._connecting is None


def test_osiris_run_connects_early_only_when_the_engine_is_needed(tmp_path: Path) -> None:
    """A transform needs the engine: its connection is made in the early thread. A sample run is
    always the engine's. The probe records the thread each DuckDB connection was made in."""
    proj = RunProject(tmp_path / "project")
    (proj.root / "in.csv").write_text("id,name\n1,a\n2,b\n", encoding="utf-8")
    path = proj.pipeline([csv_step("read", "read", "in.csv"), sql_step("pick", "SELECT id, name FROM input_df WHERE id > 1"),
                          csv_step("write", "write", "out.csv")], name="early")
    probe = """
import sys, threading
from osiris.duckdb_core import duckdb
made = []
real = duckdb.connect
def watched(*args, **kwargs):
    made.append(threading.current_thread().name)
    return real(*args, **kwargs)
duckdb.connect = watched
from osiris.cli import main
print('exit', main(sys.argv[1:]))
print(made)
"""
    for extra in ([], ["--sample", "1"]):
        done = subprocess.run([sys.executable, "-c", probe, "run", str(path), *extra], cwd=proj.root,
                              env=clean_env(**proj.env), capture_output=True, text=True, timeout=120)
        assert done.stdout.splitlines()[-2:] == ["exit 0", "['osiris-duckdb-connect']"], done.stdout + done.stderr
    assert (proj.root / "out.csv").read_text(encoding="utf-8") == "id,name\n2,b\n"


def test_a_run_that_ends_before_the_engine_is_used_waits_for_the_early_connection(tmp_path: Path) -> None:
    """A thread cut off inside DuckDB's C++ at exit aborts the process (SIGABRT, "terminate called"):
    a run whose step fails before the engine is used (OML511, a password variable not set) still
    ends with its own exit code, after the early connection was made. The probe slows the connection
    down so that the run is surely over first."""
    proj = RunProject(tmp_path / "project")
    (proj.root / ".osiris.yaml").write_text(
        "connections:\n  mysql:\n    default:\n      host: 127.0.0.1\n      database: shop\n      user: osiris\n"
        "      password: ${OSIRIS_TEST_UNSET_PASSWORD}\n", encoding="utf-8")
    path = proj.pipeline([{"id": "read", "component": "mysql.extractor", "mode": "read",
                           "config": {"connection": "@mysql.default", "table": "orders"}}], name="unset")
    probe = """
import sys, time
from osiris.duckdb_core import duckdb
real = duckdb.connect
def slow(*args, **kwargs):
    time.sleep(1)
    con = real(*args, **kwargs)
    print('connected', flush=True)
    return con
duckdb.connect = slow
from osiris.cli import main
sys.exit(main(sys.argv[1:]))
"""
    done = subprocess.run([sys.executable, "-c", probe, "run", str(path)], cwd=proj.root, env=clean_env(),
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 6, done.stderr
    assert done.stdout.splitlines()[-1] == "connected"
    assert done.stderr.splitlines()[0] == (f"{path} OML511 step 'read': connections.mysql.default.password refers to "
                                           "${OSIRIS_TEST_UNSET_PASSWORD}, which is not set")
