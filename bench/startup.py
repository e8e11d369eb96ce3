"""Start-up time of the fast commands against a bare interpreter: median wall time over N runs.

    .venv/bin/python bench/startup.py [--runs 30] [--source DIR ...]

Runs `python -c pass`, `osiris --help`, `--version`, `config show`, `validate FILE` (a valid
two-step pipeline that reads a table, then the same reading a query) and `run FILE` (a real run of
a 10-row CSV file into another) in a temporary project with a `.osiris.yaml`, interleaved run by
run, and prints each median with its ratio to the bare interpreter (compare ratios: these machines
are noisy). `--source DIR` times the tree in DIR
instead of this checkout (e.g. an older commit checked out with `git worktree add DIR REV`);
several sources are timed interleaved.

Bytecode is cached, as an installed Osiris has it: the children run without
PYTHONDONTWRITEBYTECODE, and one untimed round fills the caches first.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

PIPELINE = """\
oml_version: "0.1.0"
name: orders-to-csv
steps:
  - id: read-orders
    component: mysql.extractor
    mode: read
    config:
      connection: "@mysql.default"
      table: orders
  - id: write-orders
    component: filesystem.csv_writer
    mode: write
    needs: [read-orders]
    config:
      path: out/orders.csv
"""
RUN_PIPELINE = """\
oml_version: "0.1.0"
name: ten-rows
steps:
  - id: read-people
    component: filesystem.csv_extractor
    mode: read
    config:
      path: people.csv
  - id: write-people
    component: filesystem.csv_writer
    mode: write
    needs: [read-people]
    config:
      path: out/people.csv
"""
TEN_ROWS = "id,name,amount\n" + "".join(f"{i},person {i},{i}.50\n" for i in range(1, 11))
SQL_PIPELINE = PIPELINE.replace("table: orders", "query: SELECT id, total FROM orders WHERE total > 0")
SETTINGS = """\
llm:
  provider: demo
connections:
  mysql:
    default:
      host: db.internal
      port: 3306
      database: shop
      user: osiris
      password: ${MYSQL_PASSWORD}
"""
COMMANDS = {
    "osiris --help": ["--help"],
    "osiris --version": ["--version"],
    "osiris config show": ["config", "show"],
    "osiris validate FILE": ["validate", "pipeline.yaml"],
    "osiris validate FILE (SQL)": ["validate", "sql.yaml"],  # the SQL checks import sqlglot
    "osiris run FILE (10-row CSV)": ["run", "run.yaml"],  # a real run: DuckDB, a session trail
}


def timed_ms(command: list[str], cwd: str, env: dict[str, str]) -> tuple[float, float]:
    """Wall time and CPU time (user + system, from wait4) of one run of `command`, in ms."""
    start = time.perf_counter()
    child = subprocess.Popen(command, cwd=cwd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(child.pid, 0)
    elapsed = (time.perf_counter() - start) * 1000
    error = child.stderr.read() if child.stderr else b""
    child.returncode = os.waitstatus_to_exitcode(status)
    if child.returncode != 0:
        raise SystemExit(f"{' '.join(command)} failed: {error.decode()}")
    return elapsed, (usage.ru_utime + usage.ru_stime) * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=30)
    parser.add_argument("--source", action="append", default=[])
    args = parser.parse_args()
    runs = max(args.runs, 5)
    sources = [str(Path(s).resolve()) for s in args.source] or [None]
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("OSIRIS_", "ANTHROPIC_")) and k != "PYTHONDONTWRITEBYTECODE"}
    with tempfile.TemporaryDirectory() as cwd:
        Path(cwd, ".osiris.yaml").write_text(SETTINGS)
        Path(cwd, "pipeline.yaml").write_text(PIPELINE)
        Path(cwd, "sql.yaml").write_text(SQL_PIPELINE)
        Path(cwd, "run.yaml").write_text(RUN_PIPELINE)
        Path(cwd, "people.csv").write_text(TEN_ROWS)
        jobs = {("python -c pass (baseline)", None): [sys.executable, "-c", "pass"]}
        for source in sources:
            for label, argv in COMMANDS.items():
                jobs[(label, source)] = [sys.executable, "-m", "osiris", *argv]
        timings: dict[tuple[str, str | None], list[tuple[float, float]]] = {job: [] for job in jobs}
        load = os.getloadavg()[0]
        for round_ in range(runs + 1):  # round 0 fills the bytecode caches and is not counted
            for (label, source), command in jobs.items():
                job_env = {**env, "PYTHONPATH": source} if source else env
                measured = timed_ms(command, cwd, job_env)
                if round_:
                    timings[(label, source)].append(measured)
    bare, bare_cpu = (statistics.median(column) for column in zip(*timings[("python -c pass (baseline)", None)]))
    print(f"median wall and CPU (user + system) time over {runs} interleaved runs, load average {load:.2f} at "
          f"the start, {os.getloadavg()[0]:.2f} at the end")
    for (label, source), samples in timings.items():
        where = f"  [{source}]" if source and len(sources) > 1 else ""
        wall, cpu = (statistics.median(column) for column in zip(*samples))
        print(f"  {label:<28} {wall:7.1f} ms  {wall / bare:5.1f}x   CPU {cpu:7.1f} ms  {cpu / bare_cpu:5.1f}x{where}")


if __name__ == "__main__":
    main()
