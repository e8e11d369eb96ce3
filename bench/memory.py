"""Peak memory of `osiris run` on data larger than its cap: CSV -> transform with ORDER BY -> PostgreSQL.

    .venv/bin/python bench/memory.py [--wide-gb 0.1,1] [--narrow-gb 0.3,3] [--narrow-rows 1000000,10000000]
                                     [--memory-limit 256MB] [--threads N]

Starts the test PostgreSQL (tests/servers), writes each CSV file with DuckDB (wide rows: an id and
1,000 characters of text; narrow rows: four short columns, about 36 bytes), then runs one pipeline
per file: read the CSV, `SELECT * FROM input_df ORDER BY id DESC`, write to a PostgreSQL table with
`write_mode: replace`. Each `osiris run` is a child process; its peak RSS comes from its own rusage
(wait4). Prints, per size, the rows, the seconds, the peak RSS and the largest size the run's spill
directory reached, then checks that the target holds every row in the sorted order's first and last
ids. Memory is flat when the peak does not grow with the size (docs/performance.md, ADR 0200).
`--memory-limit` and `--threads` set `run.memory_limit` and `run.threads` for every child (through
OSIRIS_RUN__*; unset: the machine's defaults); the peak is then to be read against the limit.
The files need disk: about 1.1x each size for the file, as much again for the spill and PostgreSQL's
table.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from tests.run_helpers import RunProject, csv_step, pg_step, sql_step  # noqa: E402
from tests.servers.postgres import start_postgres  # noqa: E402
from tests.support import clean_env  # noqa: E402

WIDE_BYTES, NARROW_BYTES = 1_008, 36  # a row of each file, as written
WIDE = ("SELECT i AS id, substr(repeat(md5(i::varchar) || md5((i * 7)::varchar), 16), 1, 1000) AS txt "
        "FROM range({rows}) r(i)")
NARROW = ("SELECT i AS id, i * 3 % 1000003 AS amount, 'code-' || (i % 1000) AS code, "
          "DATE '2020-01-01' + (i % 2000)::int AS day FROM range({rows}) r(i)")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--wide-gb", default="0.1,1", help="sizes of the wide-row files, in GB")
    parser.add_argument("--narrow-gb", default="0.3,3", help="sizes of the narrow-row files, in GB")
    parser.add_argument("--narrow-rows", default="", help="narrow-row files by rows, e.g. 1000000,10000000")
    parser.add_argument("--memory-limit", help="run.memory_limit for every run, e.g. 256MB")
    parser.add_argument("--threads", help="run.threads for every run")
    args = parser.parse_args()
    narrow = [float(s) for s in args.narrow_gb.split(",") if s] + [
        int(s) * NARROW_BYTES / 1e9 for s in args.narrow_rows.split(",") if s]
    print(subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip(), flush=True)
    pg = start_postgres()
    root = Path(tempfile.mkdtemp(prefix="osiris-memory-"))
    try:
        proj = RunProject(root / "project", postgres=pg)
        for name, value in (("OSIRIS_RUN__MEMORY_LIMIT", args.memory_limit), ("OSIRIS_RUN__THREADS", args.threads)):
            if value:
                proj.env[name] = value
        print(f"run.memory_limit {args.memory_limit or 'default'}, run.threads {args.threads or 'default'}",
              flush=True)
        print(f"{'data':24} {'rows':>12} {'seconds':>8} {'peak RSS':>9} {'spill peak':>11}  target", flush=True)
        wide = [float(s) for s in args.wide_gb.split(",") if s]
        for kind, sizes, query, row_bytes in (("wide", wide, WIDE, WIDE_BYTES), ("narrow", narrow, NARROW, NARROW_BYTES)):
            for gb in sizes:
                measure(proj, pg, kind, gb, query.format(rows=round(gb * 1e9 / row_bytes)))
        print(subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip(), flush=True)
    finally:
        pg.stop()
        shutil.rmtree(root, ignore_errors=True)


def measure(proj: RunProject, pg, kind: str, gb: float, query: str) -> None:
    import duckdb

    source = proj.root / "source.csv"
    with duckdb.connect() as con:
        con.execute(f"COPY ({query}) TO '{source}' (FORMAT csv)")
    path = proj.pipeline([csv_step("read", "read", "source.csv"),
                          sql_step("sort", "SELECT * FROM input_df ORDER BY id DESC"),
                          pg_step("write", "write", table=f"memory_{kind}", write_mode="replace",
                                  create_if_missing=True)], name=f"memory-{kind}")
    env = clean_env(**proj.env)
    spill = SpillWatch(proj.root / ".osiris" / "tmp")
    started = time.perf_counter()
    child = subprocess.Popen([sys.executable, "-m", "osiris", "run", str(path)], cwd=proj.root, env=env,
                             stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    spill.start()
    _pid, status, usage = os.wait4(child.pid, 0)
    seconds = time.perf_counter() - started
    spill.stop()
    stderr = child.stderr.read().decode() if child.stderr else ""
    source.unlink()
    if status:
        print(f"{kind} {gb:g} GB failed (status {status}): {stderr.strip()[-400:]}", flush=True)
        return
    rows, first, last = target(pg, f"memory_{kind}")
    print(f"{kind + f' {gb:g} GB':24} {rows:12,} {seconds:8.1f} {usage.ru_maxrss / 1024:7.0f} MB "
          f"{spill.peak / 1e6:8.0f} MB  ids {first}..{last}", flush=True)


def target(pg, table: str) -> tuple[int, int, int]:
    """The target's row count and the ids of its first and last rows as written (ctid order)."""
    import psycopg

    with psycopg.connect(pg.dsn(), autocommit=True) as conn:
        rows = conn.execute(f"SELECT count(*) FROM {table}").fetchone()[0]
        first = conn.execute(f"SELECT id FROM {table} ORDER BY ctid LIMIT 1").fetchone()[0]
        last = conn.execute(f"SELECT id FROM {table} ORDER BY ctid DESC LIMIT 1").fetchone()[0]
        conn.execute(f"DROP TABLE {table}")
    return rows, first, last


class SpillWatch(threading.Thread):
    """The largest total size of the files under the project's run scratch directories, polled."""

    def __init__(self, root: Path) -> None:
        super().__init__(daemon=True)
        self.root, self.peak, self._done = root, 0, threading.Event()

    def run(self) -> None:
        while not self._done.wait(0.5):
            try:
                self.peak = max(self.peak, sum(_size(p) for p in self.root.rglob("*")))
            except OSError:  # a directory removed while we looked
                continue

    def stop(self) -> None:
        self._done.set()
        self.join()


def _size(path: Path) -> int:
    try:
        return path.stat().st_size if path.is_file() else 0
    except OSError:  # removed while we looked
        return 0


if __name__ == "__main__":
    main()
