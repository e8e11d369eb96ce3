"""Helpers for tests that run the real `osiris` program."""

from __future__ import annotations

import importlib.util
import os
import re
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from types import ModuleType

REPO = Path(__file__).resolve().parent.parent


def bench_script(name: str) -> ModuleType:
    """bench/NAME.py loaded as the module NAME (bench/ is not a package), so that a test uses the
    very rules a benchmark counts by; registered in sys.modules, which its dataclasses need."""
    spec = importlib.util.spec_from_file_location(name, REPO / "bench" / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault(name, module)
    spec.loader.exec_module(module)
    return module


def clean_env(**extra: str) -> dict[str, str]:
    """The current environment without ANTHROPIC_*, OPENAI_* and OSIRIS_* variables, plus `extra`."""
    env = {
        key: value
        for key, value in os.environ.items()
        if not key.startswith(("ANTHROPIC_", "OPENAI_", "OSIRIS_"))
    }
    env["PYTHON_KEYRING_BACKEND"] = "keyring.backends.fail.Keyring"
    env["NO_COLOR"] = "1"
    env.update(extra)
    return env


def shows_number(text: str, digits: str) -> bool:
    """Whether `digits` stand in `text` as a number of their own. A short number asserted `not in` a
    text fails by chance: a session id holds the time and six hex digits (20261128-012501-a1b2c3), a
    digest 64, a port five, a duration a decimal. So a run of digits, letters or a decimal point around
    `digits` means it is part of something else (docs/testing.md, "Random order")."""
    return re.search(rf"(?<![0-9A-Za-z.]){re.escape(digits)}(?![0-9A-Za-z.])", text) is not None


def run_osiris(
    *args: str,
    cwd: Path,
    env: dict[str, str] | None = None,
    input: str | None = None,
    timeout: float = 60,
) -> subprocess.CompletedProcess[str]:
    """Run `python -m osiris ARGS` in `cwd` (by default in `clean_env()`) and capture its output."""
    return subprocess.run(
        [sys.executable, "-m", "osiris", *args],
        cwd=cwd,
        env=clean_env() if env is None else env,
        input=input,
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def interrupt_when(process: subprocess.Popen[str], ready: Callable[[], bool], never: str,
                   wait: float = 120) -> tuple[str, str]:
    """SIGINT to `process` once `ready()` holds, then its stdout and stderr when it has ended. Polls:
    a wait for an event, not a measurement; fails with `never` when the process ends first or `wait`
    seconds pass."""
    deadline = time.monotonic() + wait
    while not ready():
        assert process.poll() is None and time.monotonic() < deadline, never
        time.sleep(0.02)
    process.send_signal(signal.SIGINT)
    return process.communicate(timeout=60)
