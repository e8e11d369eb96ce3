"""Inline secrets are OML310 (issue 9, item 5): `osiris validate` on the pipelines the attack got through."""

from __future__ import annotations

import json

import pytest

from tests.inprocess import run_inprocess as run_osiris  # in-process: tests/inprocess.py

HEAD = """\
oml_version: "0.1.0"
name: inline-secrets
"""
STEPS = """\
steps:
  - id: get
    component: rest.extractor
    mode: read
    config:
      base_url: https://api.example.com/v1
{config}
  - id: write
    component: filesystem.csv_writer
    mode: write
    needs: [get]
    config:
      path: out.csv
"""


def pipeline(config: str, top: str = "") -> str:
    return HEAD + top + STEPS.format(config=config)


@pytest.mark.parametrize(
    "text, path, line",
    [
        (pipeline('      endpoint: /customers\n      headers: {authorization: "Bearer live-bearer-1"}'),
         "/steps/0/config/headers/authorization", 10),
        (pipeline("      endpoint: /customers\n      params: {status: active, token: live-token-1}"),
         "/steps/0/config/params/token", 10),
        (pipeline('      endpoint: "/customers?status=active&api_key=live-key-1"'), "/steps/0/config/endpoint", 9),
        (pipeline("      endpoint: /customers", top="password: live-password-1\n"), "/password", 3),
    ],
    ids=["header-name-in-lower-case", "token-in-a-free-form-map", "api-key-in-a-url", "top-level-password"],
)
def test_inline_secrets_are_oml310_with_the_value_masked(tmp_path, text, path, line):
    (tmp_path / "p.yaml").write_text(text)

    done = run_osiris("validate", "--json", "p.yaml", cwd=tmp_path)

    assert done.returncode == 1, done.stderr
    issues = json.loads(done.stdout)["files"][0]["issues"]
    [secret] = [issue for issue in issues if issue["code"] == "OML310"]
    assert (secret["path"], secret["line"], secret["value"]) == (path, line, "***")
    assert "live-" not in done.stdout


@pytest.mark.parametrize(
    "config",
    [
        '      endpoint: "/customers?token=${API_TOKEN}"',
        "      endpoint: /customers\n      params: {next_page_token: abc, key: id, sort_key: name}",
    ],
    ids=["reference-in-a-url", "names-that-only-look-secret"],
)
def test_references_and_look_alike_names_are_not_inline_secrets(tmp_path, config):
    (tmp_path / "p.yaml").write_text(pipeline(config))

    done = run_osiris("validate", "--json", "p.yaml", cwd=tmp_path)

    codes = [issue["code"] for issue in json.loads(done.stdout)["files"][0]["issues"]]
    assert "OML310" not in codes, done.stdout


def test_validate_masks_a_connection_secret_echoed_into_another_field(tmp_path):
    (tmp_path / ".osiris.yaml").write_text(
        "connections:\n  postgres:\n    default: {host: pg, database: dw, user: r, password: PgPw-echo-123}\n")
    (tmp_path / "p.yaml").write_text(HEAD + """\
steps:
  - id: get
    component: postgres.extractor
    mode: read
    config:
      connection: "@postgres.default"
      query: select 1
      port: PgPw-echo-123
  - id: write
    component: filesystem.csv_writer
    mode: write
    needs: [get]
    config:
      path: out.csv
""")

    text = run_osiris("validate", "p.yaml", cwd=tmp_path)
    as_json = run_osiris("validate", "--json", "p.yaml", cwd=tmp_path)

    assert "p.yaml:10:7 OML305 port must be a whole number, not '***'" in text.stdout
    assert "PgPw-echo-123" not in text.stdout + text.stderr + as_json.stdout + as_json.stderr
