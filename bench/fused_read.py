"""Where a fused CSV read's time goes, statement by statement, and in DuckDB's own profile.

    .venv/bin/python bench/fused_read.py [--rows 1000000] [--runs 5] [--source DIR ...]

Writes a CSV file like bench/run.py's (`id, name, amount, at`; `amount` a DOUBLE column, so ADR
0166's exactness check runs), then, in a fresh process per run and tree (interleaved), times what a
read fused into its transform runs (ADR 0202): the read's view (`exact_view`), `input_df`'s view over
it, and the transform's `CREATE TABLE ... AS` (bench/run.py's aggregate), wall and CPU. Then prints
DuckDB's profile of that transform and of DuckDB alone over the same file (`enable_profiling =
'json'`): each operator's time, CPU summed over the threads. `--source DIR` times the tree in DIR
(e.g. `git archive REV osiris components | tar -x -C DIR`).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent

CHILD = r"""
import json, resource, sys, time
import duckdb
from osiris.run.csv_input import exact_view
from osiris.run.csv_output import literal
from osiris.run.drivers.filesystem import _read_options

config = {"delimiter": ",", "header": True, "encoding": "utf-8", "skip_rows": 0, "compression": "infer"}

def options(types, sniffed=None):  # a tree before ADR 0205 takes no `sniffed`
    return _read_options(config, types) if sniffed is None else _read_options(config, types, sniffed)

def cpu():
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime

path, profile, aggregate = sys.argv[1], sys.argv[2], sys.argv[3]
con = duckdb.connect(config={"threads": 2})
con.execute("SET enable_progress_bar = false")  # it would print into the JSON on stdout
marks = [(time.perf_counter(), cpu())]
exact_view(con, '"df_read"', literal(path), options, ())
marks.append((time.perf_counter(), cpu()))
con.execute('CREATE VIEW input_df AS SELECT * FROM "df_read"')
marks.append((time.perf_counter(), cpu()))
con.execute(f"SET enable_profiling = 'json'")
con.execute(f"SET profiling_output = '{profile}'")
con.execute(f"CREATE TABLE made AS {aggregate.format(source='input_df')}")
marks.append((time.perf_counter(), cpu()))
phases = [(1000 * (b[0] - a[0]), 1000 * (b[1] - a[1])) for a, b in zip(marks, marks[1:])]
fused = json.load(open(profile))
con.execute(f"CREATE TABLE alone AS {aggregate.format(source='read_csv(' + literal(path) + options({}) + ')')}")
print(json.dumps({"phases": phases, "fused": fused, "alone": json.load(open(profile))}))
"""
AGGREGATE = "SELECT amount, count(*) AS n, sum(id) AS s FROM {source} WHERE id % 3 = 0 GROUP BY amount ORDER BY amount"
PHASES = ("the read's view", "input_df's view over it", "the transform")


def operators(profile: dict) -> str:
    """`NAME ms` for each operator of a profile that took 10 ms or more (CPU over the threads)."""
    found: list[str] = []

    def walk(node: dict) -> None:
        for child in node.get("children", []):
            if child.get("timing", 0) >= 0.01:
                found.append(f"{child['name']} {child['timing'] * 1000:.0f}")
            walk(child)

    walk({"children": profile["operator"]} if isinstance(profile.get("operator"), list) else profile)
    query = profile["query"]
    return f"wall {query['total_time'] * 1000:5.0f} ms, CPU {query['cpu_time'] * 1000:5.0f} ms: " + ", ".join(found)


def main() -> None:
    import json

    import duckdb

    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--source", action="append", default=[])
    args = parser.parse_args()
    sources = [str(Path(s).resolve()) for s in args.source] or [str(REPO)]
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder, "src.csv")
        duckdb.execute(f"COPY (SELECT g AS id, 'name-' || g AS name, CAST(g % 1000 + 0.25 AS DECIMAL(10,2)) AS amount, "
                       f"TIMESTAMP '2024-01-01' + g * INTERVAL 1 SECOND AS at FROM range(1, {args.rows + 1}) t(g)) "
                       f"TO '{path}' (HEADER)")
        print(f"{args.rows:,} rows, {args.runs} interleaved runs; load average {os.getloadavg()[0]:.2f} at the start")
        for run in range(args.runs):
            for source in sources:
                env = {**os.environ, "PYTHONPATH": source}  # run in `folder`: a child in the repo imports its osiris
                done = subprocess.run([sys.executable, "-c", CHILD, str(path), str(Path(folder, "profile.json")), AGGREGATE],
                                      env=env, cwd=folder, capture_output=True, text=True)
                if done.returncode != 0:
                    raise SystemExit(f"{source}: {done.stderr}")
                found = json.loads(done.stdout)
                phases = ", ".join(f"{name} {wall:.0f} ({cpu:.0f})" for name, (wall, cpu) in zip(PHASES, found["phases"]))
                print(f"[{source}] run {run + 1}: wall ms (CPU ms): {phases}")
                print(f"    fused transform  {operators(found['fused'])}")
                print(f"    DuckDB alone     {operators(found['alone'])}")
        print(f"load average {os.getloadavg()[0]:.2f} at the end")


if __name__ == "__main__":
    main()
