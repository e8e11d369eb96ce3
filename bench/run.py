"""Throughput, memory and import time of `osiris run` against real PostgreSQL and MariaDB.

    .venv/bin/python bench/run.py --rows 1000000 --repeat 3 [--copies pg-csv,csv-pg,pg-maria,csv-sql-csv]

Starts the test servers (tests/servers), loads ROWS rows into PostgreSQL (`id bigint, name text,
amount numeric(10,2), at timestamp`) and a CSV file of them, then times each copy done by `osiris run`
and by its baselines (bench/copy_baselines.py: `psql \\copy`, a psycopg script, the C clients piped
into MariaDB's LOAD DATA, PyMySQL executemany, DuckDB alone), every one a process of its own,
interleaved round by round:
  pg-csv       PostgreSQL -> CSV          csv-pg       CSV -> PostgreSQL
  pg-maria     PostgreSQL -> MariaDB      csv-sql-csv  CSV -> filter + aggregate -> CSV
Prints each median with rows/s, each baseline's time over Osiris's (the share of its speed Osiris
reaches), the peak RSS of each `osiris run` child, then the peak RSS of PostgreSQL -> CSV and of
CSV -> SQL -> CSV at each of --memory-rows (to show that memory does not grow with rows), and the
import time of real runs (below). Prints `uptime` with the figures: the machine is shared.

`--source DIR` (repeatable) times `osiris run` from the tree in DIR instead (it must hold `osiris/`,
e.g. `git archive REV osiris | tar -x -C DIR`), the trees interleaved run by run: a before/after
ratio from one run on a noisy machine.

    .venv/bin/python bench/run.py --imports-only

measures only the import time: `python -X importtime` of a real `osiris run` of a CSV -> CSV
pipeline (everything it imports: Osiris, its run modules, DuckDB), less a bare interpreter's own
imports; then what a PostgreSQL read (psycopg) and a MariaDB write (PyMySQL) add, from real
PostgreSQL -> CSV and PostgreSQL -> MariaDB runs of a small table.
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

from tests.run_helpers import RunProject, csv_step, mysql_step, pg_step, sql_step  # noqa: E402
from tests.servers.mariadb import start_mariadb  # noqa: E402
from tests.servers.postgres import start_postgres  # noqa: E402
from bench.copy_baselines import AGGREGATE, Baseline, baselines  # noqa: E402
from tests.support import clean_env  # noqa: E402


COPIES = {"pg-csv": "PostgreSQL -> CSV", "csv-pg": "CSV -> PostgreSQL", "pg-maria": "PostgreSQL -> MariaDB",
          "csv-sql-csv": "CSV -> SQL -> CSV"}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--repeat", type=int, default=2)
    parser.add_argument("--copies", default=",".join(COPIES), help="which copies to time: " + ", ".join(COPIES))
    parser.add_argument("--memory-rows", default="100000,1000000,3000000",
                        help="row counts at which to measure the peak RSS of PostgreSQL -> CSV and CSV -> SQL -> CSV "
                             "(empty: none)")
    parser.add_argument("--imports-only", action="store_true", help="measure only the import time of real runs")
    parser.add_argument("--source", action="append", default=[], help="a tree holding osiris/ to time instead")
    args = parser.parse_args()
    pg, maria = start_postgres(), start_mariadb()
    try:
        if args.source:
            compare_sources(pg, maria, args.rows, args.repeat, [str(Path(s).resolve()) for s in args.source],
                            [COPIES[key] for key in args.copies.split(",") if key])
            return
        if not args.imports_only:
            bench(pg, maria, args.rows, args.repeat, [COPIES[key] for key in args.copies.split(",") if key])
            memory_series(pg, maria, [int(n) for n in args.memory_rows.split(",") if n])
        import_times(pg, maria)
    finally:
        pg.stop()
        maria.stop()


def compare_sources(pg, maria, rows: int, repeat: int, sources: list[str], copies: list[str]) -> None:
    """Each copy by `osiris run` from each tree and by its baselines, interleaved: medians, the ratio to
    the first tree, and each tree's share of the fastest baseline's speed."""
    proj, pipelines = prepare(pg, maria, rows)
    pipelines = {name: path for name, path in pipelines.items() if name in copies}
    plans = {name: baselines(name, pg, maria, proj.root) for name in pipelines}
    times: dict[tuple[str, str], list[float]] = {}
    loads = [os.getloadavg()[0]]
    for round_ in range(repeat + 1):  # round 0 only fills each tree's bytecode cache
        for name, path in pipelines.items():
            for baseline in plans[name] if round_ else []:
                reset_targets(pg, maria)
                times.setdefault((name, baseline.name), []).append(run_baseline(baseline))
            for source in sources:
                reset_targets(pg, maria)
                seconds, _ = run_osiris(proj, path, source)
                if round_:
                    times.setdefault((name, source), []).append(seconds)
        loads.append(os.getloadavg()[0])
    print(f"rows: {rows:,}, {repeat} interleaved rounds, medians; load average {min(loads):.2f}-{max(loads):.2f} "
          f"(uptime: {uptime()}); ratio: the first tree's time / this tree's; of fastest: its time / this tree's")
    for name in pipelines:
        first = statistics.median(times[(name, sources[0])])
        fastest = min(statistics.median(times[(name, b.name)]) for b in plans[name])
        for baseline in plans[name]:
            print(f"{name:24} {baseline.name:40} {statistics.median(times[(name, baseline.name)]):8.2f} s")
        for source in sources:
            ours = statistics.median(times[(name, source)])
            print(f"{name:24} {source:40} {ours:8.2f} s {rows / ours:12,.0f} rows/s {first / ours:6.2f}  "
                  f"of fastest {fastest / ours:5.2f}")


def prepare(pg, maria, rows: int) -> tuple[RunProject, dict[str, Path]]:
    """The source table, the targets, the CSV file and the three pipelines."""
    import psycopg

    root = Path(tempfile.mkdtemp(prefix="osiris-bench-"))
    proj = RunProject(root / "project", postgres=pg, mariadb=maria)
    with psycopg.connect(pg.dsn(), autocommit=True) as conn:
        conn.execute("DROP TABLE IF EXISTS src; DROP TABLE IF EXISTS dst")
        conn.execute("CREATE TABLE src (id bigint PRIMARY KEY, name text, amount numeric(10,2), at timestamp)")
        conn.execute("INSERT INTO src SELECT g, 'name-' || g, g %% 1000 + 0.25, "
                     "timestamp '2024-01-01' + g * interval '1 second' FROM generate_series(1, %s) g", (rows,))
        conn.execute("CREATE TABLE dst (LIKE src INCLUDING ALL)")
    mconn = maria.connect(autocommit=True)
    with mconn.cursor() as cursor:
        cursor.execute("DROP TABLE IF EXISTS dst")
        cursor.execute("CREATE TABLE dst (id BIGINT PRIMARY KEY, name VARCHAR(40), amount DECIMAL(10,2), "
                       "at DATETIME) ENGINE=InnoDB")
    csv_path = proj.root / "src.csv"
    pipelines = {
        "PostgreSQL -> CSV": proj.pipeline([pg_step("read", "read", table="src"),
                                            csv_step("write", "write", "out.csv")], name="pg-to-csv"),
        "CSV -> PostgreSQL": proj.pipeline([csv_step("read", "read", "src.csv"),
                                            pg_step("write", "write", table="dst", write_mode="replace")],
                                           name="csv-to-pg"),
        "PostgreSQL -> MariaDB": proj.pipeline([pg_step("read", "read", table="src"),
                                                mysql_step("write", "write", table="dst", mode="replace",
                                                           batch_size=5000)], name="pg-to-maria"),
        "CSV -> SQL -> CSV": proj.pipeline([csv_step("read", "read", "src.csv"),
                                            sql_step("aggregate", AGGREGATE.format(source="input_df")),
                                            csv_step("write", "write", "aggregate.csv")], name="csv-sql-csv"),
    }
    copy_out(pg, csv_path)
    return proj, pipelines


def bench(pg, maria, rows: int, repeat: int, copies: list[str]) -> None:
    """Each copy by `osiris run` and by its baselines (bench/copy_baselines.py), every one a process of
    its own, interleaved round by round; medians, rows/s, and each baseline's time over Osiris's (the
    share of the baseline's speed Osiris reaches: 1.0 is as fast)."""
    proj, pipelines = prepare(pg, maria, rows)
    pipelines = {name: path for name, path in pipelines.items() if name in copies}
    plans = {name: baselines(name, pg, maria, proj.root) for name in pipelines}
    for path in pipelines.values():  # untimed: fills the bytecode caches, as an install has them
        reset_targets(pg, maria)
        run_osiris(proj, path)
    times: dict[tuple[str, str], list[float]] = {}
    peaks: dict[str, int] = {}
    for _ in range(repeat):
        for name, path in pipelines.items():
            for baseline in plans[name]:
                reset_targets(pg, maria)
                times.setdefault((name, baseline.name), []).append(run_baseline(baseline))
            reset_targets(pg, maria)
            seconds, peak = run_osiris(proj, path)
            times.setdefault((name, "osiris"), []).append(seconds)
            peaks[name] = max(peaks.get(name, 0), peak)
    print(f"rows: {rows:,}, {repeat} interleaved rounds, medians; load average {os.getloadavg()[0]:.2f} "
          f"(uptime: {uptime()})")
    print(f"{'copy':24} {'by':18} {'seconds':>8} {'rows/s':>12} {'osiris / it':>11}")
    for name in pipelines:
        ours = statistics.median(times[(name, "osiris")])
        print(f"{name:24} {'osiris run':18} {ours:8.2f} {rows / ours:12,.0f} {'':>11}   peak RSS {peaks[name] / 1024:.0f} MB")
        fastest = min(statistics.median(times[(name, b.name)]) for b in plans[name])
        for baseline in plans[name]:
            theirs = statistics.median(times[(name, baseline.name)])
            mark = "  (fastest)" if theirs == fastest and len(plans[name]) > 1 else ""
            print(f"{'':24} {baseline.name:18} {theirs:8.2f} {rows / theirs:12,.0f} {theirs / ours:11.2f}{mark}")


def run_baseline(baseline: Baseline) -> float:
    """Wall time of one baseline process."""
    started = time.perf_counter()
    done = subprocess.run(baseline.command, shell=baseline.shell, env=baseline.env, stdout=subprocess.DEVNULL,
                          stderr=subprocess.PIPE, check=False)
    seconds = time.perf_counter() - started
    if done.returncode != 0:
        raise SystemExit(f"baseline {baseline.name} failed: {done.stderr.decode()[-2000:]}")
    return seconds


def uptime() -> str:
    return subprocess.run(["uptime"], capture_output=True, text=True, check=False).stdout.strip()


def memory_series(pg, maria, counts: list[int]) -> None:
    """Peak RSS of one PostgreSQL -> CSV run and one CSV -> SQL -> CSV run per row count (flat once
    DuckDB's buffer pool is full, whatever the rows), each beside one run of its fastest baseline: the
    ratio as the fixed start of a run weighs less."""
    import psycopg

    proj = RunProject(Path(tempfile.mkdtemp(prefix="osiris-bench-mem-")) / "project", postgres=pg, mariadb=maria)
    print(f"peak RSS by rows (uptime: {uptime()}):")
    timings: dict[str, list[tuple[int, float, float]]] = {}
    for count in counts:
        with psycopg.connect(pg.dsn(), autocommit=True) as conn:
            conn.execute("DROP TABLE IF EXISTS mem_src")
            conn.execute("CREATE TABLE mem_src AS SELECT g::bigint AS id, 'name-' || g AS name, "
                         "(g %% 1000 + 0.25)::numeric(10,2) AS amount, "
                         "timestamp '2024-01-01' + g * interval '1 second' AS at FROM generate_series(1, %s) g",
                         (count,))
            with conn.cursor() as cursor, open(proj.root / "mem.csv", "wb") as out, \
                    cursor.copy("COPY mem_src TO STDOUT (FORMAT CSV, HEADER)") as copy:
                for chunk in copy:
                    out.write(chunk)
        runs = {"PostgreSQL -> CSV": [pg_step("read", "read", table="mem_src"), csv_step("write", "write", "mem-out.csv")],
                "CSV -> SQL -> CSV": [csv_step("read", "read", "mem.csv"),
                                      sql_step("aggregate", AGGREGATE.format(source="input_df")),
                                      csv_step("write", "write", "mem-aggregate.csv")]}
        for name, steps in runs.items():
            seconds, peak = run_osiris(proj, proj.pipeline(steps, name=f"mem-{count}"))
            baseline = baselines(name, pg, maria, proj.root, table="mem_src", csv_name="mem.csv")[0]
            theirs = run_baseline(baseline)
            timings.setdefault(name, []).append((count, seconds, theirs))
            print(f"  {name:24} {count:>11,} rows  {peak / 1024:5.0f} MB  ({count / seconds:,.0f} rows/s; "
                  f"{baseline.name} {count / theirs:,.0f} rows/s, osiris / it {theirs / seconds:.2f})")
        (proj.root / "mem.csv").unlink()
    for name, points in timings.items():  # the rows beyond the first count: throughput without the fixed start
        (low, ours_low, theirs_low), (high, ours_high, theirs_high) = points[0], points[-1]
        if high > low and ours_high > ours_low and theirs_high > theirs_low:
            extra = high - low
            print(f"  {name:24} marginal, {low:,} -> {high:,} rows: osiris {extra / (ours_high - ours_low):,.0f} "
                  f"rows/s, baseline {extra / (theirs_high - theirs_low):,.0f} rows/s, osiris / it "
                  f"{(theirs_high - theirs_low) / (ours_high - ours_low):.2f}")


def reset_targets(pg, maria) -> None:
    """Empty the targets and let PostgreSQL clean up (outside the timing), so that each copy starts
    from the same state: the dead rows a replace leaves behind made one side pay for the other's
    DELETE, and swung the same copy between 1.3 s and 3.5 s (ADR 0125)."""
    import psycopg

    with psycopg.connect(pg.dsn(), autocommit=True) as conn:
        conn.execute("TRUNCATE dst")
        conn.execute("VACUUM dst")
        conn.execute("CHECKPOINT")
    mconn = maria.connect(autocommit=True)
    with mconn.cursor() as cursor:
        cursor.execute("TRUNCATE TABLE dst")
    mconn.close()


def timed(action) -> float:
    started = time.perf_counter()
    action()
    return time.perf_counter() - started


def run_osiris(proj: RunProject, path: Path, source: str | None = None) -> tuple[float, int]:
    """Wall time and peak RSS (KiB) of one `osiris run` child (its own rusage, from wait4), of the
    tree `source` when given."""
    env = clean_env(**proj.env, **({"PYTHONPATH": source} if source else {}))
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # an installed Osiris has its bytecode cached
    with tempfile.TemporaryFile() as err:
        started = time.perf_counter()
        child = subprocess.Popen([sys.executable, "-m", "osiris", "run", str(path)], cwd=proj.root, env=env,
                                 stdout=subprocess.DEVNULL, stderr=err)
        _pid, status, usage = os.wait4(child.pid, 0)
        seconds = time.perf_counter() - started
        child.returncode = os.waitstatus_to_exitcode(status)
        if child.returncode != 0:
            err.seek(0)
            raise SystemExit(f"osiris run {path.name} failed: {err.read().decode()}")
    return seconds, usage.ru_maxrss


def copy_out(pg, path: Path) -> None:
    import psycopg

    with psycopg.connect(pg.dsn()) as conn, conn.cursor() as cursor, open(path, "wb") as out:
        out.write(b"id,name,amount,at\n")
        with cursor.copy("COPY src TO STDOUT (FORMAT CSV)") as copy:
            for chunk in copy:
                out.write(chunk)


def import_times(pg, maria, rounds: int = 9) -> None:
    """Milliseconds of imports in real `osiris run` children (bytecode cached), medians of `rounds`."""
    import psycopg

    proj = RunProject(Path(tempfile.mkdtemp(prefix="osiris-bench-imports-")) / "project", postgres=pg, mariadb=maria)
    with psycopg.connect(pg.dsn(), autocommit=True) as conn:
        conn.execute("DROP TABLE IF EXISTS imports_src")
        conn.execute("CREATE TABLE imports_src AS SELECT g::bigint AS id, 'name-' || g AS name "
                     "FROM generate_series(1, 100) g")
    mconn = maria.connect(autocommit=True)
    with mconn.cursor() as cursor:
        cursor.execute("DROP TABLE IF EXISTS imports_dst")
        cursor.execute("CREATE TABLE imports_dst (id BIGINT PRIMARY KEY, name VARCHAR(40)) ENGINE=InnoDB")
    mconn.close()
    (proj.root / "small.csv").write_text("id,name\n" + "".join(f"{n},name-{n}\n" for n in range(1, 101)))
    runs = {
        "CSV -> CSV": proj.pipeline([csv_step("read", "read", "small.csv"), csv_step("write", "write", "out.csv")],
                                    name="imports-csv"),
        "PostgreSQL -> CSV": proj.pipeline([pg_step("read", "read", table="imports_src"),
                                            csv_step("write", "write", "out.csv")], name="imports-pg"),
        "PostgreSQL -> MariaDB": proj.pipeline([pg_step("read", "read", table="imports_src"),
                                                mysql_step("write", "write", table="imports_dst", mode="replace")],
                                               name="imports-maria"),
    }
    env = clean_env(**proj.env)
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # an installed Osiris has its bytecode cached
    bare = [sys.executable, "-c", "pass"]
    commands = {"bare": bare, **{name: [sys.executable, "-m", "osiris", "run", str(path)]
                                 for name, path in runs.items()}}
    for command in commands.values():  # untimed: fills the bytecode caches
        imported_ms(command, proj.root, env)
    times: dict[str, list[float]] = {name: [] for name in commands}
    libraries: dict[str, list[float]] = {"duckdb": [], "psycopg": [], "pymysql": []}
    for _ in range(rounds):  # interleaved, so that a busy moment falls on every command alike
        for name, command in commands.items():
            total, modules = imported_ms(command, proj.root, env)
            times[name].append(total)
            for library in libraries:
                if name == {"duckdb": "CSV -> CSV", "psycopg": "PostgreSQL -> CSV",
                            "pymysql": "PostgreSQL -> MariaDB"}[library]:
                    libraries[library].append(modules[library])
    median = {name: statistics.median(values) - (0 if name == "bare" else statistics.median(times["bare"]))
              for name, values in times.items()}
    own = {library: statistics.median(values) for library, values in libraries.items()}
    print(f"imports of a run (python -X importtime, median of {rounds}, less a bare interpreter's "
          f"{median['bare']:.0f} ms):")
    print(f"  CSV -> CSV: {median['CSV -> CSV']:.0f} ms, of which duckdb {own['duckdb']:.0f} ms")
    print(f"  PostgreSQL -> CSV: {median['PostgreSQL -> CSV']:.0f} ms; psycopg alone {own['psycopg']:.0f} ms")
    print(f"  PostgreSQL -> MariaDB: {median['PostgreSQL -> MariaDB']:.0f} ms; PyMySQL alone {own['pymysql']:.0f} ms")


def imported_ms(command: list[str], cwd: Path, env: dict[str, str]) -> tuple[float, dict[str, float]]:
    """The milliseconds a child spends importing (the sum of its top-level imports' cumulative
    times, from `-X importtime`), and each module's cumulative time where it was first imported."""
    child = subprocess.run([command[0], "-X", "importtime", *command[1:]], cwd=cwd, env=env,
                           capture_output=True, text=True)
    if child.returncode != 0:
        raise SystemExit(f"{' '.join(command)} failed: {child.stderr[-2000:]}")
    total, modules = 0.0, {}
    for line in child.stderr.splitlines():
        if not line.startswith("import time:") or line.count("|") != 2:
            continue
        _self, cumulative, name = line.split("|")
        if not cumulative.strip().isdigit():
            continue  # the header line
        modules.setdefault(name.strip(), int(cumulative) / 1000)
        if not name.startswith("  "):  # a nested import is counted in its parent's
            total += int(cumulative) / 1000
    return total, modules


if __name__ == "__main__":
    os.environ.setdefault("NO_COLOR", "1")
    main()
