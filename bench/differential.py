"""The validate-versus-run campaign (issue 24): many seeded random pipelines (tests/random_pipelines.py)
through the real validator, and every valid one through the real engine on local CSV files.

    .venv/bin/python bench/differential.py [--n 5000] [--first-seed 0]

A disagreement is a valid pipeline whose run raised (what `osiris run` shows as an internal error,
exit 5) or had a step that did not end ok. Prints the pipelines tried, how many were valid and ran,
the validator's codes for the others, the disagreements (seed and what happened, at most 5), and
the time. Exit 1 when there was any disagreement. tests/test_contract_differential.py runs the first
120 seeds in the suite.
"""

from __future__ import annotations

import argparse
import collections
import sys
import tempfile
import time
from pathlib import Path

import yaml

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from osiris.run.duckdb_run import RunOptions, run_pipeline  # noqa: E402
from osiris.validate import Validator  # noqa: E402
from osiris.registry import load_registry  # noqa: E402
from tests.random_pipelines import random_pipeline, write_data  # noqa: E402
from tests.test_contract_differential import Quiet  # noqa: E402

SHOWN = 5


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--n", type=int, default=5000, help="pipelines to try")
    parser.add_argument("--first-seed", type=int, default=0)
    args = parser.parse_args()
    validator = Validator(load_registry())
    codes: collections.Counter[str] = collections.Counter()
    disagreements: list[str] = []
    valid = 0
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="osiris-differential-") as scratch:
        root = Path(scratch)
        write_data(root)
        for seed in range(args.first_seed, args.first_seed + args.n):
            report = validator.validate(yaml.safe_dump(random_pipeline(seed), sort_keys=False))
            codes.update(report.error_codes)
            if not report.valid or report.pipeline is None:
                continue
            valid += 1
            try:
                result = run_pipeline(report.pipeline, RunOptions(connections={}, env={}, base_dir=root), Quiet())
            except Exception as error:  # noqa: BLE001 (what the campaign is looking for)
                disagreements.append(f"seed {seed}: the run raised {type(error).__name__}: {error}")
                continue
            failed = [f"{s.step_id} {s.status} {s.problem.code if s.problem else ''}".strip()
                      for s in result.steps if s.status != "ok"]
            if failed:
                disagreements.append(f"seed {seed}: " + "; ".join(failed))
    elapsed = time.perf_counter() - started
    print(f"pipelines: {args.n:,} (seeds {args.first_seed}..{args.first_seed + args.n - 1}); valid and run: {valid:,}")
    print("refused: " + ", ".join(f"{code} {count:,}" for code, count in sorted(codes.items())))
    print(f"disagreements: {len(disagreements)}")
    for line in disagreements[:SHOWN]:
        print(f"  {line}")
    print(f"time: {elapsed:.1f} s ({elapsed / max(args.n, 1) * 1000:.1f} ms a pipeline)")
    return 1 if disagreements else 0


if __name__ == "__main__":
    sys.exit(main())
