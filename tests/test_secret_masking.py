"""The redactor's edges (docs/sessions.md), pinned as exact strings: what a mutation test showed untested.

Each case would leak a secret (or mask an ordinary value) if one comparison or constant in
osiris/secrets/redact.py changed (issue 15).
"""

from __future__ import annotations

import pytest

from osiris.secrets.redact import Redactor, is_reference
from osiris.trust.references import connection_secrets
from osiris.trust.references import resolve_connection

CLASSIC_OPENAI_KEY = "sk-" + "A1b2C3d4E5" * 4 + "12345678"  # sk- and 48 characters, no proj- part


def test_the_longest_known_secret_is_masked_first_so_no_tail_leaks():
    # Shortest first would turn "Secr3tTail99" into "***3tTail99".
    assert Redactor(known_values=["Secr", "Secr3tTail99"]).text("x Secr3tTail99 y") == "x *** y"
    assert Redactor(known_values=["Secr3tTail99", "Secr"]).text("Secr3tTail99 Secr") == "*** ***"


def test_values_learned_later_keep_the_longest_first_order():
    redactor = Redactor(known_values=["Secr"])
    redactor.add_known(["Secr3tTail99"])
    assert redactor.text("Secr3tTail99") == "***"


def test_known_secrets_shorter_than_four_characters_are_not_masked():
    assert Redactor(known_values=["abc", "abcd", None]).text("abc abcd") == "abc ***"  # type: ignore[list-item]


@pytest.mark.parametrize("text, expected", [
    ("redis://:hunter2pw@cache:6379/0", "redis://:***@cache:6379/0"),  # DSN with an empty user
    ("mysql://app:hunter2@db/shop", "mysql://app:***@db/shop"),
    ("key " + CLASSIC_OPENAI_KEY, "key ***"),  # classic OpenAI key
    ("Authorization: Bearer abcdefgh", "Authorization: ***"),  # a header's value is masked whole
    ("Authorization: Bearer abcdefg", "Authorization: ***"),
    ("sent Bearer abcdefgh here", "sent Bearer *** here"),
    ("sent Bearer abcdefg here", "sent Bearer abcdefg here"),  # 7 characters: not a token
    ("", ""),
])
def test_text_is_masked_exactly(text, expected):
    assert Redactor().text(text) == expected


@pytest.mark.parametrize("line, expected", [
    ('password: "abc123"', 'password: "***"'),
    ("password: 'abc123'", "password: '***'"),
    ("password: abc123   ", 'password: "***"   '),  # quoted: a bare *** would be a YAML alias
    ("password=abc123;x=1", "password=***;x=1"),
    ("password: abc123 # note", 'password: "***" # note'),
    ("password: null", "password: null"),
    ("password: ~", "password: ~"),
    ("password: ''", "password: ''"),
    ("password: |", "password: |"),
    ("password: >-", "password: >-"),
    ("password: {a: 1}", 'password: {a: "***"}'),  # a flow collection: its items, as YAML would
    ("password: [a]", 'password: ["***"]'),
    ("password: ***", "password: ***"),
])
def test_assignments_mask_the_value_and_keep_quotes_comments_and_empty_values(line, expected):
    assert Redactor().text(line) == expected


def test_data_keeps_empty_values_references_and_figures_and_scans_nested_strings():
    assert Redactor().data({
        "password": "", "token": "${X}", "secret": "@mysql.default", "n": 5, "ok": True, "none": None,
        "t": ("a", "password: p4ssw0rd"),
    }) == {
        "password": "", "token": "${X}", "secret": "@mysql.default", "n": 5, "ok": True, "none": None,
        "t": ["a", 'password: "***"'],
    }


def test_learning_skips_masks_and_references_and_walks_lists_and_tuples():
    redactor = Redactor()
    redactor.learn_from({"a": [{"password": "***"}, {"password": "${P}"}, {"password": "learned-1"}],
                         "b": ("x", {"token": "learned-2"}), "c": {"host": "not-a-secret"}})
    assert redactor.text("learned-1 learned-2 not-a-secret ${P}") == "*** *** not-a-secret ${P}"


def test_secret_field_names_from_specs_match_in_any_case_and_the_verdict_is_stable():
    redactor = Redactor(secret_fields={"MyField"})
    assert [redactor.is_secret_field("myfield") for _ in range(2)] == [True, True]
    assert [redactor.is_secret_field("host") for _ in range(2)] == [False, False]
    assert redactor.data({"MYFIELD": "v4lue"}) == {"MYFIELD": "***"}


def test_connection_secrets_use_spec_marked_fields_and_skip_empty_and_unset_values():
    connections = {"x": {"y": {"service_account_json": "sa-json-1", "password": "", "token": "${UNSET}",
                               "host": "h"}}}
    assert connection_secrets(connections, {}, secret_fields={"Service_Account_JSON"}) == ["sa-json-1"]
    assert connection_secrets(connections, {}) == []


@pytest.mark.parametrize("value, expected", [
    (" ${NAME} ", "v"), ("${UNSET}", "${UNSET}"), (5, 5), ("x${NAME}", "xv"), ({"h": ["${NAME}"]}, {"h": ["v"]}),
])
def test_the_one_resolver_resolves_references_anywhere_in_a_connection(value, expected):
    """Since issue 22 a reference inside a text or a nested value is resolved too (it was sent as
    written); an unset one stays as written for the redactor, which resolves what it can."""
    resolved = resolve_connection({"f": value}, {"NAME": "v"}, where="connections.x.y", strict=False)
    assert resolved.fields == {"f": expected}


@pytest.mark.parametrize("value, expected", [
    (' "${A}" ', True), ("@a.b", True), ("@a", False), ("${1A}", False), ("plain", False),
])
def test_is_reference(value, expected):
    assert is_reference(value) is expected
