"""Shared fixtures: a clean environment, a fake Messages API server, a temporary project."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests import support
from tests.fake_anthropic import FakeAnthropic
from tests.support import clean_env as cli_env

TEST_API_KEY = "sk-ant-test-key-4f1c9a7e2b5d8c3a"


def pytest_terminal_summary(terminalreporter: Any, config: pytest.Config) -> None:
    """The seed of a run in random order (pytest-randomly, ADR 0204) as its last line, also under -q
    and xdist, with the command that replays the order."""
    seed = getattr(config.option, "randomly_seed", None)
    if isinstance(seed, int) and config.pluginmanager.hasplugin("randomly"):
        terminalreporter.write_line(f"tests ran in random order, seed {seed}; "
                                    f"replay it with: pytest --randomly-seed={seed} TESTS")


@pytest.fixture(autouse=True)
def clean_env(monkeypatch: pytest.MonkeyPatch) -> None:
    """No ANTHROPIC_*, OPENAI_* or OSIRIS_* variable leaks in from the machine; no real keyring is used."""
    for name in list(os.environ):
        if name.startswith(("ANTHROPIC_", "OPENAI_", "OSIRIS_")):
            monkeypatch.delenv(name)
    monkeypatch.setenv("PYTHON_KEYRING_BACKEND", "keyring.backends.fail.Keyring")


@pytest.fixture
def fake_api() -> Iterator[FakeAnthropic]:
    with FakeAnthropic() as server:
        yield server


@pytest.fixture
def project(tmp_path: Path, fake_api: FakeAnthropic, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A project directory whose .osiris.yaml points the LLM at the fake server."""
    root = tmp_path / "project"
    root.mkdir()
    write_settings(root, {"llm": {"base_url": fake_api.url, "timeout_seconds": 5}})
    monkeypatch.chdir(root)
    return root


def write_settings(root: Path, settings: dict[str, Any]) -> None:
    (root / ".osiris.yaml").write_text(yaml.safe_dump(settings, sort_keys=False), encoding="utf-8")


def run_osiris(
    *args: str, cwd: Path, env: dict[str, str] | None = None, timeout: float = 60
) -> subprocess.CompletedProcess:
    """The real program in a subprocess, with the test API key set unless `env` is given."""
    env = cli_env(ANTHROPIC_API_KEY=TEST_API_KEY) if env is None else env
    return support.run_osiris(*args, cwd=cwd, env=env, timeout=timeout)


def osiris_here(
    *args: str, cwd: Path, env: dict[str, str] | None = None, input: str | None = None
) -> subprocess.CompletedProcess:
    """Like `run_osiris`, inside the test process (tests/inprocess.py): for what a process adds nothing to."""
    from tests.inprocess import run_inprocess

    env = cli_env(ANTHROPIC_API_KEY=TEST_API_KEY) if env is None else env
    return run_inprocess(*args, cwd=cwd, env=env, input=input)


def session_dirs(root: Path) -> list[Path]:
    base = root / ".osiris" / "sessions"
    return sorted(p for p in base.iterdir() if p.is_dir()) if base.is_dir() else []


@pytest.fixture(scope="session")
def postgres_server() -> Iterator[Any]:
    """A real PostgreSQL 15 for the whole test session (fails, never skips, when it cannot start)."""
    from tests.servers.postgres import start_postgres

    server = start_postgres()
    yield server
    server.stop()


@pytest.fixture(scope="session")
def mariadb_server() -> Iterator[Any]:
    """A real MariaDB for the whole test session (fails, never skips, when it cannot start)."""
    from tests.servers.mariadb import start_mariadb

    server = start_mariadb()
    yield server
    server.stop()


@pytest.fixture
def mcp_in(monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    """`mcp_in(root)`: the SDK's client connected in this process to an `osiris mcp` server of the
    project at `root` (without --allow-run); closed after the test."""
    from osiris.mcp.project import Project
    from osiris.mcp.server import build_server, open_trail
    from tests.mcp_client import McpServer

    opened: list[McpServer] = []

    def start(root: Path) -> McpServer:
        monkeypatch.chdir(root)
        loaded = Project.load()
        server = McpServer.inprocess(build_server(loaded, open_trail(loaded), allow_run=False))
        opened.append(server)
        return server

    yield start
    for server in opened:
        server.close()
