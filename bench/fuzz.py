"""Fuzz campaign: a large seeded stream of hostile answers through validation, redaction and the session.

    .venv/bin/python bench/fuzz.py [--n 100000] [--seed 9] [--hang 2] [--stop 60]
    .venv/bin/python bench/fuzz.py --hostile 2000 [--seed 9]     # hostile pipelines through run --sample
    .venv/bin/python bench/fuzz.py --runs 5000 [--seed 9] [--hang 10]   # fuzzed valid pipelines through run

Feeds the inputs of tests/fuzz_inputs.py (the stream test_fuzz.py and test_session_fuzz.py sample)
to three targets, each checked as the tests do:

- validator: `Validator.validate`; each report has known codes, renders, and is strict JSON;
- redactor: the answer, with secrets planted in it (`planted`), through `Redactor.text`, and the
  pipeline read from it through `Redactor.data`: strict JSON, no planted secret left;
- session writers: answer.txt, errors.json, a `validation_retry` event and a conversation turn
  written as generate writes an attempt: valid UTF-8, strict JSON, no planted secret in any file.
  A fresh session every 1,000 inputs keeps the files small; each is deleted once checked.

With `--hostile N`, it runs N hostile pipelines of tests/fuzz_hostile.py instead (issue 22): each
through `osiris run --sample 3` (the real CLI, in process) and on the engine with validation skipped,
counting escapes (a file written outside the session, a planted file changed, a server reached),
leaks (a planted secret or file content in the output, a problem or a session file) and crashes.

With `--runs N`, it runs N fuzzed valid pipelines of tests/fuzz_runs.py instead (issue 25): each
through a real `osiris run` (in process) against its files, a local API with fuzzed answers and the
test PostgreSQL (tests/servers),
counting the exit codes, and as crashes every run that exits 5 or shows a Python exception's name,
a traceback or a library error no driver mapped.

Prints, per target: inputs tried, crashes (with the first few, reproducible by seed and number),
inputs slower than `--hang` seconds, and the slowest input with its time. An input still running
after `--stop` seconds is interrupted (SIGALRM) and counted as a crash. Exit 1 when anything
crashed or hung.
"""

from __future__ import annotations

import argparse
import itertools
import random
import shutil
import signal
import sys
import tempfile
import time
import traceback
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from osiris.secrets.redact import Redactor  # noqa: E402
from osiris.session import Session  # noqa: E402
from osiris.validate import Validator  # noqa: E402
from osiris.validate.issue import ValidationReport  # noqa: E402
from tests.fuzz_inputs import (  # noqa: E402
    answers,
    check,
    check_redactor,
    check_writers,
    fuzz_redactor,
    fuzz_validator,
    planted,
)

SHOWN = 5  # crashes and hangs printed per target
SESSION_INPUTS = 1_000  # inputs written to one session before the next


class Stopped(Exception):
    """An input ran past --stop seconds."""


def _stop(signum: int, frame: object) -> None:
    raise Stopped


@dataclass
class Target:
    """What one target met: crashes (number, text, error), hangs (seconds, number), the slowest input."""

    name: str
    tried: int = 0
    crashes: list[tuple[int, str, str]] = field(default_factory=list)
    hangs: list[tuple[float, int]] = field(default_factory=list)
    slowest: tuple[float, int, str] = (0.0, -1, "")

    def run(self, number: int, text: str, call: Callable[[], object], stop: int, hang: float) -> bool:
        """Call `call` under the watchdog; True when it returned without an exception."""
        signal.alarm(stop)
        began = time.perf_counter()
        ok = False
        try:
            call()
            ok = True
        except Stopped:
            self.crashes.append((number, text, f"interrupted after {stop} s"))
        except Exception:
            self.crashes.append((number, text, traceback.format_exc(limit=-3)))
        finally:
            signal.alarm(0)
        took = time.perf_counter() - began
        self.tried += 1
        if took > hang:
            self.hangs.append((took, number))
        if took > self.slowest[0]:
            self.slowest = (took, number, text)
        return ok

    def report(self, hang: float) -> None:
        print(f"{self.name}: {self.tried:,} inputs, {len(self.crashes)} crashes, {len(self.hangs)} hangs over {hang:g} s")
        for number, text, error in self.crashes[:SHOWN]:
            print(f"  crash, input {number}: {text[:200]!r}\n    {error.strip().splitlines()[-1]}")
        for took, number in self.hangs[:SHOWN]:
            print(f"  hang, input {number}: {took:.2f} s")
        took, number, text = self.slowest
        print(f"  slowest input: {took * 1000:.0f} ms (input {number}, {len(text):,} characters): {text[:100]!r}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=100_000, help="inputs to try")
    parser.add_argument("--seed", type=int, default=9)
    parser.add_argument("--hang", type=float, default=2.0, help="an input slower than this (seconds) is a hang")
    parser.add_argument("--stop", type=int, default=60, help="interrupt an input after this many seconds")
    parser.add_argument("--hostile", type=int, default=0, metavar="N",
                        help="run N hostile pipelines through run --sample instead (issue 22)")
    parser.add_argument("--runs", type=int, default=0, metavar="N",
                        help="run N fuzzed valid pipelines through osiris run instead (issue 25)")
    args = parser.parse_args()
    if args.hostile:
        return hostile(args.hostile, args.seed)
    if args.runs:
        return fuzzed_runs(args.runs, args.seed, args.hang, args.stop)

    validator, redactor = fuzz_validator(), fuzz_redactor()
    validator.validate(next(answers(args.seed))[0])  # warm up: imports and compiled schemas are not the input's cost
    redactor.text(next(answers(args.seed))[0])
    signal.signal(signal.SIGALRM, _stop)
    targets = [Target("validator"), Target("redactor"), Target("session writers")]
    rng = random.Random(args.seed)  # where the secrets go: reproducible with the answers
    root = Path(tempfile.mkdtemp(prefix="osiris-fuzz-"))
    session: Session | None = None
    started = time.perf_counter()
    try:
        for number, (answer, truncated) in enumerate(itertools.islice(answers(args.seed), args.n)):
            text, secrets = planted(rng, answer)
            reports: list[ValidationReport] = []
            targets[0].run(number, answer, partial(_validate, validator, answer, truncated, reports), args.stop, args.hang)
            pipeline = reports[0].pipeline if reports else None
            targets[1].run(number, text, partial(check_redactor, redactor, text, pipeline, secrets), args.stop, args.hang)
            if number % SESSION_INPUTS == 0:
                session = _next_session(session, root, redactor)
            assert session is not None
            targets[2].run(number, text, partial(check_writers, session, number, text, pipeline, secrets),
                           args.stop, args.hang)
            if number and number % 10_000 == 0:
                crashes = sum(len(target.crashes) for target in targets)
                print(f"  ... {number:,} inputs, {crashes} crashes, {time.perf_counter() - started:.0f} s", flush=True)
    finally:
        _next_session(session, root, None)
        shutil.rmtree(root, ignore_errors=True)
    total = time.perf_counter() - started

    print(f"inputs tried: {args.n:,} (seed {args.seed}) in {total:.1f} s, {total / max(args.n, 1) * 1000:.2f} ms an input")
    for target in targets:
        target.report(args.hang)
    return 1 if any(target.crashes or target.hangs for target in targets) else 0


def fuzzed_runs(count: int, seed: int, hang: float, stop: int) -> int:
    """`count` fuzzed valid pipelines through `osiris run`; 1 when any run crashed or hung."""
    from collections import Counter

    from tests.fuzz_runs import FuzzApi, findings, load_sources, run_one, runs
    from tests.servers.mariadb import start_mariadb
    from tests.servers.postgres import start_postgres

    pg, maria = start_postgres(), start_mariadb()
    load_sources(pg, maria)
    signal.signal(signal.SIGALRM, _stop)
    target, codes = Target("osiris run"), Counter[int]()
    root = Path(tempfile.mkdtemp(prefix="osiris-fuzz-runs-"))
    started = time.perf_counter()

    def call(pipeline: dict, files: dict[str, bytes]) -> None:
        code, stdout, stderr = run_one(root / "project", pipeline, files, pg, maria)
        codes[code] += 1
        found = findings(code, stdout, stderr)
        if found:
            raise AssertionError(f"{'; '.join(found)}: {stderr.strip()[:300]!r}")

    try:
        with FuzzApi() as api:
            for number, pipeline, files in runs(seed, count, api.url, postgres=True, mysql=True):
                target.run(number, repr(pipeline["steps"]), partial(call, pipeline, files), stop, hang)
    finally:
        pg.stop()
        maria.stop()
        shutil.rmtree(root, ignore_errors=True)
    total = time.perf_counter() - started
    print(f"fuzzed runs: {count:,} (seed {seed}) in {total:.1f} s, exit codes "
          + ", ".join(f"{code}: {n:,}" for code, n in sorted(codes.items())))
    target.report(hang)
    return 1 if target.crashes or target.hangs else 0


def hostile(count: int, seed: int) -> int:
    """Hostile pipelines through `run --sample` and the engine: escapes, leaks and crashes."""
    from tests.fuzz_hostile import campaign

    found: dict[str, list[str]] = {"escapes": [], "leaks": [], "crashes": []}
    times: list[float] = []
    root = Path(tempfile.mkdtemp(prefix="osiris-fuzz-hostile-"))
    started = last = time.perf_counter()

    def report(number: int, escapes: list[str], leaks: list[str], crashes: list[str]) -> None:
        nonlocal last
        now = time.perf_counter()
        times.append(now - last)
        last = now
        for kind, items in (("escapes", escapes), ("leaks", leaks), ("crashes", crashes)):
            found[kind] += [f"input {number}: {item}" for item in items]
        if number and number % 500 == 0:
            print(f"  ... {number:,} pipelines, {time.perf_counter() - started:.0f} s", flush=True)

    try:
        arena = campaign(seed, count, root, report)
    finally:
        shutil.rmtree(root, ignore_errors=True)
    total = time.perf_counter() - started
    print(f"hostile pipelines: {count:,} (seed {seed}) in {total:.1f} s, {total / max(count, 1) * 1000:.0f} ms a pipeline")
    print(f"  run --sample exit codes: {dict(sorted(arena.exits.items()))} (1: refused by validation; 6: at run time)")
    print(f"  the engine, validation skipped: {dict(arena.codes.most_common())}")
    for kind, items in found.items():
        print(f"  {kind}: {len(items)}")
        for item in items[:SHOWN]:
            print(f"    {item[:300]}")
    print(f"  slowest pipeline: {max(times, default=0) * 1000:.0f} ms")
    return 1 if any(found.values()) else 0


def _validate(validator: Validator, answer: str, truncated: bool, reports: list[ValidationReport]) -> None:
    report = validator.validate(answer, truncated=truncated)
    reports.append(report)
    check(report)


def _next_session(session: Session | None, root: Path, redactor: Redactor | None) -> Session | None:
    """Close and delete `session`; open a new one when given a redactor."""
    if session is not None:
        session.finish("valid")
        shutil.rmtree(session.path, ignore_errors=True)
    if redactor is None:
        return None
    return Session.create(root, provider="demo", model="demo", redactor=redactor)


if __name__ == "__main__":
    sys.exit(main())
