"""How API records become a DuckDB table: seconds and peak memory per approach (ADR 0065).

    .venv/bin/python bench/http_records.py [RECORDS]

Each approach runs in its own process (peak RSS is per process) and loads the same nested records,
arriving in pages of 1,000 as an API would send them:
- spool:     every page appended to one NDJSON file, one read_json at the end (what the drivers do)
- per-page:  one NDJSON file per page, read_json + INSERT BY NAME into the table each time
- executemany: rows flattened to tuples in Python and inserted with executemany
"""

from __future__ import annotations

import json
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

PAGE = 1000


def pages(total: int):
    for start in range(0, total, PAGE):
        yield [{"id": i, "name": f"customer-{i}", "email": f"c{i}@example.com", "active": i % 2 == 0,
                "address": {"city": f"city-{i % 97}", "zip": f"{i % 99999:05d}"}, "tags": [f"t{i % 7}", "x"]}
               for i in range(start, min(start + PAGE, total))]


def spool(con, total: int) -> None:
    from osiris.run.json_records import RecordSpool

    with RecordSpool() as records:
        for page in pages(total):
            records.add(page)
        records.load(con, "t")


def per_page(con, total: int) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "page.ndjson"
        for number, page in enumerate(pages(total)):
            path.write_text("".join(json.dumps(r) + "\n" for r in page))
            source = f"read_json('{path}', format = 'newline_delimited')"
            if number == 0:
                con.execute(f"CREATE TABLE t AS SELECT * FROM {source}")
            else:
                con.execute(f"INSERT INTO t BY NAME SELECT * FROM {source}")


def executemany(con, total: int) -> None:
    con.execute("CREATE TABLE t (id BIGINT, name VARCHAR, email VARCHAR, active BOOLEAN, "
                "address STRUCT(city VARCHAR, zip VARCHAR), tags VARCHAR[])")
    for page in pages(total):
        con.executemany("INSERT INTO t VALUES (?, ?, ?, ?, ?, ?)",
                        [(r["id"], r["name"], r["email"], r["active"], r["address"], r["tags"]) for r in page])


def one(approach: str, total: int) -> None:
    import duckdb

    con = duckdb.connect()
    started = time.perf_counter()
    globals()[approach](con, total)
    seconds = time.perf_counter() - started
    rows = con.execute("SELECT count(*) FROM t").fetchone()[0]
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"{approach:12} {rows:>9,} rows  {seconds:6.2f} s  {rows / seconds:>10,.0f} rows/s  peak RSS {peak:6.0f} MB")


def main() -> None:
    if len(sys.argv) > 2:
        return one(sys.argv[2], int(sys.argv[1]))
    total = int(sys.argv[1]) if len(sys.argv) > 1 else 200_000
    for approach in ("spool", "per_page", "executemany"):
        subprocess.run([sys.executable, __file__, str(total if approach != "executemany" else total // 10), approach],
                       check=True)


if __name__ == "__main__":
    main()
