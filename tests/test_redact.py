"""The redactor (docs/sessions.md): what is masked, and what is deliberately kept."""

from __future__ import annotations

import pytest

from osiris.request import scrub_request
from osiris.secrets.redact import Redactor
from osiris.trust.references import connection_secrets


@pytest.mark.parametrize(
    "text, secret",
    [
        ("mysql://app:hunter2secret@db.internal:3306/shop", "hunter2secret"),
        ("postgresql+psycopg://u:p%40ss-word@h/db?sslmode=require", "p%40ss-word"),
        ("Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.abc.def", "eyJhbGciOiJIUzI1NiJ9.abc.def"),
        ("key sk-ant-api03-AbCdEfGhIjKlMnOp_qrst", "sk-ant-api03-AbCdEfGhIjKlMnOp_qrst"),
        ("openai sk-proj-AbCdEfGhIjKlMnOpQrStUv1234", "sk-proj-AbCdEfGhIjKlMnOpQrStUv1234"),
        ("aws AKIAIOSFODNN7EXAMPLE here", "AKIAIOSFODNN7EXAMPLE"),
        ("gh ghp_abcdefghijklmnopqrstuvwxyz0123456789", "ghp_abcdefghijklmnopqrstuvwxyz0123456789"),
        ("slack xoxb-1234567890-abcdefghij", "xoxb-1234567890-abcdefghij"),
        ("      password: s3cr3t-value", "s3cr3t-value"),
        ('{"api_key": "live-value-123"}', "live-value-123"),
        ("client_secret=topsecretvalue&x=1", "topsecretvalue"),
    ],
)
def test_secrets_in_text_are_masked(text, secret):
    redacted = Redactor().text(text)
    assert secret not in redacted and "***" in redacted


def test_known_values_are_masked_wherever_they_appear():
    redactor = Redactor(known_values=["Pl4nted-Value"])
    assert redactor.text("query: SELECT 'Pl4nted-Value' -- Pl4nted-Value") == "query: SELECT '***' -- ***"


@pytest.mark.parametrize(
    "line",
    [
        "auth_type: basic",
        "author: Jane Doe",
        "max_tokens: 4096",
        'password: "${MYSQL_PASSWORD}"',
        'connection: "@mysql.default"',
        "batch_size: 1000",
        "primary_key: id",
    ],
)
def test_non_secrets_and_references_are_kept(line):
    assert Redactor().text(line) == line


def test_data_masks_secret_keys_and_spec_secret_fields_but_keeps_figures():
    redactor = Redactor(secret_fields={"service_account_json"})
    data = {
        "password": "abc123",
        "service_account_json": "{...}",
        "auth_type": "basic",
        "token_usage": {"input": 10, "output": 5},
        "max_tokens": 4096,
        "nested": [{"token": "tok-value-1"}, {"dsn": "mysql://u:pw1234@h/db"}],
    }
    assert redactor.data(data) == {
        "password": "***",
        "service_account_json": "***",
        "auth_type": "basic",
        "token_usage": {"input": 10, "output": 5},
        "max_tokens": 4096,
        "nested": [{"token": "***"}, {"dsn": "mysql://u:***@h/db"}],
    }


def test_connection_secrets_resolve_env_references_and_literals():
    connections = {
        "mysql": {"default": {"host": "db", "password": "${MYSQL_PASSWORD}"}},
        "supabase": {"prod": {"url": "https://x.supabase.co", "service_role_key": "literal-key-9"}},
    }
    found = connection_secrets(connections, {"MYSQL_PASSWORD": "from-env-77"})
    assert sorted(found) == ["from-env-77", "literal-key-9"]


def test_scrubbing_a_request_says_what_was_removed():
    scrubbed = scrub_request("copy mysql://app:Sup3rPass@db/shop customers to csv", Redactor())
    assert "Sup3rPass" not in scrubbed.text and "mysql://app:***@db/shop" in scrubbed.text
    assert "password inside a connection URL" in scrubbed.notice()
    assert scrub_request("copy customers to csv", Redactor()).notice() is None


def test_values_seen_under_secret_keys_are_masked_everywhere_afterwards():
    redactor = Redactor()
    redactor.learn_from({"steps": [{"config": {"password": "inline-pw-123", "connection": "@mysql.default"}}]})
    assert redactor.text("pass_word: inline-pw-123") == "pass_word: ***"
    assert redactor.text('connection: "@mysql.default"') == 'connection: "@mysql.default"'


def test_paths_in_issue_lines_are_not_mistaken_for_assignments():
    line = "OML310 /steps/0/config/password: secret field 'password' is written inline | fix: use a connection"
    assert Redactor(secret_fields={"password"}).text(line) == line


def test_a_known_secret_in_a_key_is_masked_in_data():
    """Found by the session fuzz: an answer's YAML can carry a secret in a mapping key."""
    redactor = Redactor(known_values=["Hunter2-Planted"])

    shown = redactor.data({"steps": [{"config": {"pw Hunter2-Planted": 1}}], "note": "ok"})

    assert shown == {"steps": [{"config": {"pw ***": 1}}], "note": "ok"}
