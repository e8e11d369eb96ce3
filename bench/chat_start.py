"""Time from `osiris chat --provider demo` to its first prompt, in a pseudo-terminal.

    .venv/bin/python bench/chat_start.py [--runs 10]

Prints the median and the bare interpreter's start-up for scale (compare ratios: machines are noisy).
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time

import pexpect

PROMPT = "osiris>"  # matched without its trailing space, as prompt_toolkit redraws it


def time_to_prompt(cwd: str, env: dict[str, str]) -> float:
    start = time.perf_counter()
    child = pexpect.spawn(sys.executable, ["-m", "osiris", "chat", "--provider", "demo"],
                          cwd=cwd, env=env, encoding="utf-8", timeout=30, dimensions=(40, 120))
    child.expect_exact(PROMPT)
    elapsed = (time.perf_counter() - start) * 1000
    child.sendeof()
    child.expect(pexpect.EOF)
    child.close()
    return elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=10)
    runs = parser.parse_args().runs
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OSIRIS_", "ANTHROPIC_"))}
    env.update(PROMPT_TOOLKIT_NO_CPR="1", PYTHON_KEYRING_BACKEND="keyring.backends.fail.Keyring")
    with tempfile.TemporaryDirectory(dir=".") as cwd:
        timings = [time_to_prompt(cwd, env) for _ in range(runs)]
        bare = []
        for _ in range(runs):
            start = time.perf_counter()
            subprocess.run([sys.executable, "-c", "pass"], check=True)
            bare.append((time.perf_counter() - start) * 1000)
    print(f"time to the first chat prompt (demo provider), median of {runs}: "
          f"{statistics.median(timings):.0f} ms (bare python: {statistics.median(bare):.0f} ms)")


if __name__ == "__main__":
    main()
