"""A bad setting exits 2 with one line naming source, key, value and what is allowed."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support import clean_env
from tests.inprocess import run_inprocess as run_osiris  # in-process: tests/inprocess.py


def assert_one_line_usage_error(result, *fragments: str) -> None:
    assert result.returncode == 2, result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert "Traceback" not in result.stderr
    for fragment in fragments:
        assert fragment in lines[0], lines[0]


# A whole number out of bounds is shown as the number; other text, quoted, as the text typed.
@pytest.mark.parametrize(("value", "shown"), [("9", "= 9 "), ("-1", "= -1 "), ("abc", "= 'abc' "), ("2.5", "= '2.5' ")])
def test_bad_retry_attempts_env(tmp_path: Path, value: str, shown: str) -> None:
    env = clean_env(OSIRIS_VALIDATE_RETRY_ATTEMPTS=value)
    result = run_osiris("config", "show", cwd=tmp_path, env=env)
    assert_one_line_usage_error(
        result,
        "env OSIRIS_VALIDATE_RETRY_ATTEMPTS",
        "validation.retry.max_attempts",
        shown,
        "from 0 to 5",
    )


def test_bad_retry_attempts_flag_names_cli(tmp_path: Path) -> None:
    result = run_osiris("config", "show", "--retry-attempts", "6", cwd=tmp_path)
    assert_one_line_usage_error(result, "cli", "max_attempts = 6 is not allowed", "from 0 to 5")


def test_bad_value_in_file_names_the_file(tmp_path: Path) -> None:
    (tmp_path / ".osiris.yaml").write_text("validation:\n  retry:\n    max_attempts: yes\n")
    result = run_osiris("config", "show", cwd=tmp_path)
    assert_one_line_usage_error(result, str(tmp_path / ".osiris.yaml"), "max_attempts = true is not allowed")


def test_yaml_syntax_error_gives_file_and_line(tmp_path: Path) -> None:
    (tmp_path / ".osiris.yaml").write_text("llm:\n  model: [unclosed\nvalidation: {}\n")
    result = run_osiris("config", "show", cwd=tmp_path)
    assert_one_line_usage_error(result, f"{tmp_path / '.osiris.yaml'}:3:", "invalid YAML")


def test_settings_file_that_is_not_a_mapping(tmp_path: Path) -> None:
    (tmp_path / ".osiris.yaml").write_text("- just\n- a list\n")
    result = run_osiris("config", "show", cwd=tmp_path)
    assert_one_line_usage_error(result, "expected a mapping")


def test_unknown_key_suggests_closest(tmp_path: Path) -> None:
    (tmp_path / ".osiris.yaml").write_text("validation:\n  retry:\n    max_attemps: 3\n")
    result = run_osiris("config", "show", cwd=tmp_path)
    assert_one_line_usage_error(
        result, "unknown key 'validation.retry.max_attemps'", "did you mean 'validation.retry.max_attempts'"
    )


def test_unknown_nested_env_key_suggests_closest(tmp_path: Path) -> None:
    env = clean_env(OSIRIS_LLM__MODLE="x")
    result = run_osiris("config", "show", cwd=tmp_path, env=env)
    assert_one_line_usage_error(result, "env OSIRIS_LLM__MODLE", "did you mean 'llm.model'")


def test_api_key_in_settings_file_is_rejected(tmp_path: Path) -> None:
    (tmp_path / ".osiris.yaml").write_text("llm:\n  api_key: sk-ant-planted-value\n")
    result = run_osiris("config", "show", cwd=tmp_path)
    assert_one_line_usage_error(result, "llm.api_key: the API key never goes in .osiris.yaml; use ANTHROPIC_API_KEY")
    assert "sk-ant-planted-value" not in result.stderr


def test_bad_provider_lists_allowed_values(tmp_path: Path) -> None:
    result = run_osiris("config", "show", "--provider", "gemini", cwd=tmp_path)
    assert_one_line_usage_error(result, "cli", "llm.provider", "'gemini'", "anthropic, openai, demo")


def test_missing_config_path(tmp_path: Path) -> None:
    result = run_osiris("config", "show", "--config", "nope.yaml", cwd=tmp_path)
    assert_one_line_usage_error(result, "nope.yaml", "not found")
