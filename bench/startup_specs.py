"""Start-up of `osiris validate FILE` with 0, 50, 200 and 1,000 user component specs: median wall time,
the spec-check cache warm (one run first fills it) and cold (cache deleted before each run).
Prints figures; asserts nothing.

    .venv/bin/python bench/startup_specs.py [--specs 0 50 200 1000] [--runs 5] [--source DIR ...]

`--source DIR` times the tree in DIR (it must hold `osiris/`, e.g. an older commit unpacked with
`git archive REV osiris | tar -x -C DIR`); several sources are timed interleaved, run by run.
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent
PIPELINE = """\
oml_version: "0.1.0"
name: bench
steps:
  - id: read
    component: filesystem.csv_extractor
    mode: read
    config: {path: in.csv}
"""


def make_project(directory: Path, count: int) -> None:
    """`count` user specs: the built-in specs renamed into new families, so every one is a new spec."""
    (directory / ".osiris.yaml").write_text("components:\n  paths: [components]\n")
    (directory / "pipeline.yaml").write_text(PIPELINE)
    builtins = sorted((ROOT / "components").glob("*/spec.yaml"))
    for n in range(count):
        spec = yaml.safe_load(builtins[n % len(builtins)].read_text())
        spec["name"] = f"user{n}.{spec['name'].split('.', 1)[1]}"
        folder = directory / "components" / spec["name"]
        folder.mkdir(parents=True)
        (folder / "spec.yaml").write_text(yaml.safe_dump(spec, sort_keys=False))


def one_run(source: str | None, project: Path, cold: bool) -> tuple[float, float]:
    """(wall ms, CPU ms of the child): CPU time holds still when the machine is busy."""
    if cold:
        shutil.rmtree(project / ".osiris" / "cache", ignore_errors=True)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ANTHROPIC_", "OSIRIS_"))}
    if source:
        env["PYTHONPATH"] = source
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run([sys.executable, "-m", "osiris", "validate", "pipeline.yaml"], cwd=project, env=env,
                   capture_output=True, check=True)
    wall = (time.perf_counter() - start) * 1000
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime) * 1000
    return wall, cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--specs", type=int, nargs="+", default=[0, 50, 200, 1000])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--source", action="append", default=[])
    args = parser.parse_args()
    sources = [str(Path(s).resolve()) for s in args.source] or [None]
    print(f"python {sys.version.split()[0]}, load average {os.getloadavg()[0]:.2f}; median of {args.runs} runs")
    bare = statistics.median(_bare() for _ in range(args.runs))
    print(f"  bare python -c pass: {bare:.0f} ms")
    for count in args.specs:
        with tempfile.TemporaryDirectory(prefix=".bench-specs-", dir=ROOT) as directory:
            project = Path(directory)
            make_project(project, count)
            warm: dict[str | None, list[tuple[float, float]]] = {s: [] for s in sources}
            cold: dict[str | None, list[tuple[float, float]]] = {s: [] for s in sources}
            for _ in range(args.runs):
                for source in sources:  # the trees share the project: each fills the cache before its warm run
                    one_run(source, project, cold=False)
                    warm[source].append(one_run(source, project, cold=False))
                    cold[source].append(one_run(source, project, cold=True))
            for source in sources:
                print(f"  {count:>5} user specs, {source or 'this checkout'}: warm {_figures(warm[source])};"
                      f" cold {_figures(cold[source])}")


def _figures(samples: list[tuple[float, float]]) -> str:
    return (f"wall {statistics.median(s[0] for s in samples):6.0f} ms, "
            f"CPU {statistics.median(s[1] for s in samples):6.0f} ms")


def _bare() -> float:
    start = time.perf_counter()
    subprocess.run([sys.executable, "-c", "pass"], check=True)
    return (time.perf_counter() - start) * 1000


if __name__ == "__main__":
    main()
