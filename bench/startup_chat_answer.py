"""Time from pressing Enter on the first chat request to the valid pipeline on screen, against the
fake Messages API answering after DELAY seconds, with TYPING seconds between the prompt appearing
and the request being sent. Prints the medians and the wait beyond the fake server's delay.

    .venv/bin/python bench/startup_chat_answer.py [--runs 5] [--delay 1.0] [--typing 4] [--source DIR ...]

`--source DIR` measures the tree in DIR (holding `osiris/`); several trees run interleaved.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

import pexpect

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.engine_samples import VALID, fenced  # noqa: E402
from tests.fake_anthropic import FakeAnthropic, Reply  # noqa: E402

PROMPT = "osiris>"
REQUEST = "copy data/customers.csv to output/active_customers.csv"


def first_answer_ms(source: str | None, delay: float, typing: float) -> float:
    with tempfile.TemporaryDirectory(prefix=".bench-chat-", dir=ROOT) as cwd, \
            FakeAnthropic([Reply(fenced(VALID), delay=delay)]) as server:
        Path(cwd, ".osiris.yaml").write_text(f"llm:\n  base_url: {server.url}\n")
        env = {k: v for k, v in os.environ.items() if not k.startswith(("OSIRIS_", "ANTHROPIC_"))}
        env.update(PROMPT_TOOLKIT_NO_CPR="1", PYTHON_KEYRING_BACKEND="keyring.backends.fail.Keyring",
                   ANTHROPIC_API_KEY="sk-ant-bench-0000", NO_COLOR="1")
        if source:
            env["PYTHONPATH"] = source
        child = pexpect.spawn(sys.executable, ["-m", "osiris", "chat"], cwd=cwd, env=env, encoding="utf-8",
                              timeout=60, dimensions=(40, 120))
        child.expect_exact(PROMPT)
        time.sleep(typing)
        child.sendline(REQUEST)
        start = time.perf_counter()
        child.expect_exact("Valid pipeline")
        elapsed = (time.perf_counter() - start) * 1000
        child.terminate(force=True)
        return elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--delay", type=float, default=1.0)
    parser.add_argument("--typing", type=float, default=4.0)
    parser.add_argument("--source", action="append", default=[])
    args = parser.parse_args()
    sources = [str(Path(s).resolve()) for s in args.source] or [None]
    samples: dict[str | None, list[float]] = {s: [] for s in sources}
    for _ in range(args.runs):
        for source in sources:
            samples[source].append(first_answer_ms(source, args.delay, args.typing))
    print(f"load average {os.getloadavg()[0]:.2f}; fake server delay {args.delay * 1000:.0f} ms, "
          f"{args.typing:.0f} s of typing, median of {args.runs}")
    for source in sources:
        median = statistics.median(samples[source])
        print(f"  {source or 'this checkout'}: first answer {median:.0f} ms after Enter "
              f"({median - args.delay * 1000:+.0f} ms beyond the LLM's delay)")


if __name__ == "__main__":
    main()
