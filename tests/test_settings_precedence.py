"""Precedence of settings layers (docs/configuration.md), as `osiris config show --json` reports it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.support import clean_env
from tests.inprocess import run_inprocess as run_osiris  # in-process: tests/inprocess.py

KEY = "validation.retry.max_attempts"


def effective(project: Path, *, env_value: str | None, cli_value: str | None) -> dict:
    env = clean_env()
    if env_value is not None:
        env["OSIRIS_VALIDATE_RETRY_ATTEMPTS"] = env_value
    args = ["config", "show", "--json"]
    if cli_value is not None:
        args += ["--retry-attempts", cli_value]
    result = run_osiris(*args, cwd=project, env=env)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)[KEY]


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / ".osiris.yaml").write_text("validation:\n  retry:\n    max_attempts: 3\n")
    return tmp_path


def test_cli_beats_env_and_file(project: Path) -> None:
    assert effective(project, env_value="4", cli_value="1") == {"value": 1, "source": "cli"}


def test_env_beats_file_without_cli(project: Path) -> None:
    assert effective(project, env_value="4", cli_value=None) == {
        "value": 4,
        "source": "env OSIRIS_VALIDATE_RETRY_ATTEMPTS",
    }


def test_file_applies_without_env_or_cli(project: Path) -> None:
    found = effective(project, env_value=None, cli_value=None)
    assert found == {"value": 3, "source": str(project / ".osiris.yaml")}


def test_default_applies_without_file(tmp_path: Path) -> None:
    assert effective(tmp_path, env_value=None, cli_value=None) == {"value": 2, "source": "default"}


def test_file_is_found_by_walking_up(project: Path) -> None:
    nested = project / "a" / "b"
    nested.mkdir(parents=True)
    assert effective(nested, env_value=None, cli_value=None)["value"] == 3


def test_nested_env_variable_names_its_source(tmp_path: Path) -> None:
    env = clean_env(OSIRIS_LLM__MODEL="claude-haiku-4-5")
    result = run_osiris("config", "show", "--json", cwd=tmp_path, env=env)
    assert json.loads(result.stdout)["llm.model"] == {
        "value": "claude-haiku-4-5",
        "source": "env OSIRIS_LLM__MODEL",
    }


def test_explicit_config_path_is_used(tmp_path: Path) -> None:
    other = tmp_path / "other.yaml"
    other.write_text("llm:\n  provider: demo\n")
    result = run_osiris("config", "show", "--json", "--config", str(other), cwd=tmp_path)
    assert json.loads(result.stdout)["llm.provider"] == {"value": "demo", "source": str(other)}


def test_text_output_lists_values_with_sources(project: Path) -> None:
    result = run_osiris("config", "show", cwd=project)
    line = next(line for line in result.stdout.splitlines() if line.startswith(KEY))
    assert line.split()[1:] == ["3", str(project / ".osiris.yaml")]


def test_secret_connection_values_are_masked_but_env_references_shown(tmp_path: Path) -> None:
    (tmp_path / ".osiris.yaml").write_text(
        "connections:\n  mysql:\n    default:\n      password: hunter2-planted\n"
        "      user: reader\n  postgres:\n    main:\n      password: ${PG_PASSWORD}\n"
        "      url: postgres://etl:dsn-planted-pw@pg.internal/dw\n"
    )
    result = run_osiris("config", "show", "--json", cwd=tmp_path)
    shown = json.loads(result.stdout)
    assert "hunter2-planted" not in result.stdout + result.stderr
    assert "dsn-planted-pw" not in result.stdout + result.stderr
    assert shown["connections.postgres.main.url"]["value"] == "postgres://etl:***@pg.internal/dw"
    assert shown["connections.mysql.default.password"]["value"] == "***"
    assert shown["connections.mysql.default.user"]["value"] == "reader"
    assert shown["connections.postgres.main.password"]["value"] == "${PG_PASSWORD}"
