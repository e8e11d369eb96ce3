"""Issue 30 item 7: an API key written into `.osiris.yaml` is refused with where it belongs, by
every command that reads settings, and never echoed (exit 2, one line)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import cli_env, osiris_here

PLANTED = "sk-ant-api03-Planted-0c4e9b2a7d1f"
ADVICE = "the API key never goes in .osiris.yaml; use ANTHROPIC_API_KEY or `osiris auth login`"

COMMANDS = [("config", "show"), ("validate", "p.yaml"), ("run", "p.yaml"), ("sessions", "list"),
            ("generate", "copy customers"), ("chat",), ("components", "list"), ("discover", "--list")]


@pytest.mark.parametrize("command", COMMANDS, ids=" ".join)
@pytest.mark.parametrize("settings, key", [
    (f"llm:\n  model: claude-sonnet-5-5\n  api_key: {PLANTED}\n", "llm.api_key"),
    (f"anthropic_api_key: {PLANTED}\n", "anthropic_api_key"),
    (f"api_key: {PLANTED}\n", "api_key"),
])
def test_an_api_key_in_the_settings_file_says_where_it_belongs(tmp_path: Path, command, settings, key):
    (tmp_path / ".osiris.yaml").write_text(settings)
    (tmp_path / "p.yaml").write_text("oml_version: '0.1.0'\n")

    done = osiris_here(*command, cwd=tmp_path, env=cli_env(), input="")

    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr == f"osiris: error: {tmp_path / '.osiris.yaml'}: {key}: {ADVICE}\n"
    assert PLANTED not in done.stderr and "unknown key" not in done.stderr


def test_an_api_key_in_an_osiris_variable_says_where_it_belongs(tmp_path: Path):
    done = osiris_here("config", "show", cwd=tmp_path, env=cli_env(OSIRIS_LLM__API_KEY=PLANTED))

    assert done.returncode == 2
    assert done.stderr == ("osiris: error: env OSIRIS_LLM__API_KEY: llm.api_key: the API key never goes in "
                           "OSIRIS_* variables; use ANTHROPIC_API_KEY or `osiris auth login`\n")
