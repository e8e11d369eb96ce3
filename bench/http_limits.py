"""What hostile or huge API answers cost the rest driver: seconds and peak memory (issue 25).

    .venv/bin/python bench/http_limits.py [CASE...]

A local server (this process) answers; each case runs the real rest.extractor driver in its own
process (peak RSS is per process) on a DuckDB with the engine's memory cap, and prints its outcome:
- json-48:         a 48 MiB JSON body of 1 KiB records (under the default 64 MiB cap): read
- json-256:        a 256 MiB JSON body, default cap: stopped at 64 MiB with OML523
- json-256-raised: the same body with max_response_mb: 300: read a record at a time from disk
- json-256-in-memory: the same, with the spill size raised so that it is parsed whole in memory
  (how every body was read before), for the comparison
- bomb-1g:         a 1 MB gzip body inflating to 1 GiB, default cap: stopped with OML523
- trickle:         one byte every 0.2 s, timeout: 3: cut at the deadline (OML505)
"""

from __future__ import annotations

import json
import resource
import subprocess
import sys
import threading
import time
from http.server import ThreadingHTTPServer
from pathlib import Path
from urllib.parse import parse_qs

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

RECORD = {"id": 0, "name": "customer", "note": "x" * 960, "address": {"city": "Prague", "zip": "11000"}}

CASES = {
    "json-48": ("/json?mb=48", {}),
    "json-256": ("/json?mb=256", {}),
    "json-256-raised": ("/json?mb=256", {"max_response_mb": 300}),
    "json-256-in-memory": ("/json?mb=256", {"max_response_mb": 300}),
    "bomb-1g": ("/bomb", {}),
    "trickle": ("/trickle-body", {"timeout": 3, "max_retries": 0}),
}


def serve() -> str:
    from tests.servers.http_apis import ApiServer, _Handler, gzip_of_zeros

    state = ApiServer(bomb_mb=1024)
    state.bomb = lambda: bomb  # type: ignore[method-assign]
    bomb = gzip_of_zeros(1024)

    class Handler(_Handler):
        def route_json(self, query: dict[str, str], seen: object) -> None:
            count = int(query["mb"]) * 1024
            self.send_response(200)
            self.send_header("content-type", "application/json")
            self.end_headers()
            try:
                self.wfile.write(b'{"items": [')
                for start in range(0, count, 1000):
                    chunk = ",".join(json.dumps(dict(RECORD, id=i)) for i in range(start, min(start + 1000, count)))
                    self.wfile.write((chunk if start == 0 else "," + chunk).encode())
                self.wfile.write(b"]}")
            except OSError:  # the driver stopped reading at its cap
                return

    Handler.state = state
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return f"http://127.0.0.1:{server.server_address[1]}"


def one(url: str, case: str) -> None:
    import duckdb

    from osiris.run import http
    from osiris.run.driver import RuntimeProblem, StepContext
    from osiris.run.drivers import driver_for
    from osiris.settings.resources import default_memory_mb, default_threads

    if case.endswith("in-memory"):
        http.SPILL_BYTES = 1 << 40
    endpoint, extra = CASES[case]
    path, _, query = endpoint.partition("?")
    params = {k: v[0] for k, v in parse_qs(query).items()}
    config = {"base_url": url, "endpoint": path, "params": params, "data_path": "items", **extra}
    con = duckdb.connect()
    memory_mb = default_memory_mb()  # the engine's defaults (run.memory_limit, run.threads unset)
    con.execute(f"SET threads = {default_threads(memory_mb)}")
    con.execute(f"SET memory_limit = '{memory_mb}MB'")
    started = time.perf_counter()
    try:
        outcome = driver_for("rest.extractor").run(StepContext("get", "rest.extractor", "read", config, con, "t", {}))
        result = f"{outcome.rows_out:,} rows"
    except RuntimeProblem as problem:
        result = f"{problem.code} {problem.message[:70]}"
    seconds = time.perf_counter() - started
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"{case:16} {seconds:6.2f} s  peak RSS {peak:6.0f} MB  {result}", flush=True)


def main() -> None:
    if len(sys.argv) == 3 and sys.argv[1].startswith("http"):
        return one(sys.argv[1], sys.argv[2])
    url = serve()
    print(f"load: {Path('/proc/loadavg').read_text().split()[:3]}")
    for case in sys.argv[1:] or CASES:
        subprocess.run([sys.executable, __file__, url, case], check=True)


if __name__ == "__main__":
    main()
