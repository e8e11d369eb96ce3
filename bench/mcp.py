"""`osiris mcp`: time from starting the server to an initialized session, and `oml_validate` per call.

    .venv/bin/python bench/mcp.py [--starts 10] [--calls 100] [--subprocess-calls 20]

In a temporary project with a `.osiris.yaml`, the MCP SDK's own stdio client starts `python -m
osiris mcp` `--starts` times and measures spawn to initialized (the client's handshake done),
interleaved with as many runs of `osiris --help` (the fast command's start, for a ratio on a noisy
machine); then,
on one server, `--calls` `oml_validate` calls of the example pipeline (read a CSV, an SQL transform,
write a CSV), one at a time, from the
request sent to the result received. For comparison, `--subprocess-calls` runs of `osiris validate
--json -` on the same pipeline: the cost of a subprocess per call, which the server avoids (ADR 0150).
Prints medians and p95; goals (issue 27): start under 2 s, oml_validate median under 20 ms.
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

# This file is named after the command, which shadows the SDK's package `mcp` when run as a script:
# take its folder off the import path before importing the SDK.
sys.path = [entry for entry in sys.path if Path(entry or ".").resolve() != Path(__file__).resolve().parent]

import anyio  # noqa: E402
from mcp import Client, StdioServerParameters  # noqa: E402

from osiris.mcp.oml_shape import EXAMPLE as PIPELINE  # noqa: E402  # three steps, one of them SQL

SETTINGS = """\
connections:
  postgres:
    default: {host: db.internal, port: 5432, database: shop, user: osiris, password: "${PG_PASSWORD}"}
"""


def p95(values: list[float]) -> float:
    return sorted(values)[max(0, round(0.95 * len(values)) - 1)]


def params(root: Path) -> StdioServerParameters:
    return StdioServerParameters(command=sys.executable, args=["-m", "osiris", "mcp"], cwd=str(root),
                                 env={"PG_PASSWORD": "bench-only", "PYTHON_KEYRING_BACKEND": "keyring.backends.fail.Keyring"})


async def start_once(root: Path) -> float:
    started = time.perf_counter()
    with open(os.devnull, "w") as quiet:
        from mcp.client.stdio import stdio_client

        async with Client(stdio_client(params(root), errlog=quiet)):
            return time.perf_counter() - started


async def validate_calls(root: Path, calls: int) -> list[float]:
    from mcp.client.stdio import stdio_client

    timings = []
    with open(os.devnull, "w") as quiet:
        async with Client(stdio_client(params(root), errlog=quiet)) as client:
            await client.call_tool("oml_validate", {"oml": PIPELINE})  # warm: the first call builds validators
            for _ in range(calls):
                started = time.perf_counter()
                result = await client.call_tool("oml_validate", {"oml": PIPELINE})
                timings.append(time.perf_counter() - started)
                assert result.structured_content and result.structured_content["valid"], result
    return timings


def help_once(root: Path) -> float:
    started = time.perf_counter()
    subprocess.run([sys.executable, "-m", "osiris", "--help"], capture_output=True, cwd=root, check=True)
    return time.perf_counter() - started


def subprocess_calls(root: Path, runs: int) -> list[float]:
    timings = []
    for _ in range(runs):
        started = time.perf_counter()
        done = subprocess.run([sys.executable, "-m", "osiris", "validate", "--json", "-"], input=PIPELINE, text=True,
                              capture_output=True, cwd=root, env={**os.environ, "PG_PASSWORD": "bench-only"})
        timings.append(time.perf_counter() - started)
        assert done.returncode == 0, done.stderr
    return timings


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--starts", type=int, default=10)
    parser.add_argument("--calls", type=int, default=100)
    parser.add_argument("--subprocess-calls", type=int, default=20)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="osiris-bench-mcp-") as folder:
        root = Path(folder)
        (root / ".osiris.yaml").write_text(SETTINGS, encoding="utf-8")
        anyio.run(start_once, root)  # untimed: fills the bytecode caches
        starts, helps = [], []
        for _ in range(args.starts):
            starts.append(anyio.run(start_once, root))
            helps.append(help_once(root))
        calls = anyio.run(validate_calls, root, args.calls)
        spawned = subprocess_calls(root, args.subprocess_calls)
    print(f"load: {os.getloadavg()[0]:.2f} (1 min), {os.cpu_count()} cores")
    print(f"start to initialized ({len(starts)} starts): median {statistics.median(starts) * 1000:.0f} ms, "
          f"p95 {p95(starts) * 1000:.0f} ms (goal: under 2000 ms); osiris --help median "
          f"{statistics.median(helps) * 1000:.0f} ms (x{statistics.median(starts) / statistics.median(helps):.1f})")
    print(f"oml_validate in process ({len(calls)} calls): median {statistics.median(calls) * 1000:.1f} ms, "
          f"p95 {p95(calls) * 1000:.1f} ms (goal: median under 20 ms)")
    print(f"osiris validate --json - per call ({len(spawned)} subprocesses): median "
          f"{statistics.median(spawned) * 1000:.0f} ms, p95 {p95(spawned) * 1000:.0f} ms")


if __name__ == "__main__":
    main()
