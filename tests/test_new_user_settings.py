"""Issue 11 items 2-5, 8, 10, 12, 13 and 15: settings, auth, validate and sessions as a new user
meets them. The real program in a subprocess; each test asserts the exit code and the exact line."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from tests.conftest import TEST_API_KEY, cli_env, session_dirs
from tests.engine_samples import VALID, fenced
from tests.fake_anthropic import Reply
from tests.conftest import osiris_here as run_osiris  # in-process: tests/inprocess.py


def settings_error(tmp_path: Path, text: str | None = None, **env: str):
    if text is not None:
        (tmp_path / ".osiris.yaml").write_text(text)
    done = run_osiris("config", "show", cwd=tmp_path, env=cli_env(**env))
    return done.returncode, done.stderr


def test_a_bare_components_path_in_the_environment_is_one_folder(tmp_path: Path):
    (tmp_path / "extra").mkdir()

    done = run_osiris("config", "show", "--json", cwd=tmp_path, env=cli_env(OSIRIS_COMPONENTS__PATHS="extra"))

    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["components.paths"] == {
        "value": ["extra"], "source": "env OSIRIS_COMPONENTS__PATHS"}


def test_rules_that_are_not_json_say_a_json_list_is_expected_with_an_example(tmp_path: Path):
    assert settings_error(tmp_path, OSIRIS_VALIDATION__RULES="notjson") == (2, (
        "osiris: error: env OSIRIS_VALIDATION__RULES: validation.rules must be a JSON list, e.g. "
        "OSIRIS_VALIDATION__RULES='[{\"name\": \"csv-output\", \"expr\": \"...\", \"level\": \"warning\"}]'\n"))


def test_a_section_given_a_number_is_described_in_our_words(tmp_path: Path):
    code, line = settings_error(tmp_path, "llm: 5\n")
    assert (code, line) == (2, f"osiris: error: {tmp_path / '.osiris.yaml'}: llm = 5 is not allowed; it must be "
                               "a section of settings, with keys such as provider, model, base_url\n")


def test_a_rule_level_lists_the_allowed_levels(tmp_path: Path):
    code, line = settings_error(tmp_path, "validation:\n  rules:\n    - {name: a, expr: 'True', level: fatal}\n")
    assert (code, line) == (2, f"osiris: error: {tmp_path / '.osiris.yaml'}: validation.rules[0].level = 'fatal' "
                               "is not allowed; it must be one of: error, warning\n")


def test_booleans_are_shown_as_written(tmp_path: Path):
    code, line = settings_error(tmp_path, "validation:\n  retry:\n    max_attempts: true\n")
    assert (code, line) == (2, f"osiris: error: {tmp_path / '.osiris.yaml'}: validation.retry.max_attempts = true "
                               "is not allowed; it must be a whole number from 0 to 5\n")


def test_a_bad_rule_expression_names_the_file(tmp_path: Path):
    code, line = settings_error(tmp_path, "validation:\n  rules:\n    - {name: a, expr: 'foo('}\n")
    assert (code, line) == (2, f"osiris: error: {tmp_path / '.osiris.yaml'}: validation.rules 'a' expr: "
                               "not a valid expression ('(' was never closed): foo(\n")


def test_duplicate_keys_in_the_settings_file_are_rejected_with_line_and_column(tmp_path: Path):
    code, line = settings_error(tmp_path, "llm:\n  model: a\nllm:\n  model: b\n")
    assert (code, line) == (2, f"osiris: error: {tmp_path / '.osiris.yaml'}:3:1: invalid YAML: "
                               "key 'llm' appears twice in the same mapping\n")


def test_base_url_must_be_an_http_url(tmp_path: Path):
    code, line = settings_error(tmp_path, "llm:\n  base_url: notaurl\n")
    assert (code, line) == (2, f"osiris: error: {tmp_path / '.osiris.yaml'}: llm.base_url = 'notaurl' is not "
                               "allowed; it must be an http:// or https:// URL, or null for the SDK's default\n")


def test_a_missing_components_path_is_a_warning(tmp_path: Path):
    (tmp_path / ".osiris.yaml").write_text("components:\n  paths: [nope]\n")

    done = run_osiris("components", "list", cwd=tmp_path, env=cli_env())

    assert done.returncode == 0
    assert done.stderr.splitlines()[0] == (f"osiris: warning: components.paths entry 'nope' (from "
                                           f"{tmp_path / '.osiris.yaml'}) is not a directory; it is skipped")


def test_a_directory_named_like_the_settings_file_is_an_error(tmp_path: Path):
    (tmp_path / ".osiris.yaml").mkdir()
    assert settings_error(tmp_path) == (2, f"osiris: error: {tmp_path / '.osiris.yaml'}: is a directory, not a "
                                           "settings file; remove it, or pass --config FILE\n")


@pytest.mark.parametrize("command", [("sessions", "list"), ("components", "list"), ("sessions", "show", "last"),
                                     ("components", "validate"), ("config", "show")])
def test_config_is_accepted_after_the_subcommand_and_its_action(tmp_path: Path, command):
    other = tmp_path / "other"
    other.mkdir()
    (other / "settings.yaml").write_text("sessions:\n  dir: elsewhere\n")
    (other / "elsewhere" / "20260101-000000-abcdef").mkdir(parents=True)
    (other / "elsewhere" / "20260101-000000-abcdef" / "session.json").write_text(
        json.dumps({"id": "20260101-000000-abcdef", "status": "valid"}))

    done = run_osiris(*command, "--config", str(other / "settings.yaml"), cwd=tmp_path, env=cli_env())

    assert done.returncode == 0, done.stderr
    if command[0] == "sessions":
        assert "20260101-000000-abcdef" in done.stdout


def test_auth_login_says_there_is_no_keyring_before_asking_for_the_key(tmp_path: Path):
    pexpect = pytest.importorskip("pexpect")
    child = pexpect.spawn(sys.executable, ["-m", "osiris", "auth", "login"], cwd=str(tmp_path),
                          env=cli_env(), encoding="utf-8", timeout=30)
    child.expect(pexpect.EOF)
    child.close()

    assert "input hidden" not in child.before and child.exitstatus == 2
    assert child.before.strip() == ("osiris: error: no usable system keyring on this machine; "
                                    "set the key in the environment instead: export ANTHROPIC_API_KEY=...")


def test_auth_status_does_not_recommend_login_without_a_keyring(tmp_path: Path):
    done = run_osiris("auth", "status", cwd=tmp_path, env=cli_env())

    assert (done.returncode, done.stderr) == (3, (
        "No Anthropic API key: set ANTHROPIC_API_KEY (this machine has no usable system keyring, so "
        "`osiris auth login` cannot keep one); `--provider demo` works offline without a key.\n"))


def test_validate_reports_every_file_and_exits_with_the_worst_code(project):
    (project / "good.yaml").write_text(VALID)
    (project / "bad.yaml").write_text(VALID.replace("mode: read", "mode: extract", 1))
    (project / "adir").mkdir()

    text = run_osiris("validate", "bad.yaml", "adir", "good.yaml", cwd=project, env=cli_env())
    data = run_osiris("validate", "--json", "bad.yaml", "adir", "good.yaml", cwd=project, env=cli_env())

    assert text.returncode == 2 and data.returncode == 2
    assert text.stderr == "osiris: error: cannot read adir: it is a directory\n"
    assert [line for line in text.stdout.splitlines() if not line.startswith(" ")][-3:-1] == [
        "bad.yaml: invalid (1 error)", "adir: unreadable"]
    assert text.stdout.splitlines()[-1] == "good.yaml: valid"
    files = json.loads(data.stdout)["files"]
    assert [(f["path"], f["valid"], f["error"]) for f in files] == [
        ("bad.yaml", False, None), ("adir", False, "cannot read adir: it is a directory"), ("good.yaml", True, None)]


def test_json_issues_carry_the_offending_value_masked_when_secret(project):
    bad = VALID.replace("mode: read", "mode: extract", 1)
    (project / "bad.yaml").write_text(bad)

    done = run_osiris("validate", "--json", "bad.yaml", cwd=project, env=cli_env())

    [issue] = json.loads(done.stdout)["files"][0]["issues"]
    assert (issue["code"], issue["value"]) == ("OML212", "extract")


def test_an_empty_file_is_described_in_file_words(tmp_path: Path):
    (tmp_path / "empty.yaml").write_text("")

    done = run_osiris("validate", "empty.yaml", cwd=tmp_path, env=cli_env())

    assert done.returncode == 1
    assert done.stdout.splitlines() == [
        "empty.yaml OML102 the file is empty",
        '    hint: start the file with oml_version: "0.1.0" and describe one pipeline',
        "empty.yaml: invalid (1 error)",
    ]


def test_token_totals_are_one_definition_in_list_and_show(project, fake_api):
    fake_api.add(Reply(fenced(VALID), input_tokens=2270, output_tokens=400, cache_read=1600, cache_write=1600))
    assert run_osiris("generate", "copy customers", cwd=project).returncode == 0
    [session] = session_dirs(project)

    listed = run_osiris("sessions", "list", cwd=project, env=cli_env(ANTHROPIC_API_KEY=TEST_API_KEY))
    shown = run_osiris("sessions", "show", "last", cwd=project, env=cli_env())

    header, row = listed.stdout.splitlines()[:2]
    assert header.endswith("TOK IN  TOK OUT  CACHE READ  CACHE WRITE")
    assert row.split()[-4:] == ["2270", "400", "1600", "1600"]
    assert "tokens: 2,270 in, 400 out, 1,600 cache read, 1,600 cache write;" in shown.stdout
    assert session.name in row
