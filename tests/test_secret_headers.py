"""Which headers are secrets (osiris.secrets.names.is_secret_header, issue 24): a graphql step's
`headers: {X-Custom: value}` is valid, as in public Osiris; a header whose name carries a secret is
OML310; and the redactor masks exactly those headers, in data, in YAML and in what it learns."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from osiris.secrets.names import is_secret_header
from osiris.secrets.redact import Redactor
from osiris.trust.redactor import all_secret_fields
from tests.validate_helpers import oml, registry, run_cli, step, validator

SECRET_NAMES = ["Authorization", "authorization", "Proxy-Authorization", "Cookie", "Set-Cookie", "X-API-Key",
                "x-api-key", "X-Auth-Token", "Private-Token", "X-Client-Secret", "apikey", "X-Access-Key"]
PLAIN_NAMES = ["X-Custom", "Accept", "Content-Type", "X-Request-Id", "User-Agent", "X-Tenant"]


def graphql(headers: dict, connected: bool = False) -> dict:
    config = {"query": "{ users { id } }", "headers": headers}
    config.update({"connection": "@graphql.github"} if connected else {"endpoint": "https://api.example.com/graphql"})
    return step("users", "graphql.extractor", "read", config)


@pytest.mark.parametrize("name", SECRET_NAMES)
def test_headers_whose_names_carry_secrets_are_secret(name):
    assert is_secret_header(name)


@pytest.mark.parametrize("name", PLAIN_NAMES)
def test_other_headers_are_not(name):
    assert not is_secret_header(name)


def test_a_graphql_step_with_a_custom_header_is_valid():
    report = validator().validate(oml(graphql({"X-Custom": "value", "Accept": "application/json"})))
    assert report.issues == []


def test_with_a_connection_a_custom_header_is_only_the_override_warning_of_headers():
    report = validator().validate(oml(graphql({"X-Custom": "value"}, connected=True)))
    assert [(i.code, i.severity, i.path) for i in report.issues] == [("OML314", "warning", "/steps/0/config/headers")]


@pytest.mark.parametrize("name", ["Authorization", "X-API-Key", "Cookie", "X-Auth-Token"])
def test_a_secret_header_written_inline_is_oml310_at_its_own_path(name):
    report = validator().validate(oml(graphql({"X-Custom": "value", name: "s3cr3t-header-value"})))
    assert [(i.code, i.path, i.message, i.value) for i in report.issues] == [
        ("OML310", f"/steps/0/config/headers/{name}", f"secret field 'headers.{name}' is written inline in the pipeline",
         "***")]


def test_a_secret_header_naming_an_env_variable_is_not_inline():
    """Not OML310: it holds no secret. Since issue 22 a `${...}` in a step is OML316 (a pipeline may
    not read environment variables); the connection names it instead."""
    issues = validator().validate(oml(graphql({"Authorization": "${GITHUB_TOKEN}"}))).issues
    assert [(i.code, i.path) for i in issues] == [("OML316", "/steps/0/config/headers/Authorization")]


def test_the_redactor_masks_the_same_headers_in_data_and_in_yaml():
    redactor = Redactor(secret_fields=all_secret_fields(registry()))
    headers = {"X-Custom": "keep-me", "Authorization": "Bearer tok-123456", "X-API-Key": "key-123456"}
    assert redactor.data({"headers": headers}) == {
        "headers": {"X-Custom": "keep-me", "Authorization": "***", "X-API-Key": "***"}}
    text = redactor.text(yaml.safe_dump({"headers": headers}, sort_keys=False))
    assert text.splitlines() == ["headers:", "  X-Custom: keep-me", '  Authorization: "***"', '  X-API-Key: "***"']


def test_what_the_redactor_learns_from_a_pipeline_is_its_secret_headers_only():
    pipeline = yaml.safe_load(oml(graphql({"X-Custom": "keep-me-please", "X-API-Key": "learnt-key-98765"})))
    paths = registry().secret_paths(pipeline)
    assert "/steps/0/config/headers/X-API-Key" in paths and "/steps/0/config/headers" not in paths
    redactor = Redactor()
    redactor.learn_from(pipeline, paths)
    assert redactor.text("sent keep-me-please with learnt-key-98765") == "sent keep-me-please with ***"


def test_osiris_validate_accepts_it(tmp_path: Path):
    (tmp_path / "p.yaml").write_text(oml(graphql({"X-Custom": "value"})))
    result = run_cli("validate", "p.yaml", cwd=tmp_path)
    assert result.returncode == 0, result.stdout
