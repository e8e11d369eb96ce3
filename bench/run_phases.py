"""Where the fixed start of a 10-row `osiris run` goes, phase by phase, inside the process.

    .venv/bin/python bench/run_phases.py [--runs 11] [--source DIR ...]

Runs `osiris run` of bench/startup.py's 10-row CSV -> CSV pipeline (in a temporary project with its
`.osiris.yaml`, whose MySQL connection's secret is not set) in fresh processes, interleaved with a
bare `python -c pass`, and prints the median of each phase: the interpreter's start, importing
Osiris's run path, importing DuckDB, then the work: settings, the validator's load, validating the
file, the redactor (the connections' secrets, the keyring probe), the session, the engine's start
(DuckDB's connection, its limits and sandbox), each step, and the trail's end (run.json,
session.json). The modules are imported up front so that each later phase is its own work; the
phases are timed by wrapping the functions that do them. `--source DIR` times the tree in DIR
(several are interleaved).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from startup import RUN_PIPELINE, SETTINGS, TEN_ROWS  # noqa: E402

CHILD = r"""
import json, sys, time
started = time.perf_counter()
marks = {}
def timed(owner, name, phase):
    real = getattr(owner, name)
    def wrapper(*args, **kwargs):
        begin = time.perf_counter()
        try:
            return real(*args, **kwargs)
        finally:
            marks[phase] = marks.get(phase, 0.0) + time.perf_counter() - begin
    setattr(owner, name, wrapper)
import osiris.cli, osiris.commands.run, osiris.commands.validate, osiris.settings, osiris.validate
import osiris.validate.validator, osiris.trust.redactor, osiris.run.recorded, osiris.run.duckdb_run, osiris.run.run_trail
import osiris.session, osiris.run.step_run, osiris.run.duckdb_engine, osiris.run.display
marks["import Osiris's run path"] = time.perf_counter() - started
begin = time.perf_counter()
try:
    from osiris.duckdb_core import duckdb  # DuckDB's engine, as a run imports it (ADR 0206)
except ImportError:  # a tree from before ADR 0206
    import duckdb
marks["import duckdb"] = time.perf_counter() - begin
timed(osiris.settings, "load_settings", "settings")
timed(osiris.validate, "load_validator", "validator load (registry)")
timed(osiris.validate.validator.Validator, "validate", "validate the file")
timed(osiris.trust.redactor, "build_redactor", "redactor (secrets, keyring probe)")
timed(osiris.session.Session, "create", "session create")
timed(osiris.run.run_trail.RunTrail, "finish", "trail finish (run.json, session.json)")
engine = osiris.run.duckdb_engine.Engine
real_getattr = engine.__getattr__
def first_use(self, name):
    if self.con is None:
        begin = time.perf_counter()
        try:
            return real_getattr(self, name)
        finally:
            marks["engine start (connect, limits, sandbox)"] = time.perf_counter() - begin
    return real_getattr(self, name)
engine.__getattr__ = first_use
real_step = osiris.run.step_run.run_step
def step(step, *args, **kwargs):
    begin = time.perf_counter()
    try:
        return real_step(step, *args, **kwargs)
    finally:
        marks[f"step {step['id']}"] = time.perf_counter() - begin
osiris.run.duckdb_run.run_step = step
begin = time.perf_counter()
code = osiris.cli.main(sys.argv[1:])
marks["the command, in all"] = time.perf_counter() - begin
if "step read-people" in marks and "engine start (connect, limits, sandbox)" in marks:
    marks["step read-people"] -= marks["engine start (connect, limits, sandbox)"]  # DuckDB starts in it
print("PHASES " + json.dumps({name: seconds * 1000 for name, seconds in marks.items()}))
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=11)
    parser.add_argument("--source", action="append", default=[])
    args = parser.parse_args()
    sources = [str(Path(s).resolve()) for s in args.source] or [None]
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("OSIRIS_", "ANTHROPIC_")) and k != "PYTHONDONTWRITEBYTECODE"}
    walls: dict[str | None, list[float]] = {source: [] for source in [*sources, "bare"]}
    phases: dict[str | None, dict[str, list[float]]] = {source: {} for source in sources}
    load = os.getloadavg()[0]
    with tempfile.TemporaryDirectory() as cwd:
        Path(cwd, ".osiris.yaml").write_text(SETTINGS)
        Path(cwd, "run.yaml").write_text(RUN_PIPELINE)
        Path(cwd, "people.csv").write_text(TEN_ROWS)
        for round_ in range(args.runs + 1):  # round 0 fills the bytecode caches
            begin = time.perf_counter()
            subprocess.run([sys.executable, "-c", "pass"], env=env, check=True)
            if round_:
                walls["bare"].append((time.perf_counter() - begin) * 1000)
            for source in sources:
                job_env = {**env, "PYTHONPATH": source} if source else env
                begin = time.perf_counter()
                done = subprocess.run([sys.executable, "-c", CHILD, "run", "run.yaml"], cwd=cwd, env=job_env,
                                      capture_output=True, text=True, check=False)
                wall = (time.perf_counter() - begin) * 1000
                found = [line for line in done.stdout.splitlines() if line.startswith("PHASES ")]
                if done.returncode != 0 or not found:
                    raise SystemExit(f"the run failed: {done.stdout}{done.stderr}")
                if round_:
                    walls[source].append(wall)
                    for name, ms in json.loads(found[0][len("PHASES "):]).items():
                        phases[source].setdefault(name, []).append(ms)
    bare = statistics.median(walls["bare"])
    print(f"medians of {args.runs} interleaved runs, load average {load:.2f} at the start, "
          f"{os.getloadavg()[0]:.2f} at the end; bare `python -c pass` {bare:.1f} ms")
    for source in sources:
        wall = statistics.median(walls[source])
        print(f"[{source or 'this checkout'}] whole process {wall:.1f} ms ({wall / bare:.1f}x bare)")
        inside = {name: statistics.median(values) for name, values in phases[source].items()}
        for name, ms in inside.items():
            print(f"  {name:<44} {ms:7.1f} ms")


if __name__ == "__main__":
    main()
