"""The redactor on the shapes the attack of issue 9 leaked, and YAML that stays YAML once masked."""

from __future__ import annotations

import base64
from urllib.parse import quote

import pytest
import yaml

from osiris.secrets.redact import Redactor
from osiris.trust.references import connection_secrets
from osiris.settings.loader import EffectiveSettings
from osiris.settings.model import Settings

KNOWN = "PgPw-7x!Qz_93kd"


@pytest.mark.parametrize(
    "text, secret",
    [
        ('endpoint: "/customers?token=S3cretTok9"', "S3cretTok9"),
        ("GET https://api.example.com/v1/x?api_key=abcd12345&page=2", "abcd12345"),
        ("CREATE USER app IDENTIFIED BY 'Sql-Pw-0987';", "Sql-Pw-0987"),
        ("ALTER ROLE app WITH PASSWORD 'pg-role-pw-55'", "pg-role-pw-55"),
        ("SET PASSWORD FOR 'app'@'%' = 'set-pw-1234'", "set-pw-1234"),
        ("Proxy-Authorization: Basic dXNlcjpwcm94eXB3", "dXNlcjpwcm94eXB3"),
        ("Cookie: sessionid=cookie-val-42; csrftoken=csrf-val-77", "csrf-val-77"),
        ("the password is hunter2-typed.", "hunter2-typed"),
        ("my api key was zz-9911-key", "zz-9911-key"),
        ("password: ${MYSQL_PASSWORD}extra-tail", "extra-tail"),
        ('"password": "json-pw-1"', "json-pw-1"),
        ('{"password":"json-pw-2", "a": [', "json-pw-2"),
        ("'token': 'quoted-tok-1'", "quoted-tok-1"),
        ("  'api_key' : quoted-key-plain\nbad: [", "quoted-key-plain"),
        ('"password": "esc\\"aped-pw-1", "b": {', "aped-pw-1"),
        ("'secret': 'it''s-sec-1', [", "s-sec-1"),
        ('the "password" is prose-pw-1', "prose-pw-1"),
        ("the 'api key' was 'prose-pw-2' [", "prose-pw-2"),
        ('my password is "esc\\"aped-prose-3"', "aped-prose-3"),
        ("password: &pw !!str anchored-pw-1, [", "anchored-pw-1"),
        ("x: 1\nbad: [\n!!python/name:os" + KNOWN + ".system: 1", KNOWN),
        ("a: &x" + KNOWN + " v\nb: *x" + KNOWN + "\n", KNOWN),  # parses: the anchor is in no scalar
        ("%TAG !e! tag:" + KNOWN + ",2000:\n---\na: !e!x 1\n", KNOWN),
        ("password: [flow-pw-1, b]\nbad: [", "flow-pw-1"),
        ('config: {"token": {k: flow-tok-2}}, x: [', "flow-tok-2"),
    ],
)
def test_shapes_the_attack_leaked_are_masked(text, secret):
    redacted = Redactor(known_values=[KNOWN]).text(text)
    assert secret not in redacted and "***" in redacted


def test_quoted_keys_are_masked_in_place_and_the_text_around_kept():
    """Before: SQL's `PASSWORD "..."` read `": "` as the password, leaving `"password"***"x"`."""
    redactor = Redactor()
    assert redactor.text('{"password":"pw-1", "user": "app", "steps": [') == '{"password":"***", "user": "app", "steps": ['
    assert redactor.text("'token': 'it''s-tok', [") == "'token': '***', ["
    assert redactor.text('"auth_token": "a\\"b\\"c" }}') == '"auth_token": "***" }}'
    assert redactor.text('the "password" is "p w", ok') == 'the "password" is "***", ok'
    assert redactor.text('"note": "the \\"password\\" is pw-2."') == '"note": "the \\"password\\" is ***."'


@pytest.mark.parametrize(
    "text",
    [
        "LLM service: the API key was rejected (401)",
        "settings_changed key validation.retry.max_attempts",
        "the token was expired",
        'password: "${MYSQL_PASSWORD}"',
        "key: validation.retry.max_attempts",
        "primary_key: id",
        'the "password" is "wrong"',
        '{"tokens":5, "key": "password", "passwords": 3}',
        "ALTER ROLE app WITH PASSWORD '***'",
        "password: &a ${MYSQL_PASSWORD}",
        "password: &a *b",
        "password: [${MYSQL_PASSWORD}, @mysql.default]",
        "tags: [a, b], config: {x: [1]}",
        "HTTP 401 Unauthorized from GET https://api.example.com/bearer answered with a challenge",
    ],
)
def test_words_around_secrets_are_not_secrets(text):
    assert Redactor().text(text) == text


def test_the_key_of_a_setting_is_not_a_secret_but_its_secret_value_is():
    data = {"key": "validation.retry.max_attempts", "value": 3, "password": 98765432, "pin": {"token": 123456}}
    assert Redactor().data(data) == {"key": "validation.retry.max_attempts", "value": 3,
                                     "password": "***", "pin": {"token": "***"}}


def test_a_known_secret_is_masked_also_base64_and_url_encoded():
    redactor = Redactor(known_values=[KNOWN])
    basic = base64.b64encode(f"app:{KNOWN}".encode()).decode()
    for form in (KNOWN, base64.b64encode(KNOWN.encode()).decode(), quote(KNOWN, safe=""),
                 base64.urlsafe_b64encode(KNOWN.encode()).decode().rstrip("=")):
        assert KNOWN not in redactor.text(f"value {form} end") and form not in redactor.text(f"value {form} end")
    inside = redactor.text(f"Authorization-ish blob {basic}")
    assert basic not in inside  # the secret's part of a longer base64 text is masked too


def test_numbers_are_secrets_under_secret_names_and_as_known_values():
    connections = {"mysql": {"default": {"host": "db", "password": 98765432}}}
    assert connection_secrets(connections, {}) == ["98765432"]
    redactor = Redactor()
    redactor.learn_from({"steps": [{"config": {"password": 55554444}}]})
    assert redactor.text("port must be a whole number, not 55554444") == "port must be a whole number, not ***"


def test_a_number_that_is_a_known_secret_is_masked_under_any_key_but_booleans_never():
    """Before: `Redactor.data` kept every number outside secret keys, the known ones included."""
    redactor = Redactor(known_values=[98765432, "24681357", "True"])
    data = {"batch_size": 98765432, "rows": [24681357.0, 24681357.5], "port": 5432, "echo": True,
            "limit": float("inf"), "big": 10**5000}
    assert redactor.data(data) == {**data, "batch_size": "***", "rows": ["***", 24681357.5]}
    redactor.learn_from({"password": 10**5000, "token": float("inf")})  # no text: nothing learnt, no crash
    assert redactor.text("batch 98765432 of 24681357") == "batch *** of ***"


def test_config_show_and_session_json_mask_a_numeric_password():
    settings = Settings(connections={"mysql": {"default": {"host": "db", "password": 98765432}}})
    shown = EffectiveSettings(settings, {}, project_root=__import__("pathlib").Path("."))
    assert shown.to_dict()["connections.mysql.default.password"]["value"] == "***"


LEAKY_PIPELINE = f"""\
oml_version: "0.1.0"
name: leaky  # password: comment-pw-1
steps:
  - id: get
    component: rest.extractor
    mode: read
    config:
      base_url: https://api.example.com
      endpoint: "/customers?token=url-tok-1&page=1"
      port: {KNOWN}
      password: >
        folded-pw-1
        folded-pw-2
      auth_token: |-
        literal-tok-1
      token: 'it''s-single-1'
      pin: 98765432
      headers: {{Cookie: "sid=ck-1; x=ck-2", authorization: "Bearer bearer-tok-123"}}
      query: "CREATE USER u IDENTIFIED BY 'sql-pw-1'"
      other: &pw anchored-pw-1
      client_secret: *pw
      nested:
        - {{api_key: list-key-1}}
"""
PLANTED = ["comment-pw-1", "url-tok-1", KNOWN, "folded-pw-1", "folded-pw-2", "literal-tok-1", "single-1",
           "98765432", "ck-1", "ck-2", "bearer-tok-123", "sql-pw-1", "list-key-1", "anchored-pw-1"]


def _shape(node):
    if isinstance(node, dict):
        return {key: _shape(value) for key, value in node.items()}
    if isinstance(node, list):
        return [_shape(item) for item in node]
    return "scalar"


def test_a_redacted_pipeline_is_still_yaml_with_the_same_shape_and_lines():
    redacted = Redactor(known_values=[KNOWN]).text(LEAKY_PIPELINE)
    for secret in PLANTED:
        assert secret not in redacted, secret
    assert _shape(yaml.safe_load(redacted)) == _shape(yaml.safe_load(LEAKY_PIPELINE))
    assert len(redacted.splitlines()) == len(LEAKY_PIPELINE.splitlines())
    assert "      password: >\n        ***\n        ***\n" in redacted  # a masked block keeps its lines
    assert 'endpoint: "/customers?token=***&page=1"' in redacted


def test_a_fenced_answer_stays_yaml_and_an_unparsable_one_is_masked_by_shape():
    redactor = Redactor(known_values=[KNOWN])
    answer = f"Here it is:\n```yaml\n{LEAKY_PIPELINE}```\nDone."
    redacted = redactor.text(answer)
    body = redacted.split("```yaml\n", 1)[1].split("```", 1)[0]
    assert _shape(yaml.safe_load(body)) == _shape(yaml.safe_load(LEAKY_PIPELINE))
    broken = f"```yaml\n{LEAKY_PIPELINE}  bad: [unclosed\n```"
    masked = redactor.text(broken)
    for secret in [s for s in PLANTED if s != "anchored-pw-1"]:  # aliases need the parse that failed
        assert secret not in masked, secret


def test_thousands_of_nested_fences_are_redacted_in_one_pass():
    """Before: `Redactor.text` called itself once per fence inside a fence: RecursionError at ~1,000."""
    redactor = Redactor(known_values=[KNOWN])
    stutter = "```yaml\n" * 20_000 + f"password: fence-pw-1\nport: {KNOWN}\n```\nDone."
    redacted = redactor.text(stutter)
    assert redacted == "```yaml\n" * 20_000 + 'password: "***"\nport: "***"\n```\nDone.'  # the body stays YAML
    nested = "```\n" + "```yaml\ntext\n" * 20_000 + "password: fence-pw-2\n```\n"
    assert redactor.text(nested) == nested.replace("fence-pw-2", '"***"')
    assert redactor.text("```\n```\npassword: pw-3\n") == '```\n```\npassword: "***"\n'  # an empty block


def test_hostile_text_is_redacted_completely():
    """Long runs of what each pattern looks for (bench/redact.py measures the time it takes)."""
    redactor = Redactor(known_values=[KNOWN])
    for hostile in ("a: " * 20_000, "password is " * 10_000, "?token=" * 10_000, "'" * 50_000,
                    "IDENTIFIED BY " * 5_000, "```\n" * 5_000, "password: |\n" * 5_000, '"\\' * 20_000,
                    '"a":' * 20_000, '"password" is ' * 5_000, "'token' = " * 8_000, '\\"pin\\" was ' * 5_000):
        assert isinstance(redactor.text(hostile + KNOWN), str)
        assert KNOWN not in redactor.text(hostile + KNOWN)
