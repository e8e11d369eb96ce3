"""The settings loader in-process: layers, sources and the exact one-line errors.

The subprocess tests (test_settings_precedence, test_settings_errors) show what a user sees; these
pin the loader's own rules quickly, from bench/mutation.py's survivors (issue 15): an empty
`.osiris.yaml`, the walk up to a parent's file, each kind of unreadable file, and the error text.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from osiris.errors import SettingsError
from osiris.settings import load_settings
from tests.inprocess import run_inprocess as run_osiris  # in-process: tests/inprocess.py
from tests.support import clean_env


def project_with(tmp_path: Path, text: str | bytes | None, name: str = "p") -> Path:
    root = tmp_path / name
    root.mkdir()
    if isinstance(text, bytes):
        (root / ".osiris.yaml").write_bytes(text)
    elif text is not None:
        (root / ".osiris.yaml").write_text(text, encoding="utf-8")
    return root


def changed(effective) -> list[tuple[str, object, str]]:
    return [(key, value, source) for key, value, source in effective.items() if source != "default"]


def error_of(root: Path, **kwargs) -> str:
    with pytest.raises(SettingsError) as raised:
        load_settings(cwd=root, **{"env": {}, **kwargs})
    return str(raised.value).replace(str(root), "<root>")


@pytest.mark.parametrize("text", ["", "# only a comment\n", "---\n"])
def test_an_empty_settings_file_is_no_settings_and_still_the_project_root(tmp_path, text):
    root = project_with(tmp_path, text)
    effective = load_settings(cwd=root, env={})
    assert effective.config_path == root / ".osiris.yaml"
    assert effective.project_root == root.resolve()
    assert changed(effective) == []
    assert effective.settings.validation.retry.max_attempts == 2


def test_the_file_is_found_in_a_parent_and_the_root_is_where_it_is(tmp_path):
    root = project_with(tmp_path, "llm:\n  max_tokens: 1000\n")
    deep = root / "a" / "b"
    deep.mkdir(parents=True)
    effective = load_settings(cwd=deep, env={})
    assert effective.project_root == root.resolve()
    assert changed(effective) == [("llm.max_tokens", 1000, str(root / ".osiris.yaml"))]
    assert effective.resolve_path("out/x.csv") == root.resolve() / "out/x.csv"
    assert effective.resolve_path("/abs/x.csv") == Path("/abs/x.csv")


def test_without_a_file_the_root_is_the_working_directory(tmp_path):
    root = project_with(tmp_path, None)
    effective = load_settings(cwd=root, env={})
    assert (effective.config_path, effective.project_root) == (None, root.resolve())
    assert effective.source("llm.model") == "default"


def test_each_layer_beats_the_one_before_and_names_itself(tmp_path):
    root = project_with(tmp_path, "llm:\n  max_tokens: 1000\n  timeout_seconds: 7\n")
    env = {"OSIRIS_LLM__MAX_TOKENS": "2000"}
    assert changed(load_settings(cwd=root, env=env)) == [
        ("llm.max_tokens", 2000, "env OSIRIS_LLM__MAX_TOKENS"),
        ("llm.timeout_seconds", 7, str(root / ".osiris.yaml")),
    ]
    with_cli = load_settings(cwd=root, env=env, cli={"llm": {"max_tokens": 3000}})
    assert changed(with_cli)[0] == ("llm.max_tokens", 3000, "cli")
    assert with_cli.to_dict()["llm.timeout_seconds"] == {"value": 7, "source": str(root / ".osiris.yaml")}


@pytest.mark.parametrize("text, message", [
    ("- a\n", "<root>/.osiris.yaml: expected a mapping of settings, got a list"),
    ("hello\n", "<root>/.osiris.yaml: expected a mapping of settings, got a single value ('hello')"),
    ("llm:\n  model: a\nllm:\n  model: b\n",
     "<root>/.osiris.yaml:3:1: invalid YAML: key 'llm' appears twice in the same mapping"),
    (b"\xff\xfe\x00", "<root>/.osiris.yaml: the settings file is not UTF-8 text"),
])
def test_an_unusable_settings_file_is_one_line_naming_it(tmp_path, text, message):
    assert error_of(project_with(tmp_path, text)) == message


def test_a_directory_named_like_the_settings_file_is_refused(tmp_path):
    root = project_with(tmp_path, None)
    (root / ".osiris.yaml").mkdir()
    assert error_of(root) == ("<root>/.osiris.yaml: is a directory, not a settings file; "
                              "remove it, or pass --config FILE")


def test_config_path_must_name_an_existing_file(tmp_path):
    root = project_with(tmp_path, "")
    assert error_of(root, config_path=root) == "--config <root>: is a directory, not a settings file"
    assert error_of(root, config_path=root / "nope.yaml") == "--config <root>/nope.yaml: settings file not found"


@pytest.mark.parametrize("kwargs, message", [
    ({"env": {"OSIRIS_VALIDATION__RETRY__MAX_ATTEMPTS": "9"}},
     "env OSIRIS_VALIDATION__RETRY__MAX_ATTEMPTS: validation.retry.max_attempts = 9 is not allowed; "
     "it must be a whole number from 0 to 5"),
    ({"cli": {"llm": {"modle": "x"}}}, "cli: unknown key 'llm.modle'; did you mean 'llm.model'?"),
    ({"cli": {"llm": {"zzzzzz": "x"}}},
     "cli: unknown key 'llm.zzzzzz'; known keys here: provider, model, base_url, max_tokens, timeout_seconds, "
     "request_deadline_seconds, api_retries, catalog_budget_tokens, max_session_tokens, max_cycle_tokens"),
    ({"cli": {"llm": {"max_tokens": "x", "timeout_seconds": "y"}}},
     "cli: llm.max_tokens = 'x' is not allowed; it must be a whole number from 1 to 128000 (and 1 more problem(s))"),
    ({"cli": {"validation": {"rules": [{}]}}},
     "cli: validation.rules[0].name is missing; give text (and 1 more problem(s))"),
])
def test_a_bad_value_is_one_line_with_its_source_and_what_is_allowed(tmp_path, kwargs, message):
    assert error_of(project_with(tmp_path, ""), **kwargs) == message


def test_the_environment_stays_out_of_the_settings_repr(tmp_path):
    effective = load_settings(cwd=project_with(tmp_path, ""), env={"ANTHROPIC_API_KEY": "sk-ant-repr-check-123456"})
    assert "sk-ant-repr-check-123456" not in repr(effective)


@pytest.mark.parametrize("message, plain", [
    ("Input should be a valid string", "a valid string"), ("Value error, bad port", "bad port"),
    ("Bad thing", "bad thing"), ("", ""),
])
def test_pydantic_messages_are_made_plain(message, plain):
    from osiris.settings.explain import _plain

    assert _plain(message) == plain


def test_config_show_json_is_strict_json_whatever_the_values(tmp_path):
    """JSON in an OSIRIS_* variable may hold NaN and Infinity; what config show prints stays strict
    JSON (null), lists stay lists, and timestamps in the file stay the text written."""
    import json

    project = project_with(tmp_path, "connections:\n  mysql:\n    default:\n      since: 2024-01-02 03:04:05\n")
    env = clean_env(OSIRIS_CONNECTIONS='{"rest": {"api": {"ratio": NaN, "cap": -Infinity, "hosts": ["a", [1.5, NaN]]}}}')
    done = run_osiris("config", "show", "--json", cwd=project, env=env)
    assert done.returncode == 0, done.stderr

    def refuse(constant: str) -> None:
        raise AssertionError(f"not strict JSON: {constant}")

    shown = json.loads(done.stdout, parse_constant=refuse)
    assert shown["connections.rest.api.ratio"]["value"] is None
    assert shown["connections.rest.api.cap"]["value"] is None
    assert shown["connections.rest.api.hosts"]["value"] == ["a", [1.5, None]]
    assert shown["connections.mysql.default.since"]["value"] == "2024-01-02 03:04:05"
