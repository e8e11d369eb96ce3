"""Fuzz campaign: a large seeded stream of hostile answers through extraction and validation.

    .venv/bin/python bench/fuzz.py [--n 100000] [--seed 9] [--hang 2] [--stop 60]

Feeds the inputs of tests/fuzz_inputs.py (the stream test_fuzz.py samples 2,000 deep) to one
Validator, checks each report as the test does (known codes, renderable, strict JSON), and prints:
inputs tried, crashes (with the first few, reproducible by seed and number), inputs slower than
`--hang` seconds, and the slowest input with its time. An input still running after `--stop`
seconds is interrupted (SIGALRM) and counted as a hang. Exit 1 when anything crashed or hung.
"""

from __future__ import annotations

import argparse
import itertools
import signal
import sys
import time
import traceback
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tests.fuzz_inputs import answers, check, fuzz_validator  # noqa: E402

SHOWN = 5  # crashes printed in full


class Stopped(Exception):
    """An input ran past --stop seconds."""


def _stop(signum: int, frame: object) -> None:
    raise Stopped


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=100_000, help="inputs to try")
    parser.add_argument("--seed", type=int, default=9)
    parser.add_argument("--hang", type=float, default=2.0, help="an input slower than this (seconds) is a hang")
    parser.add_argument("--stop", type=int, default=60, help="interrupt an input after this many seconds")
    args = parser.parse_args()

    validator = fuzz_validator()
    validator.validate(next(answers(args.seed))[0])  # warm up: imports and compiled schemas are not the input's cost
    signal.signal(signal.SIGALRM, _stop)
    crashes: list[tuple[int, str, str]] = []
    hangs: list[tuple[float, int]] = []
    slowest = (0.0, -1, "")
    started = time.perf_counter()
    for number, (text, truncated) in enumerate(itertools.islice(answers(args.seed), args.n)):
        signal.alarm(args.stop)
        began = time.perf_counter()
        try:
            check(validator.validate(text, truncated=truncated))
        except Stopped:
            crashes.append((number, text, f"interrupted after {args.stop} s"))
        except Exception:
            crashes.append((number, text, traceback.format_exc(limit=-3)))
        finally:
            signal.alarm(0)
        took = time.perf_counter() - began
        if took > args.hang:
            hangs.append((took, number))
        if took > slowest[0]:
            slowest = (took, number, text)
        if number and number % 10_000 == 0:
            print(f"  ... {number:,} inputs, {len(crashes)} crashes, {time.perf_counter() - started:.0f} s", flush=True)
    total = time.perf_counter() - started

    print(f"inputs tried: {args.n:,} (seed {args.seed}) in {total:.1f} s, {total / args.n * 1000:.2f} ms an input")
    print(f"crashes: {len(crashes)}")
    for number, text, error in crashes[:SHOWN]:
        print(f"  input {number}: {text[:200]!r}\n    {error.strip().splitlines()[-1]}")
    print(f"hangs over {args.hang:g} s: {len(hangs)}" + "".join(f"\n  input {n}: {t:.2f} s" for t, n in hangs[:SHOWN]))
    took, number, text = slowest
    print(f"slowest input: {took * 1000:.0f} ms (input {number}, {len(text):,} characters): {text[:120]!r}")
    return 1 if crashes or hangs else 0


if __name__ == "__main__":
    sys.exit(main())
