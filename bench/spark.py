"""The same 1M-row pipeline on both engines: wall time, CPU time and peak memory (docs/spark.md).

    .venv/bin/python bench/spark.py --rows 1000000 --rounds 2 --master 'local[2]'
    .venv/bin/python bench/spark.py --rows 1000000 --rounds 1 --pipeline copy   # PostgreSQL -> CSV only

Starts the test PostgreSQL (tests/servers), loads ROWS orders, then runs, interleaved round by
round, `osiris run` of one pipeline on `--engine duckdb` and on `--engine spark`:
PostgreSQL -> two transforms -> CSV and PostgreSQL (a per-country total, upserted). Each run is a
child process; its wall time, its CPU time with its children's (the JVM included) and its peak
RSS with its children's (ru_maxrss of the largest child, so the JVM's, for Spark) are printed,
with the ratio spark/duckdb of each. The machine is shared: compare ratios of one run, and quote
`uptime` with the figures.
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

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from tests.run_helpers import RunProject, csv_step, pg_step, sql_step  # noqa: E402
from tests.servers.postgres import start_postgres  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--master", default="local[2]")
    parser.add_argument("--pipeline", choices=("transforms", "copy"), default="transforms",
                        help="copy: PostgreSQL -> CSV, every row and column, no transform (issue 40)")
    args = parser.parse_args()
    server = start_postgres()
    try:
        _load(server, args.rows)
        with tempfile.TemporaryDirectory() as folder:
            project = RunProject(Path(folder) / "p", postgres=server)
            settings = project.root / ".osiris.yaml"
            settings.write_text(settings.read_text() + f"run:\n  spark:\n    master: '{args.master}'\n")
            path = _pipeline(project, args.pipeline)
            figures: dict[str, list[tuple[float, float, float]]] = {"duckdb": [], "spark": []}
            for _round in range(args.rounds):
                for engine in ("duckdb", "spark"):
                    figures[engine].append(_measure(project, path, engine))
        print(f"pipeline: {args.pipeline}  rows: {args.rows:,}  master: {args.master}  rounds: {args.rounds}  "
              f"load: {os.getloadavg()[0]:.1f}")
        print(f"{'engine':8} {'wall s':>8} {'CPU s':>8} {'peak MB':>8}")
        medians = {e: [statistics.median(f[i] for f in figures[e]) for i in range(3)] for e in figures}
        for engine, (wall, cpu, peak) in medians.items():
            print(f"{engine:8} {wall:8.1f} {cpu:8.1f} {peak:8.0f}")
        ratios = [s / d if d else float("nan") for s, d in zip(medians["spark"], medians["duckdb"])]
        print(f"{'ratio':8} {ratios[0]:8.1f} {ratios[1]:8.1f} {ratios[2]:8.1f}  (spark / duckdb)")
    finally:
        server.stop()


def _pipeline(project: RunProject, kind: str) -> Path:
    """`copy`: PostgreSQL -> CSV; `transforms`: PostgreSQL -> a filter -> CSV, and a total upserted."""
    if kind == "copy":
        return project.pipeline([pg_step("read", "read", table="bench_orders"),
                                 csv_step("write-csv", "write", "out/orders.csv")])
    return project.pipeline([
        pg_step("read", "read", table="bench_orders"),
        sql_step("recent", "SELECT id, country, amount, placed FROM input_df WHERE amount > 10"),
        {**csv_step("write-csv", "write", "out/recent.csv"), "needs": ["recent"]},
        {**sql_step("totals", "SELECT country, count(*) AS orders, sum(amount) AS total "
                              "FROM df_recent GROUP BY country"), "needs": ["recent"]},
        {**pg_step("write-pg", "write", table="bench_totals", write_mode="upsert", primary_key=["country"],
                   create_if_missing=True), "needs": ["totals"]}])


def _load(server, rows: int) -> None:
    import psycopg

    with psycopg.connect(server.dsn(), autocommit=True) as conn:
        conn.execute("DROP TABLE IF EXISTS bench_orders, bench_totals")
        conn.execute("CREATE TABLE bench_orders (id integer PRIMARY KEY, country text, amount numeric(10,2), "
                     "placed timestamp)")
        conn.execute("INSERT INTO bench_orders SELECT i, (ARRAY['CZ','US','DE','FR','JP'])[i % 5 + 1], "
                     "(i % 1000) / 10.0, '2024-01-01'::timestamp + i * interval '1 minute' "
                     f"FROM generate_series(1, {rows}) AS i")


# A wrapper per run: it becomes the subreaper of the run's process tree (the JVM outlives its
# parent for a moment and would go to init), waits for every process of it, and prints their CPU
# seconds and the peak RSS of the largest.
_WRAPPER = """
import ctypes, os, resource, subprocess, sys
ctypes.CDLL(None).prctl(36, 1, 0, 0, 0)  # PR_SET_CHILD_SUBREAPER
code = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL).returncode
while True:
    try:
        os.wait()
    except ChildProcessError:
        break
usage = resource.getrusage(resource.RUSAGE_CHILDREN)
print(code, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024)
"""


def _measure(project: RunProject, path: Path, engine: str) -> tuple[float, float, float]:
    """(wall s, CPU s of the run and every process it started, peak RSS MB of the largest) of one run."""
    started = time.perf_counter()
    result = subprocess.run([sys.executable, "-c", _WRAPPER, str(REPO / ".venv" / "bin" / "osiris"), "run",
                             str(path), "--engine", engine],
                            cwd=project.root, env={**os.environ, **project.env}, capture_output=True, text=True)
    wall = time.perf_counter() - started
    code, cpu, peak = result.stdout.split()
    if code != "0":
        sys.exit(f"{engine} run failed:\n{result.stderr}")
    return wall, float(cpu), float(peak)


if __name__ == "__main__":
    main()
