"""Benchmark the generation engine: scripted scenarios through the real engine, the real SDK and
the real validator, against the fake Messages API server on 127.0.0.1.

    .venv/bin/python bench/retry.py [--runs 20]

Prints:
- the engine's own overhead per attempt with the LLM wait excluded (prompt building, validation,
  redaction, artifacts, events): median and p95 wall time, the same without validation, and the
  engine thread's CPU time (which other processes on the machine do not inflate);
- tokens per valid pipeline, fresh input, output and cache reads counted apart (the fake server
  estimates usage at 4 characters a token; the cached system prompt is written on a session's
  first request and read on later ones);
- the share of scenarios that end valid within the retry budget (default budget: 2 retries).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from osiris.retry import open_engine
from osiris.settings import load_settings
from tests.engine_samples import (
    BAD_COMPONENT,
    BAD_MODE,
    BAD_NEEDS,
    CUT_OFF,
    PROSE_ONLY,
    VALID,
    fenced,
)
from tests.fake_anthropic import FakeAnthropic, Reply, Status

SCENARIOS = {
    "valid first try": [Reply(fenced(VALID))],
    "fixed on retry 1": [Reply(fenced(BAD_MODE)), Reply(fenced(VALID))],
    "fixed on retry 2": [Reply(fenced(BAD_MODE)), Reply(fenced(BAD_COMPONENT)), Reply(fenced(VALID))],
    "prose, then valid": [Reply(PROSE_ONLY), Reply(fenced(VALID))],
    "cut off, then valid": [Reply(CUT_OFF, stop_reason="max_tokens"), Reply(fenced(VALID))],
    "429, then valid": [Status(429, retry_after="0"), Reply(fenced(VALID))],
    "never fixed": [Reply(fenced(BAD_MODE)), Reply(fenced(BAD_COMPONENT)), Reply(fenced(BAD_NEEDS))],
    "no progress": [Reply(fenced(BAD_NEEDS)), Reply(fenced(BAD_NEEDS))],
}


def run_scenario(script, project: Path) -> tuple[object, float, float]:
    """One session: (result, wall ms, engine CPU ms). The CPU figure is this thread's CPU time
    outside the provider call, so it does not move when other processes load the machine."""
    with FakeAnthropic(list(script), estimate_usage=True) as server:
        effective = load_settings(
            cli={"llm": {"base_url": server.url}}, cwd=project, env={"ANTHROPIC_API_KEY": "sk-ant-bench-0000"}
        )
        engine = open_engine(effective, command="bench", sleep=lambda s: None)
        in_provider = [0.0]
        complete = engine.provider.complete

        def timed_complete(request):
            cpu = time.thread_time()
            try:
                return complete(request)
            finally:
                in_provider[0] += time.thread_time() - cpu

        engine.provider.complete = timed_complete
        started, cpu_started = time.perf_counter(), time.thread_time()
        result = engine.run("copy the customers CSV to output/active_customers.csv")
        wall = (time.perf_counter() - started) * 1000
        cpu = (time.thread_time() - cpu_started - in_provider[0]) * 1000
        engine.session.finish("valid" if result.valid else "invalid")
    return result, wall, cpu


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(share * (len(ordered) - 1))))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=20, help="runs of each scenario (default 20)")
    runs = parser.parse_args().runs

    overhead, overhead_no_validation, overhead_cpu = [], [], []
    outcomes: dict[str, list[bool]] = {}
    valid_usage = []
    # Sessions go to a temporary project in the current directory, as a real project's would
    # (on these machines /tmp is a much slower file system than the work disk).
    with tempfile.TemporaryDirectory(dir=Path.cwd(), prefix=".bench-retry-") as tmp:
        project = Path(tmp)
        run_scenario(SCENARIOS["valid first try"], project)  # warm-up: SDK import, registry load
        for _ in range(runs):
            for name, script in SCENARIOS.items():
                result, wall, cpu = run_scenario(script, project)
                attempts = len(result.attempts)
                overhead_cpu.append(cpu / attempts)
                engine_ms = wall - result.llm_ms
                overhead.append(engine_ms / attempts)
                overhead_no_validation.append((engine_ms - result.validate_ms) / attempts)
                outcomes.setdefault(name, []).append(result.valid)
                if result.valid:
                    valid_usage.append(result.usage)

    print(f"generation engine benchmark: {len(SCENARIOS)} scenarios x {runs} runs, fake server on 127.0.0.1")
    print(
        f"engine overhead per attempt, LLM wait excluded: median {statistics.median(overhead):.2f} ms, "
        f"p95 {percentile(overhead, 0.95):.2f} ms (goal: median < 10 ms)"
    )
    print(
        f"  of which not validation:                    median {statistics.median(overhead_no_validation):.2f} ms, "
        f"p95 {percentile(overhead_no_validation, 0.95):.2f} ms"
    )
    print(
        f"  engine CPU time per attempt (load-independent): median {statistics.median(overhead_cpu):.2f} ms, "
        f"p95 {percentile(overhead_cpu, 0.95):.2f} ms"
    )
    n = len(valid_usage)

    def mean(attr: str) -> float:
        return sum(getattr(u, attr) for u in valid_usage) / n

    print(
        f"tokens per valid pipeline (mean of {n}): input {mean('input'):.0f}, output {mean('output'):.0f}, "
        f"cache write {mean('cache_write'):.0f}, cache read {mean('cache_read'):.0f}"
    )
    total = sum(len(v) for v in outcomes.values())
    valid = sum(sum(v) for v in outcomes.values())
    print(f"scenarios ending valid within the budget: {valid}/{total} ({100 * valid / total:.0f}%)")
    for name, results in outcomes.items():
        print(f"  {name:<22} {'valid' if all(results) else 'invalid' if not any(results) else 'mixed'}")


if __name__ == "__main__":
    main()
