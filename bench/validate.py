"""Validation speed: 1,000 generated pipelines of 3-10 steps in one process, and the wall time of
one `osiris validate FILE` call. Prints figures; no thresholds are asserted here.

    .venv/bin/python bench/validate.py [--pipelines 1000] [--cli-runs 10]
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import yaml

from osiris.registry import load_registry
from osiris.validate import Validator

CONNECTIONS = {"mysql": {"default": {"host": "db"}}, "postgres": {"default": {"host": "pg"}},
               "supabase": {"default": {"url": "https://acme.supabase.co"}}}
READERS = [
    ("mysql.extractor", lambda r: {"connection": "@mysql.default", "table": f"t{r.randint(1, 99)}",
                                   "batch_size": r.choice([500, "1000", 50_000])}),
    ("postgres.extractor", lambda r: {"connection": "@postgres.default", "query": "SELECT * FROM orders"}),
    ("filesystem.csv_extractor", lambda r: {"path": "data/in.csv", "delimiter": r.choice([",", ";"])}),
    ("rest.extractor", lambda r: {"base_url": "https://api.example.com", "endpoint": "/items",
                                  "pagination": r.choice(["page", "offset"])}),
]
TRANSFORMS = [("duckdb.processor", lambda r: {"query": "SELECT id, upper(name) AS name FROM input_df"})]
WRITERS = [
    ("filesystem.csv_writer", lambda r: {"path": "out/x.csv", "encoding": r.choice(["utf-8", "UTF-8"])}),
    ("supabase.writer", lambda r: {"connection": "@supabase.default", "table": "t",
                                   "write_mode": r.choice(["append", "upsert", "upset"]), "primary_key": "id"}),
    ("mysql.writer", lambda r: {"connection": "@mysql.default", "table": "t", "mode": "append"}),
]


def generate(rng: random.Random, index: int) -> str:
    count = rng.randint(3, 10)
    steps = []
    for n in range(count):
        pool = READERS if n == 0 else WRITERS if n == count - 1 else rng.choice([READERS, TRANSFORMS])
        component, config = rng.choice(pool)
        mode = {id(READERS): "read", id(TRANSFORMS): "transform", id(WRITERS): "write"}[id(pool)]
        step = {"id": f"step-{n}", "component": component, "mode": mode, "config": config(rng)}
        if n:
            step["needs"] = [f"step-{rng.randint(0, n - 1)}"]
        steps.append(step)
    return yaml.safe_dump({"oml_version": "0.1.0", "name": f"bench-{index}", "steps": steps}, sort_keys=False)


def bench_in_process(count: int) -> None:
    started = time.perf_counter()
    validator = Validator(load_registry(), CONNECTIONS)
    setup = time.perf_counter() - started
    rng = random.Random(42)
    texts = [generate(rng, i) for i in range(count)]
    validator.validate(texts[0])  # builds the config validators once, as a long-running chat would
    timings, valid = [], 0
    wall = time.perf_counter()
    for text in texts:
        start = time.perf_counter()
        report = validator.validate(text)
        timings.append((time.perf_counter() - start) * 1000)
        valid += report.valid
    wall = time.perf_counter() - wall
    timings.sort()
    print(f"registry load (11 specs, meta-schema check): {setup * 1000:.1f} ms")
    print(f"{count} pipelines of 3-10 steps ({valid} valid) in {wall:.3f} s: {count / wall:,.0f} pipelines/s")
    print(f"per pipeline: p50 {statistics.median(timings):.2f} ms, p99 {timings[int(len(timings) * 0.99) - 1]:.2f} ms,"
          f" max {timings[-1]:.2f} ms")


def bench_cli(runs: int) -> None:
    with tempfile.TemporaryDirectory() as directory:
        project = Path(directory)
        (project / ".osiris.yaml").write_text(yaml.safe_dump({"connections": CONNECTIONS}))
        pipeline = project / "pipeline.yaml"
        pipeline.write_text(generate(random.Random(7), 0))
        env = {k: v for k, v in os.environ.items() if not k.startswith(("ANTHROPIC_", "OSIRIS_"))}
        walls = []
        for _ in range(runs):
            start = time.perf_counter()
            subprocess.run([sys.executable, "-m", "osiris", "validate", str(pipeline)], cwd=project, env=env,
                           capture_output=True, check=False)
            walls.append((time.perf_counter() - start) * 1000)
        bare = []
        for _ in range(runs):
            start = time.perf_counter()
            subprocess.run([sys.executable, "-c", "pass"], capture_output=True, check=False)
            bare.append((time.perf_counter() - start) * 1000)
    print(f"one 'osiris validate FILE' call ({runs} runs): min {min(walls):.0f} ms, median "
          f"{statistics.median(walls):.0f} ms (bare python start-up: median {statistics.median(bare):.0f} ms)")


PHASES = """
import time, json
t = [time.perf_counter()]
from osiris.settings import load_settings; effective = load_settings(); t.append(time.perf_counter())
import jsonschema; t.append(time.perf_counter())
from osiris.validate import load_validator; t.append(time.perf_counter())
validator = load_validator(effective); t.append(time.perf_counter())
validator.validate(open("pipeline.yaml").read()); t.append(time.perf_counter())
print(json.dumps([(b - a) * 1000 for a, b in zip(t, t[1:])]))
"""
PHASE_NAMES = ["settings (import + load)", "jsonschema import", "osiris.validate import",
               "registry load (11 specs)", "validate one file"]


def bench_phases(runs: int) -> None:
    """Where the time of one call goes, measured inside fresh processes (medians)."""
    import json

    with tempfile.TemporaryDirectory() as directory:
        project = Path(directory)
        (project / ".osiris.yaml").write_text(yaml.safe_dump({"connections": CONNECTIONS}))
        (project / "pipeline.yaml").write_text(generate(random.Random(7), 0))
        samples = [json.loads(subprocess.run([sys.executable, "-c", PHASES], cwd=project, capture_output=True,
                                             text=True, check=True).stdout) for _ in range(runs)]
    for index, name in enumerate(PHASE_NAMES):
        print(f"  {name}: median {statistics.median(s[index] for s in samples):.0f} ms")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pipelines", type=int, default=1000)
    parser.add_argument("--cli-runs", type=int, default=10)
    args = parser.parse_args()
    print(f"python {sys.version.split()[0]}, {os.cpu_count()} cpus, load average {os.getloadavg()[0]:.2f}")
    bench_in_process(args.pipelines)
    bench_cli(args.cli_runs)
    print("phases of one call, in-process timers:")
    bench_phases(args.cli_runs)


if __name__ == "__main__":
    main()
