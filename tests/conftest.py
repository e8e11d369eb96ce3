"""Shared fixtures: a clean environment, a fake Messages API server, a temporary project."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

# tests/ is a package (tests/__init__.py, from main), yet some test modules import their helpers
# as top-level modules (`from validate_helpers import ...`): keep both styles working.
sys.path.insert(0, str(Path(__file__).resolve().parent))

from tests.fake_anthropic import FakeAnthropic  # noqa: E402

TEST_API_KEY = "sk-ant-test-key-4f1c9a7e2b5d8c3a"
REPO = Path(__file__).resolve().parent.parent


@pytest.fixture(autouse=True)
def clean_env(monkeypatch: pytest.MonkeyPatch) -> None:
    """No ANTHROPIC_* or OSIRIS_* variable leaks in from the machine; no real keyring is used."""
    for name in list(os.environ):
        if name.startswith(("ANTHROPIC_", "OSIRIS_")):
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


def cli_env(**extra: str) -> dict[str, str]:
    """The environment of a CLI run: the machine's, minus ANTHROPIC_*/OSIRIS_*, plus `extra`."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ANTHROPIC_", "OSIRIS_"))}
    env["PYTHON_KEYRING_BACKEND"] = "keyring.backends.fail.Keyring"
    env["NO_COLOR"] = "1"
    env.update(extra)
    return env


def run_osiris(
    *args: str, cwd: Path, env: dict[str, str] | None = None, timeout: float = 60
) -> subprocess.CompletedProcess:
    """The real program in a subprocess: `python -m osiris ARGS`."""
    return subprocess.run(
        [sys.executable, "-m", "osiris", *args],
        cwd=cwd,
        env=env if env is not None else cli_env(ANTHROPIC_API_KEY=TEST_API_KEY),
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def session_dirs(root: Path) -> list[Path]:
    base = root / ".osiris" / "sessions"
    return sorted(p for p in base.iterdir() if p.is_dir()) if base.is_dir() else []
