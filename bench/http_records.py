"""How API records become a DuckDB table: seconds and peak memory per approach (ADR 0065).

    .venv/bin/python bench/http_records.py [RECORDS]

Each approach runs in its own process (peak RSS is per process) and loads the same nested records,
arriving in pages of 1,000 as an API would send them:
- spool:     every page appended to one NDJSON file, one read_json at the end (what the drivers do)
- per-page:  one NDJSON file per page, read_json + INSERT BY NAME into the table each time
- executemany: rows flattened to tuples in Python and inserted with executemany
- rest-driver: the whole rest.extractor driver paging a local HTTP server (pages of 1,000)
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


def rest_driver(con, total: int) -> None:
    import threading
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
    from urllib.parse import parse_qs, urlsplit

    from osiris.run.driver import StepContext
    from osiris.run.drivers import driver_for

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: object) -> None:
            pass

        def do_GET(self) -> None:
            page = int(parse_qs(urlsplit(self.path).query)["page"][0])
            start = (page - 1) * PAGE
            rows = next(pages(min(PAGE, total - start)), []) if start < total else []
            data = json.dumps({"items": [dict(r, id=r["id"] + start) for r in rows]}).encode()
            self.send_response(200)
            self.send_header("content-length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    config = {"base_url": f"http://127.0.0.1:{server.server_address[1]}", "endpoint": "/c", "pagination": "page",
              "data_path": "items"}
    driver_for("rest.extractor").run(StepContext("c", "rest.extractor", "read", config, con, "t", {}))
    server.shutdown()


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
    for approach in ("spool", "per_page", "executemany", "rest_driver"):
        subprocess.run([sys.executable, __file__, str(total if approach != "executemany" else total // 10), approach],
                       check=True)


if __name__ == "__main__":
    main()
