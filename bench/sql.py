"""SQL checks (issue 13): what sqlglot costs `osiris validate`, and a typical pipeline's validation
time in process, with and without SQL fields and with a schema catalog. Prints figures; asserts nothing.

    .venv/bin/python bench/sql.py [--runs 300] [--cli-runs 10]
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

NO_SQL = """\
oml_version: "0.1.0"
name: customers-to-csv
steps:
  - id: extract-customers
    component: mysql.extractor
    mode: read
    config: {connection: "@mysql.default", table: customers}
  - id: write-csv
    component: filesystem.csv_writer
    mode: write
    needs: [extract-customers]
    config: {path: out/customers.csv}
"""

WITH_SQL = """\
oml_version: "0.1.0"
name: active-customers-to-csv
steps:
  - id: extract-customers
    component: mysql.extractor
    mode: read
    config:
      connection: "@mysql.default"
      query: |
        SELECT c.id, c.email, SUM(o.total) AS spent
        FROM customers AS c JOIN orders AS o ON o.customer_id = c.id
        WHERE c.active = 1
        GROUP BY c.id, c.email
  - id: shape
    component: duckdb.processor
    mode: transform
    needs: [extract-customers]
    config:
      query: "SELECT id, lower(email) AS email, spent FROM input_df WHERE spent > 100"
  - id: write-csv
    component: filesystem.csv_writer
    mode: write
    needs: [shape]
    config: {path: out/customers.csv}
"""

SETTINGS = "connections:\n  mysql:\n    default: {host: db, database: shop, user: r}\n"
CATALOG = ('{"connection": "@mysql.default", "family": "mysql", "discovered_at": "2099-01-01T00:00:00Z", "tables": '
           '{"customers": {"columns": [{"name": "id", "type": "int", "nullable": false}, {"name": "email", '
           '"type": "varchar(255)", "nullable": true}, {"name": "active", "type": "tinyint", "nullable": true}], '
           '"primary_key": ["id"]}, "orders": {"columns": [{"name": "id", "type": "int", "nullable": false}, '
           '{"name": "customer_id", "type": "int", "nullable": true}, {"name": "total", "type": "decimal", '
           '"nullable": true}], "primary_key": ["id"]}}}')


def in_process(runs: int, project: Path) -> None:
    from osiris.catalog import Catalogs
    from osiris.registry import load_registry
    from osiris.validate import Validator

    connections = {"mysql": {"default": {"host": "db"}}}
    registry = load_registry()
    cases = [("no SQL fields", NO_SQL, None), ("2 SQL fields, no catalog", WITH_SQL, None),
             ("2 SQL fields, with a catalog", WITH_SQL, Catalogs(project))]
    started = time.perf_counter()
    Validator(registry, connections).validate(WITH_SQL)
    print(f"first validation with SQL (imports sqlglot): {(time.perf_counter() - started) * 1000:.1f} ms")
    for label, text, catalogs in cases:
        validator = Validator(registry, connections, catalogs=catalogs)
        report = validator.validate(text)
        assert report.valid, [i.to_dict() for i in report.issues]
        times = []
        for _ in range(runs):
            started = time.perf_counter()
            validator.validate(text)
            times.append((time.perf_counter() - started) * 1000)
        times.sort()
        print(f"{label:30} median {statistics.median(times):.2f} ms, p95 {times[int(len(times) * 0.95)]:.2f} ms "
              f"({runs} runs)")


def cli(runs: int, project: Path) -> None:
    for label, name in (("no SQL fields", "plain.yaml"), ("2 SQL fields + catalog", "sql.yaml")):
        times = []
        for _ in range(runs):
            started = time.perf_counter()
            subprocess.run([sys.executable, "-m", "osiris", "validate", name], cwd=project, check=True,
                           capture_output=True)
            times.append((time.perf_counter() - started) * 1000)
        print(f"osiris validate, {label:24} median {statistics.median(times):.0f} ms ({runs} runs)")
    code = "import time; t = time.perf_counter(); import sqlglot; print((time.perf_counter() - t) * 1000)"
    imports = [float(subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                                    check=True).stdout) for _ in range(runs)]
    print(f"import sqlglot alone: median {statistics.median(imports):.0f} ms ({runs} runs)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=300)
    parser.add_argument("--cli-runs", type=int, default=10)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        project = Path(folder)
        (project / ".osiris.yaml").write_text(SETTINGS)
        (project / ".osiris" / "catalog").mkdir(parents=True)
        (project / ".osiris" / "catalog" / "mysql.default.json").write_text(CATALOG)
        (project / "plain.yaml").write_text(NO_SQL)
        (project / "sql.yaml").write_text(WITH_SQL)
        in_process(args.runs, project)
        cli(args.cli_runs, project)


if __name__ == "__main__":
    main()
