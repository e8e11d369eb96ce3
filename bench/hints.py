"""Did-you-mean hints on huge pipelines: every step needs an unknown id (OML401), or names an unknown
component (OML301). Times the tier that reports them (`check_graph`, or `check_step_config` over every
step; the YAML parser's node limit would refuse such documents whole) in fresh processes, one source tree after the other,
interleaved, so that trees can be compared in one run. Prints figures; asserts nothing.

    .venv/bin/python bench/hints.py [--steps 1000 2000] [--runs 3] [--source DIR ...]

`--source DIR` puts DIR first on PYTHONPATH (a tree holding `osiris/`, e.g. an older commit unpacked
with `git archive REV osiris | tar -x -C DIR`); without it the current checkout is timed.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CHILD = """
import sys, time
from osiris.registry import load_registry
from osiris.validate import Validator
from osiris.validate.findings import Findings
from osiris.validate.dependencies import check_graph
from osiris.validate.step_config import check_step_config
steps, case = int(sys.argv[1]), sys.argv[2]
registry = load_registry()
listed = []
for n in range(steps):
    step = {"id": f"step-{n}", "component": "mysql.extractr" if case == "component" else "mysql.extractor",
            "mode": "read", "config": {"table": "t"}}
    if n and case == "needs":
        step["needs"] = [f"stepp-{n - 1}"]
    listed.append(step)
validator = Validator(registry, {})
validator.validate('oml_version: "0.1.0"\\nname: warm\\nsteps: [{id: a, component: mysql.extractor, mode: read,'
                   ' config: {table: t}}]\\n')  # imports jsonschema and builds the validator first
findings = Findings()
start = time.perf_counter()
if case == "needs":
    check_graph(listed, findings)
else:
    for index, step in enumerate(listed):
        check_step_config(index, step, registry, {}, findings)
print(f"{(time.perf_counter() - start) * 1000:.1f} {len(findings.issues) + findings.dropped}")
"""


def run_once(source: str | None, steps: int, case: str) -> tuple[float, int]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ANTHROPIC_", "OSIRIS_"))}
    if source:
        env["PYTHONPATH"] = source
    out = subprocess.run([sys.executable, "-c", CHILD, str(steps), case], env=env, capture_output=True,
                         text=True, check=True, cwd=source or ROOT).stdout.split()  # cwd is first on sys.path
    return float(out[0]), int(out[1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, nargs="+", default=[1000, 2000])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--source", action="append", default=[])
    args = parser.parse_args()
    sources = [str(Path(s).resolve()) for s in args.source] or [None]
    print(f"python {sys.version.split()[0]}, load average {os.getloadavg()[0]:.2f}")
    for case in ("needs", "component"):
        for steps in args.steps:
            samples: dict[str | None, list[float]] = {s: [] for s in sources}
            issues: dict[str | None, int] = {}
            for _ in range(args.runs):
                for source in sources:
                    ms, issues[source] = run_once(source, steps, case)
                    samples[source].append(ms)
            for source in sources:
                print(f"unknown {case:9} {steps:>5} steps  {source or 'this checkout'}: "
                      f"median {statistics.median(samples[source]):8.1f} ms ({issues[source]} issues found)")


if __name__ == "__main__":
    main()
