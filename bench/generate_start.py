"""Where `osiris generate` spends its time before the first request reaches the LLM.

    .venv/bin/python bench/generate_start.py [--runs 7] [--source DIR ...]

Runs `osiris generate "REQUEST"` in a temporary project against the fake Messages API on
127.0.0.1 (tests/fake_anthropic.py, answering at once), and prints medians of:
  first request   process start to the request arriving at the server
  whole run       process start to exit (the answer validated, the session written)
and, from one `python -X importtime` run of each tree: what importing took before the request
(`anthropic` on its own line), and a bare `python -c pass` for scale. Interleaved run by run;
`--source DIR` times the tree in DIR (holding `osiris/`) instead, several trees alike.
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

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.engine_samples import VALID, fenced  # noqa: E402
from tests.fake_anthropic import FakeAnthropic, Reply  # noqa: E402

REQUEST = "copy data/customers.csv to output/active_customers.csv"


def one_run(source: str | None, importtime: bool = False) -> tuple[float, float, str]:
    """(seconds to the first request, seconds to exit, stderr) of one `osiris generate`."""
    with tempfile.TemporaryDirectory(prefix=".bench-generate-", dir=ROOT) as cwd, \
            FakeAnthropic([Reply(fenced(VALID))]) as server:
        Path(cwd, ".osiris.yaml").write_text(f"llm:\n  base_url: {server.url}\n")
        env = {k: v for k, v in os.environ.items()
               if not k.startswith(("OSIRIS_", "ANTHROPIC_")) and k != "PYTHONDONTWRITEBYTECODE"}
        env.update(PYTHON_KEYRING_BACKEND="keyring.backends.fail.Keyring", ANTHROPIC_API_KEY="sk-ant-bench-0000",
                   NO_COLOR="1", **({"PYTHONPATH": source} if source else {}))
        arrived: list[float] = []
        answer = server._next
        server._next = lambda recorded: (arrived.append(time.perf_counter()), answer(recorded))[1]  # type: ignore[method-assign]
        started = time.perf_counter()
        done = subprocess.run([sys.executable, *(["-X", "importtime"] if importtime else []), "-m", "osiris",
                               "generate", REQUEST], cwd=cwd, env=env, capture_output=True, text=True, check=False)
        ended = time.perf_counter()
        if done.returncode != 0 or not arrived:
            raise SystemExit(f"osiris generate failed ({done.returncode}): {done.stderr[-2000:]}")
        return arrived[0] - started, ended - started, done.stderr


def imports_before_request(stderr: str) -> dict[str, float]:
    """Milliseconds of top-level imports from `-X importtime`: anthropic, and all the others."""
    found = {"anthropic": 0.0, "everything else": 0.0}
    for line in stderr.splitlines():
        if not line.startswith("import time:") or line.count("|") != 2:
            continue
        _self, cumulative, name = line.split("|")
        if not cumulative.strip().isdigit() or name.startswith("  "):
            continue
        found["anthropic" if name.strip() == "anthropic" else "everything else"] += int(cumulative) / 1000
    return found


def bare_ms(runs: int) -> float:
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        subprocess.run([sys.executable, "-c", "pass"], check=True)
        times.append((time.perf_counter() - started) * 1000)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--source", action="append", default=[])
    args = parser.parse_args()
    sources = [str(Path(s).resolve()) for s in args.source] or [None]
    for source in sources:  # untimed: fills each tree's bytecode cache
        one_run(source)
    firsts: dict[str | None, list[float]] = {s: [] for s in sources}
    wholes: dict[str | None, list[float]] = {s: [] for s in sources}
    for _ in range(args.runs):
        for source in sources:
            first, whole, _stderr = one_run(source)
            firsts[source].append(first)
            wholes[source].append(whole)
    print(f"median of {args.runs} interleaved runs, load average {os.getloadavg()[0]:.2f}; "
          f"bare python -c pass: {bare_ms(5):.0f} ms")
    for source in sources:
        where = f" [{source}]" if source else ""
        imports = imports_before_request(one_run(source, importtime=True)[2])
        print(f"  first request {statistics.median(firsts[source]) * 1000:6.0f} ms, whole run "
              f"{statistics.median(wholes[source]) * 1000:6.0f} ms; imports (one -X importtime run): anthropic "
              f"{imports['anthropic']:.0f} ms, everything else {imports['everything else']:.0f} ms{where}")


if __name__ == "__main__":
    main()
