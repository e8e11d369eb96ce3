"""What the engine's sandbox costs (issue 22, docs/security.md): locking DuckDB down, bringing a CSV
file into the scratch directory, and placing a written file; and that spilling still works.

    .venv/bin/python bench/sandbox.py [--rows 1000000] [--repeat 5] [--spill-rows 1500000]

Prints, interleaved and repeated (median):
- `lock_down` on an open DuckDB connection (the six SET statements);
- `stage` of a CSV of ROWS rows by hard link (same file system) and by copy (another file system),
  against DuckDB reading the file: what a CSV extractor pays before it reads;
- a CSV -> CSV pipeline of ROWS rows through the engine (validation skipped), for scale;
- a transform of SPILL_ROWS rows (about 200 bytes each) under the engine's memory cap: it must
  spill to the scratch directory, which the sandbox allows; its peak RSS.
"""

from __future__ import annotations

import argparse
import resource
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import duckdb  # noqa: E402

from osiris.run.display import Listeners  # noqa: E402
from osiris.run.duckdb_run import RunOptions, run_pipeline  # noqa: E402
from osiris.trust import sandbox  # noqa: E402


def timed(action: Callable[[], object]) -> float:
    began = time.perf_counter()
    action()
    return (time.perf_counter() - began) * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--spill-rows", type=int, default=1_500_000)
    args = parser.parse_args()
    root = Path(tempfile.mkdtemp(prefix="osiris-bench-sandbox-"))
    try:
        project, scratch = root / "project", root / "project" / "scratch"
        (project / "data").mkdir(parents=True)
        scratch.mkdir()
        source = project / "data" / "rows.csv"
        duckdb.connect().execute(f"COPY (SELECT range AS id, md5(range::VARCHAR) AS name FROM range({args.rows})) "
                                 f"TO '{source}' (FORMAT csv)")
        print(f"CSV of {args.rows:,} rows: {source.stat().st_size / 1e6:.0f} MB")
        figures: dict[str, list[float]] = {k: [] for k in ("lock_down", "stage (link)",
                                                          "stage (copy)", "DuckDB reads the file", "CSV -> CSV run")}
        pipeline = {"steps": [
            {"id": "read", "component": "filesystem.csv_extractor", "mode": "read", "config": {"path": "data/rows.csv"}},
            {"id": "write", "component": "filesystem.csv_writer", "mode": "write", "config": {"path": "out/rows.csv"}}]}
        options = RunOptions(connections={}, env={}, base_dir=project)
        for _ in range(args.repeat):
            for name, took in one_round(source, scratch, pipeline, options).items():
                figures[name].append(took)
        for name, values in figures.items():
            print(f"  {name:24} {statistics.median(values):9.1f} ms (median of {len(values)})")
        spill(project, args.spill_rows)
    finally:
        shutil.rmtree(root, ignore_errors=True)


def one_round(source: Path, scratch: Path, pipeline: dict[str, Any], options: RunOptions) -> dict[str, float]:
    """Each figure once, in the same order every round."""
    con = duckdb.connect(":memory:")
    took = {"lock_down": timed(lambda: sandbox.lock_down(con, scratch))}
    con.close()
    staged: list[Path] = []
    took["stage (link)"] = timed(lambda: staged.append(sandbox.stage(source, scratch)))
    took["stage (copy)"] = timed(lambda: shutil.copyfile(source, scratch / "copy.csv"))
    took["DuckDB reads the file"] = timed(
        lambda: duckdb.connect().execute(f"SELECT count(*) FROM read_csv('{staged[0]}')").fetchall())
    for path in [*staged, scratch / "copy.csv"]:
        path.unlink()
    took["CSV -> CSV run"] = timed(lambda: run_pipeline(pipeline, options, Listeners()))
    return took


def spill(project: Path, rows: int) -> None:
    """A table bigger than the engine's memory cap: DuckDB spills it to the scratch directory."""
    query = f"SELECT range AS i, repeat(md5(range::VARCHAR), 6) AS s FROM range({rows})"
    steps = [{"id": "big", "component": "duckdb.processor", "mode": "transform", "config": {"query": query}}]
    began = time.perf_counter()
    result = run_pipeline({"steps": steps}, RunOptions(connections={}, env={}, base_dir=project), Listeners())
    step = result.steps[0]
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"spill: {rows:,} rows of about 200 bytes ({rows * 200 / 1e6:.0f} MB) -> {step.status} "
          f"{step.rows_out:,} rows in {time.perf_counter() - began:.1f} s; peak RSS of this process {peak:.0f} MB"
          + (f"; {step.problem.message}" if step.problem else ""))


if __name__ == "__main__":
    main()
