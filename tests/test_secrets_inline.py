"""Inline secrets are OML310 (issue 9, item 5): `osiris validate` on the pipelines the attack got through,
and secrets in the free-form maps no other check reads (`metadata`, `x-*` extensions)."""

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
{step}    config:
      base_url: https://api.example.com/v1
{config}
  - id: write
    component: filesystem.csv_writer
    mode: write
    needs: [get]
    config:
      path: out.csv
"""


def pipeline(config: str = "      endpoint: /customers", top: str = "", step: str = "") -> str:
    return HEAD + top + STEPS.format(config=config, step=step)


@pytest.mark.parametrize(
    "text, path, line",
    [
        (pipeline('      endpoint: /customers\n      headers: {authorization: "Bearer live-bearer-1"}'),
         "/steps/0/config/headers/authorization", 10),
        (pipeline("      endpoint: /customers\n      params: {status: active, token: live-token-1}"),
         "/steps/0/config/params/token", 10),
        (pipeline('      endpoint: "/customers?status=active&api_key=live-key-1"'), "/steps/0/config/endpoint", 9),
        (pipeline("      endpoint: /customers", top="password: live-password-1\n"), "/password", 3),
        (pipeline("      endpoint: /customers\n      x-token: live-token-2"), "/steps/0/config/x-token", 10),
    ],
    ids=["header-name-in-lower-case", "token-in-a-free-form-map", "api-key-in-a-url", "top-level-password",
         "secret-named-extension-in-config"],
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


FREE_FORM_HINT = ("    hint: remove it; a pipeline names a secret, never holds it: use a connection reference "
                  '(connection: "@family.alias" in a step\'s config) or a "${ENV_VAR}" reference')
FREE_FORM_SECRETS = {
    "password-in-metadata": (pipeline(top="metadata:\n  owner: data-team\n  password: live-12\n"),
                             "p.yaml:5:3 OML310 secret field 'metadata.password' is written inline in the pipeline"),
    "password-in-an-extension": (pipeline(top="x-notes: {password: live-notes-1}\n"),
                                 "p.yaml:3:11 OML310 secret field 'x-notes.password' is written inline in the pipeline"),
    "token-deep-in-metadata": (
        pipeline(top="metadata:\n  source:\n    auth: [{kind: bearer, token: live-deep-1}]\n"),
        "p.yaml:5:27 OML310 secret field 'metadata.source.auth.0.token' is written inline in the pipeline"),
    "secret-named-extension": (pipeline(top="x-api-key: live-ext-1\n"),
                               "p.yaml:3:1 OML310 secret field 'x-api-key' is written inline in the pipeline"),
    "token-in-a-step-extension": (pipeline(step="    x-foo: {token: live-step-1}\n"),
                                  "p.yaml:7:13 OML310 secret field 'x-foo.token' is written inline in the pipeline"),
    "api-key-in-a-metadata-url": (pipeline(top='metadata: {docs: "https://x.example/y?api_key=live-url-1"}\n'),
                                  "p.yaml:3:12 OML310 secret field 'api_key' is written inline in the pipeline"),
}


@pytest.mark.parametrize("name", list(FREE_FORM_SECRETS), ids=list(FREE_FORM_SECRETS))
def test_secrets_in_metadata_and_extensions_are_oml310(tmp_path, name):
    """docs/oml.md keeps secrets out of a pipeline; `x-*` keys are otherwise ignored by the checks."""
    text, line = FREE_FORM_SECRETS[name]
    (tmp_path / "p.yaml").write_text(text)

    done = run_osiris("validate", "p.yaml", cwd=tmp_path)

    assert done.returncode == 1, done.stdout + done.stderr
    assert done.stdout.splitlines()[:3] == [line, FREE_FORM_HINT, "p.yaml: invalid (1 error)"]
    assert "live-" not in done.stdout + done.stderr


def test_a_secret_in_metadata_is_masked_in_the_json_report(tmp_path):
    (tmp_path / "p.yaml").write_text(pipeline(top="metadata:\n  owner: data-team\n  password: live-12\n"))

    done = run_osiris("validate", "--json", "p.yaml", cwd=tmp_path)

    assert done.returncode == 1, done.stderr
    [issue] = json.loads(done.stdout)["files"][0]["issues"]
    assert {k: issue[k] for k in ("code", "severity", "path", "line", "column", "value")} == {
        "code": "OML310", "severity": "error", "path": "/metadata/password", "line": 5, "column": 3, "value": "***"}
    assert issue["hint"] == FREE_FORM_HINT.removeprefix("    hint: ")
    assert "live-12" not in done.stdout


def test_references_and_plain_keys_in_metadata_and_extensions_are_not_secrets(tmp_path):
    (tmp_path / "p.yaml").write_text(pipeline(
        top='metadata: {owner: data-team, password: "${DOCS_PASSWORD}", next_page_token: abc}\n'
            'x-notes: {connection_token: "@rest.default", primary_key: id}\n',
        step="    x-foo: {sort_key: name}\n"))

    done = run_osiris("validate", "p.yaml", cwd=tmp_path)

    assert (done.returncode, done.stdout) == (0, "p.yaml: valid\n")
