"""Start-up time of `osiris --help` (and two other fast commands): median wall time over N runs.

    .venv/bin/python bench/startup.py [--runs 30]

Prints one line per command, plus the bare interpreter for scale (compare ratios: machines are noisy).
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

COMMANDS = {
    "python -c pass (baseline)": [sys.executable, "-c", "pass"],
    "osiris --help": [sys.executable, "-m", "osiris", "--help"],
    "osiris --version": [sys.executable, "-m", "osiris", "--version"],
    "osiris config show": [sys.executable, "-m", "osiris", "config", "show"],
}


def median_ms(command: list[str], runs: int, cwd: str, env: dict[str, str]) -> float:
    timings = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run(command, cwd=cwd, env=env, stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL, check=False)
        timings.append((time.perf_counter() - start) * 1000)
    return statistics.median(timings)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=30)
    runs = max(parser.parse_args().runs, 20)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OSIRIS_", "ANTHROPIC_"))}
    with tempfile.TemporaryDirectory() as cwd:
        Path(cwd, ".osiris.yaml").write_text("llm:\n  provider: demo\n")
        print(f"median wall time over {runs} runs")
        for label, command in COMMANDS.items():
            print(f"  {label:<28} {median_ms(command, runs, cwd, env):7.1f} ms")


if __name__ == "__main__":
    main()
