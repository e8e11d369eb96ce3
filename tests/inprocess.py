"""Run an `osiris` command inside the test process (`cli.main(argv)`), as simonw/llm's tests do
with CliRunner: the same arguments, environment, working directory and stdin as a subprocess, and a
CompletedProcess back, without paying for a new interpreter and its imports on every test.

Keep a real subprocess (tests/support.run_osiris) where only a process shows the behaviour: the
entry point's exit status, signals, a keyring backend chosen by the environment (keyring caches
its backend per process), or kill -9.
"""

from __future__ import annotations

import contextlib
import io
import os
import subprocess
import sys
from pathlib import Path

from osiris import cli


class _Captured(io.StringIO):
    """A pipe-like text stream: not a terminal, with an encoding like sys.stdout's."""

    encoding = "utf-8"

    def isatty(self) -> bool:
        return False


def _stdin(text: str) -> io.TextIOWrapper:
    """stdin as a pipe gives it: text over bytes (`sys.stdin.buffer` for a binary read, as `osiris
    validate -` makes), not a terminal."""
    return io.TextIOWrapper(io.BytesIO(text.encode("utf-8")), encoding="utf-8")


def run_inprocess(*args: str, cwd: Path, env: dict[str, str] | None = None, input: str | None = None,
                  timeout: float | None = None) -> subprocess.CompletedProcess[str]:
    """`osiris ARGS` in `cwd` with exactly `env` (by default `clean_env()`, as tests/support.run_osiris
    does) as the environment and `input` on stdin; `timeout` is accepted for the same signature."""
    from tests.support import clean_env

    env = clean_env() if env is None else env
    saved_env, saved_cwd = dict(os.environ), os.getcwd()
    saved_streams = sys.stdin, sys.stdout, sys.stderr
    out, err = _Captured(), _Captured()
    os.environ.clear()
    os.environ.update(env)
    os.chdir(cwd)
    sys.stdin, sys.stdout, sys.stderr = _stdin(input or ""), out, err
    try:
        try:
            code = cli.main(list(args))
        except SystemExit as exit_:  # what the entry point would turn into the process's status
            code = exit_.code if isinstance(exit_.code, int) else 1
    finally:
        sys.stdin, sys.stdout, sys.stderr = saved_streams
        os.chdir(saved_cwd)
        os.environ.clear()
        os.environ.update(saved_env)
        with contextlib.suppress(Exception):
            out.flush()
    return subprocess.CompletedProcess(["osiris", *args], code, out.getvalue(), err.getvalue())
