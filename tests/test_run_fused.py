"""A CSV read fused into the transform that consumes it (osiris.run.fused, ADR 0202): the rows the
trail gives it are DuckDB's own count of the file scan, and a bad value is still the reader's.

Every test is a real `osiris run` (in-process, tests/inprocess.py) on real files, and reads what a user
reads: the exit code, the terminal, `--json`, the session's run.json and `osiris sessions show`.
"""

from __future__ import annotations

import json
import subprocess
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from osiris.run.counts import scanned_rows
from tests.inprocess import run_inprocess
from tests.support import clean_env

ROWS = 50_000  # past the sniffer's sample (20,480 rows) and many 2,048-row chunks


def pipeline(query: str, *, sample_reader: str = "") -> str:
    return f"""\
oml_version: "0.1.0"
name: fused
steps:
  - id: read-orders
    component: filesystem.csv_extractor
    mode: read
    config: {{path: orders.csv{sample_reader}}}
  - id: totals
    component: duckdb.processor
    mode: transform
    needs: [read-orders]
    config:
      query: "{query}"
  - id: write-totals
    component: filesystem.csv_writer
    mode: write
    needs: [totals]
    config: {{path: totals.csv}}
"""


AGGREGATE = "SELECT region, count(*) AS n, sum(amount) AS total FROM input_df WHERE id % 2 = 0 GROUP BY region ORDER BY region"


def orders(rows: int = ROWS, last: str | None = None) -> str:
    lines = [f"{i},r{i % 3},{i % 100}.25" for i in range(rows)]
    if last is not None:
        lines.append(last)
    return "id,region,amount\n" + "\n".join(lines) + "\n"


def run(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return run_inprocess("run", "p.yaml", *args, cwd=root, env=clean_env())


def run_json(root: Path) -> dict[str, Any]:
    (session,) = (root / ".osiris" / "sessions").iterdir()
    return json.loads((session / "artifacts" / "run.json").read_text())


def project(tmp_path: Path, query: str, csv: str) -> Path:
    (tmp_path / "p.yaml").write_text(pipeline(query))
    (tmp_path / "orders.csv").write_text(csv)
    return tmp_path


def test_a_fused_read_counts_every_row_of_the_file_in_every_output(tmp_path):
    root = project(tmp_path, AGGREGATE, orders())
    done = run(root, "--json")
    assert done.returncode == 0, done.stderr
    evens = [i for i in range(ROWS) if i % 2 == 0]
    expected = "region,n,total\n" + "".join(
        f"r{r},{sum(1 for i in evens if i % 3 == r)},{sum(i % 100 + 0.25 for i in evens if i % 3 == r)}\n"
        for r in range(3))
    assert (root / "totals.csv").read_text() == expected
    shown = {step["id"]: step for step in json.loads(done.stdout)["steps"]}
    assert (shown["read-orders"]["rows_in"], shown["read-orders"]["rows_out"]) == (ROWS, ROWS)
    assert shown["read-orders"]["fused_into"] == "totals"
    assert (shown["totals"]["rows_in"], shown["totals"]["rows_out"]) == (ROWS, 3)
    assert "fused_into" not in shown["totals"]
    assert [c["name"] for c in shown["read-orders"]["columns"]] == ["id", "region", "amount"]
    trail = {step["id"]: step for step in run_json(root)["steps"]}
    assert (trail["read-orders"]["rows_out"], trail["read-orders"]["fused_into"]) == (ROWS, "totals")
    assert trail["totals"]["rows_in"] == ROWS
    assert f"read-orders  ok  {ROWS:,} rows" in done.stderr  # the terminal's line, before the transform's
    assert done.stderr.index("read-orders  ok") < done.stderr.index("totals  running")
    (session,) = (root / ".osiris" / "sessions").iterdir()
    show = run_inprocess("sessions", "show", session.name, cwd=root, env=clean_env())
    assert ("read-orders: read by the query of 'totals' (fused); its rows are DuckDB's count of that query's "
            "file scan") in show.stdout.splitlines()


def test_a_bad_value_is_still_blamed_on_the_step_that_read_it(tmp_path):
    root = project(tmp_path, AGGREGATE, orders(last=f"{ROWS},r1,not-a-number"))
    done = run(root, "--json")
    assert done.returncode != 0
    shown = json.loads(done.stdout)
    steps = {step["id"]: step for step in shown["steps"]}
    assert steps["read-orders"]["status"] == "failed"
    assert "fused_into" not in steps["read-orders"]
    assert (steps["totals"]["status"], steps["totals"]["skipped_because"]) == ("skipped", "read-orders")
    assert [(problem["step"], problem["code"]) for problem in shown["problems"]] == [("read-orders", "OML503")]
    assert shown["problems"][0]["message"] == (
        "cannot read orders.csv as CSV: column 'amount' holds a value that does not convert to DOUBLE "
        f"(line {ROWS + 2} of the file); the value is withheld")
    assert "OML503 step 'read-orders': cannot read orders.csv as CSV: column 'amount'" in done.stderr
    assert not (root / "totals.csv").exists()
    assert done.stderr.count("read-orders  running") == 1  # the fused try and the read apart are one step


def test_a_number_a_double_does_not_hold_is_read_apart_exactly(tmp_path):
    """The fused view's exactness check fails the query; the read then runs apart, two passes, into
    an exact DECIMAL, and the transform over that table: nothing rounded, every row counted."""
    root = project(tmp_path, "SELECT sum(amount) AS total FROM input_df", orders(last=f"{ROWS},r1,0.1234567890123456789"))
    done = run(root, "--json")
    assert done.returncode == 0, done.stderr
    steps = {step["id"]: step for step in json.loads(done.stdout)["steps"]}
    assert "fused_into" not in steps["read-orders"]
    assert (steps["read-orders"]["rows_out"], steps["totals"]["rows_in"]) == (ROWS + 1, ROWS + 1)
    exact = sum(Decimal(f"{i % 100}.25") for i in range(ROWS)) + Decimal("0.1234567890123456789")
    assert (root / "totals.csv").read_text() == f"total\n{exact}\n"


@pytest.mark.parametrize("query", [
    "SELECT id FROM input_df LIMIT 5",  # the scan may stop early: its count would be short
    "SELECT a.id FROM input_df a JOIN input_df b ON a.id = b.id",  # two scans: no single count
])
def test_a_transform_that_may_not_scan_the_file_once_whole_reads_a_table(tmp_path, query):
    root = project(tmp_path, query, orders(rows=3000))
    done = run(root, "--json")
    assert done.returncode == 0, done.stderr
    steps = {step["id"]: step for step in json.loads(done.stdout)["steps"]}
    assert steps["read-orders"]["rows_out"] == 3000
    assert "fused_into" not in steps["read-orders"]


def test_a_sample_run_keeps_the_read_s_own_table(tmp_path):
    root = project(tmp_path, AGGREGATE, orders(rows=3000))
    done = run(root, "--sample", "100", "--json")
    assert done.returncode == 0, done.stderr
    steps = {step["id"]: step for step in json.loads(done.stdout)["steps"]}
    assert steps["read-orders"]["rows_out"] == 100 and "fused_into" not in steps["read-orders"]


def test_the_count_is_the_one_csv_scan_s_rows_scanned():
    def scan(rows: int) -> dict[str, Any]:
        return {"type": "TABLE_SCAN", "extra_info": {"Function": "READ_CSV"}, "rows_scanned": rows,
                "intermediate_rows": rows // 2, "children": []}

    def profile(*children: dict[str, Any]) -> str:
        return json.dumps({"operator": [{"type": "CREATE_TABLE_AS", "children": list(children)}]})

    assert scanned_rows(profile({"type": "FILTER", "children": [scan(1000)]})) == 1000
    assert scanned_rows(profile(scan(10), scan(10))) is None  # read twice: which count?
    assert scanned_rows(profile({"type": "TABLE_SCAN", "extra_info": {"Function": "SEQ_SCAN"}})) is None
    assert scanned_rows("") is None


def test_a_run_with_a_deadline_keeps_the_read_apart_so_the_step_that_passes_it_is_named(tmp_path):
    root = project(tmp_path, AGGREGATE, orders(rows=3000))
    (root / ".osiris.yaml").write_text("run:\n  timeout_seconds: 600\n")
    done = run(root, "--json")
    assert done.returncode == 0, done.stderr
    steps = {step["id"]: step for step in json.loads(done.stdout)["steps"]}
    assert steps["read-orders"]["rows_out"] == 3000 and "fused_into" not in steps["read-orders"]
