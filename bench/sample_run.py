"""What the sample run (docs/sample-run.md) adds per attempt, against the LLM call of the same run.

    .venv/bin/python bench/sample_run.py --delay 5

Starts the test PostgreSQL and MariaDB (tests/servers) and the local HTTP API, then runs
`osiris generate --dry-run` against the fake Messages API, whose every answer waits DELAY seconds
(a realistic LLM call). Each scenario answers first with a pipeline that validates but fails on
the data, then with the fixed one:
  postgres   unknown column in a PostgreSQL query   -> CSV
  mariadb    unknown column in a MariaDB query      -> CSV
  rest       wrong data_path for an HTTP API         -> CSV
Per attempt it prints the LLM call and the dry run (from the session's events: `llm_response` and
`dry_run_complete` durations; the dry run's includes reading the real columns for the retry
prompt, and on the first attempt importing DuckDB and the database driver), and the share of the
attempt the dry run took.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from tests.fake_anthropic import FakeAnthropic, Reply  # noqa: E402
from tests.run_helpers import csv_step, mysql_step, pg_step  # noqa: E402
from tests.sample_project import SampleProject, pipeline  # noqa: E402
from tests.servers.http_apis import start_api  # noqa: E402
from tests.servers.mariadb import start_mariadb  # noqa: E402
from tests.servers.postgres import start_postgres  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--delay", type=float, default=5.0, help="seconds each fake LLM answer takes")
    parser.add_argument("--repeat", type=int, default=2)
    args = parser.parse_args()
    pg, maria, api = start_postgres(), start_mariadb(), start_api()
    try:
        seed(pg, maria)
        root = Path(tempfile.mkdtemp(prefix="osiris-bench-sample-run-"))
        print(f"fake LLM delay {args.delay:.1f} s; {args.repeat} runs a scenario; median figures")
        print(f"{'scenario':<10} {'attempt':>7} {'LLM call':>10} {'dry run':>9} {'dry run share':>14}")
        for name, answers in scenarios(api.url).items():
            figures = [run_once(root / f"{name}-{n}", pg, maria, answers, args.delay) for n in range(args.repeat)]
            for index in range(2):
                llm = statistics.median(f[index][0] for f in figures)
                dry = statistics.median(f[index][1] for f in figures)
                print(f"{name:<10} {index + 1:>7} {llm / 1000:>8.2f} s {dry:>6.0f} ms {dry / (llm + dry):>13.1%}")
    finally:
        pg.stop()
        maria.stop()
        api.stop()


def seed(pg, maria) -> None:
    import psycopg

    with psycopg.connect(pg.dsn(), autocommit=True) as conn:
        conn.execute("DROP TABLE IF EXISTS bench_customers")
        conn.execute("CREATE TABLE bench_customers (id integer PRIMARY KEY, email text, status text)")
        conn.execute("INSERT INTO bench_customers SELECT i, 'c' || i || '@x.org', "
                     "CASE WHEN i % 2 = 0 THEN 'active' ELSE 'gone' END FROM generate_series(1, 100000) i")
    conn = maria.connect(autocommit=True)
    with conn.cursor() as cursor:
        cursor.execute("DROP TABLE IF EXISTS bench_orders")
        cursor.execute("CREATE TABLE bench_orders (id INT PRIMARY KEY, total DECIMAL(8,2), state VARCHAR(20))")
        cursor.executemany("INSERT INTO bench_orders VALUES (%s, %s, %s)",
                           [(i, i % 100 + 0.5, "paid" if i % 3 else "open") for i in range(1, 20001)])
    conn.close()


def scenarios(api_url: str) -> dict[str, tuple[str, str]]:
    def pg(where: str) -> str:
        return pipeline(pg_step("extract", "read", query=f"SELECT id, email FROM bench_customers WHERE {where}"),
                        csv_step("write", "write", "output/out.csv"))

    def maria(where: str) -> str:
        return pipeline(mysql_step("extract", "read", query=f"SELECT id, total FROM bench_orders WHERE {where}"),
                        csv_step("write", "write", "output/out.csv"))

    def rest(data_path: str) -> str:
        return pipeline({"id": "extract", "component": "rest.extractor", "mode": "read",
                         "config": {"base_url": api_url, "endpoint": "/cursor", "data_path": data_path}},
                        csv_step("write", "write", "output/out.csv"))

    return {"postgres": (pg("active = 1"), pg("status = 'active'")),
            "mariadb": (maria("paid = 1"), maria("state = 'paid'")),
            "rest": (rest("data"), rest("results"))}


def run_once(root: Path, pg, maria, answers: tuple[str, str], delay: float) -> list[tuple[float, float]]:
    """(LLM ms, dry-run ms) for each of the two attempts of one `generate --dry-run`."""
    with FakeAnthropic() as fake:
        fake.add(*(Reply(answer, delay=delay) for answer in answers))
        proj = SampleProject(root, fake, postgres=pg, mariadb=maria)
        done = proj.osiris("generate", "bench request", "--dry-run")
        if done.returncode != 0:
            raise SystemExit(f"generate failed:\n{done.stderr}")
        events = proj.events()
    llm = [e["duration_ms"] for e in events if e["event_type"] == "llm_response"]
    dry = [e["duration_ms"] for e in events if e["event_type"] == "dry_run_complete"]
    return list(zip(llm, dry, strict=True))


if __name__ == "__main__":
    started = time.perf_counter()
    main()
    print(f"(bench took {time.perf_counter() - started:.0f} s)")
