"""Tier 3 for one step, pinned as whole issue lists (code, pointer, message, hint).

Written from bench/mutation.py's survivors of osiris/validate/step_config.py (issue 15): nested
secret pointers (`/headers/Authorization`), which required-field hint applies, coercions of secret
fields, and the hints for unknown components and modes.
"""

from __future__ import annotations

import json
from typing import Any

from osiris.explain import compact, friendly
from tests.validate_helpers import oml, step, validator

VALIDATOR = validator()
TOKEN = "Bearer abcdefgh123"
HOW_TO_CONNECT_REST = 'use connection: "@rest.crm" (configured aliases: crm)'
HOW_TO_CONNECT_MYSQL = 'use connection: "@mysql.default" (configured aliases: default)'
PATH_ALIAS = ("OML315", "/steps/0/config/path", "'path' is an alias of 'endpoint'; read as endpoint",
              "write endpoint instead of path")


def issues(*steps: dict[str, Any]) -> list[tuple[str, str, str, str]]:
    return [(i.code, i.path, i.message, i.hint) for i in VALIDATOR.validate(oml(*steps)).issues]


def rest(config: dict[str, Any]) -> dict[str, Any]:
    return step("r", "rest.extractor", "read", {"path": "/users", **config})


def test_a_nested_secret_pointer_is_oml310_at_its_own_path_and_not_an_override():
    found = issues(rest({"connection": "@rest.crm", "headers": {"Authorization": TOKEN, "Accept": "text/csv"}}))
    assert found == [
        PATH_ALIAS,
        ("OML310", "/steps/0/config/headers/Authorization",
         "secret field 'headers.Authorization' is written inline in the pipeline",
         "remove it from the step; the connection supplies it"),
    ]


def test_a_nested_secret_without_a_connection_says_where_secrets_come_from():
    found = issues(rest({"base_url": "https://crm.example.com", "headers": {"Authorization": TOKEN}}))
    assert found == [
        PATH_ALIAS,
        ("OML310", "/steps/0/config/headers/Authorization",
         "secret field 'headers.Authorization' is written inline in the pipeline",
         f"remove it from the step; secrets come from a connection: {HOW_TO_CONNECT_REST}, and remove base_url "
         "from the step as well: the connection supplies them"),
    ]


def test_the_inline_secret_never_reaches_what_is_shown():
    report = VALIDATOR.validate(oml(rest({"connection": "@rest.crm", "headers": {"Authorization": TOKEN}})))
    shown = json.dumps([i.to_dict() for i in report.issues]) + "".join(friendly(i) + compact(i) for i in report.issues)
    assert "abcdefgh123" not in shown


def test_headers_without_a_secret_entry_are_an_override_of_the_connection():
    found = issues(rest({"connection": "@rest.crm", "headers": {"Accept": "text/csv"}}))
    assert found == [
        PATH_ALIAS,
        ("OML314", "/steps/0/config/headers",
         "'headers' comes from the connection and should not be overridden in the step",
         "remove 'headers' from the step; change it in the connection settings instead"),
    ]


def test_required_field_hints_differ_for_secrets_connection_fields_and_plain_fields():
    found = issues(step("e", "mysql.extractor", "read", {"table": "t"}))
    assert found == [
        ("OML303", "/steps/0/config/database", "required field 'database' is missing for mysql.extractor",
         f"{HOW_TO_CONNECT_MYSQL}, which supplies database; or add database: <Database to connect to>"),
        ("OML303", "/steps/0/config/host", "required field 'host' is missing for mysql.extractor",
         f"{HOW_TO_CONNECT_MYSQL}, which supplies host; or add host: <MySQL server host name or IP address>"),
        ("OML303", "/steps/0/config/password", "required field 'password' is missing for mysql.extractor",
         f"password comes from a connection: {HOW_TO_CONNECT_MYSQL}"),
        ("OML303", "/steps/0/config/user", "required field 'user' is missing for mysql.extractor",
         f"{HOW_TO_CONNECT_MYSQL}, which supplies user; or add user: <MySQL user name>"),
    ]


def test_a_connection_supplies_the_required_fields():
    assert issues(step("e", "mysql.extractor", "read", {"connection": "@mysql.default", "table": "t"})) == []


def test_an_inline_secret_is_not_coerced_or_shown_but_other_fields_are_coerced():
    found = issues(step("e", "mysql.extractor", "read", {"host": "h", "database": "d", "user": "u",
                                                         "password": 12345, "table": "t", "port": "3306"}))
    assert found == [
        ("OML310", "/steps/0/config/password", "secret field 'password' is written inline in the pipeline",
         f"remove it from the step; secrets come from a connection: {HOW_TO_CONNECT_MYSQL}, and remove host, "
         "database, user from the step as well: the connection supplies them"),
        ("OML315", "/steps/0/config/port", "port: '3306' was read as 3306", "write port: 3306 next time"),
    ]


def test_unknown_fields_name_the_known_ones_and_the_closest():
    found = issues(step("e", "mysql.extractor", "read", {"connection": "@mysql.default", "table": "t", "tbl": "x"}))
    assert found == [
        ("OML304", "/steps/0/config/tbl", "unknown config field 'tbl' for mysql.extractor",
         "mysql.extractor config fields are: host, port, database, user, password, table, schema, query, "
         "columns, limit, offset, batch_size, incremental, pool_size, pool_recycle, echo (did you mean 'table'?)"),
    ]


def test_extension_fields_are_not_checked_at_any_level():
    assert issues(step("e", "filesystem.csv_extractor", "read", {"path": "a.csv", "x-note": {"a": 1}})) == []


def test_unknown_component_hints():
    assert issues(step("e", "mysql.extractr", "read", {})) == [
        ("OML301", "/steps/0/component", "unknown component 'mysql.extractr'", "use component: mysql.extractor")]
    assert issues(step("e", "filesystem.zzz", "bogus", {}))[-1][3] == (
        "use one of the filesystem components: filesystem.csv_extractor, filesystem.csv_writer")
    assert issues(step("e", "oracle.zzz", "read", {}))[-1][3] == (
        "there is no oracle component for mode read; the system may not be supported. Components for mode read: "
        "filesystem.csv_extractor, graphql.extractor, mysql.extractor, postgres.extractor, posthog.extractor, "
        "rest.extractor, supabase.extractor")
    legacy = issues({"id": "e", "type": "filesystem.csv_extractr", "mode": "read", "config": {"path": "a.csv"}})
    assert legacy[-1] == ("OML301", "/steps/0/type", "unknown component 'filesystem.csv_extractr'",
                          "use component: filesystem.csv_extractor")


def test_a_mode_the_component_lacks_names_the_family_component_that_has_it():
    found = issues(step("e", "mysql.extractor", "write", {"connection": "@mysql.default", "table": "t"}))
    assert found == [("OML302", "/steps/0/mode", "mysql.extractor does not support mode 'write'",
                      "use mode: read with mysql.extractor, or a component that does: mysql.writer")]


def test_a_missing_mode_names_the_only_mode_the_component_supports():
    found = issues({"id": "e", "component": "filesystem.csv_extractor", "config": {"path": "a.csv"}})
    assert found == [("OML208", "/steps/0/mode", "step 0 has no 'mode'",
                      "add mode: read (the only mode filesystem.csv_extractor supports)")]


def test_the_one_mode_hint_replaces_only_the_missing_mode_issue():
    no_mode = {"id": "e", "component": "filesystem.csv_extractor", "config": {"path": "a.csv"}}
    no_id = {"component": "filesystem.csv_writer", "mode": "write", "config": {"path": "b.csv"}}
    hints = [(code, path, hint) for code, path, _message, hint in issues(no_mode, no_id)]
    assert hints == [
        ("OML208", "/steps/0/mode", "add mode: read (the only mode filesystem.csv_extractor supports)"),
        ("OML208", "/steps/1/id", "add id: <unique-step-name>, e.g. id: step-2"),
    ]


def test_a_close_name_wins_even_when_the_family_has_several_components():
    assert issues(step("e", "mysql.writr", "bogus", {}))[-1][3] == "use component: mysql.writer"


def test_a_far_name_in_a_family_with_one_component_for_the_mode_gets_that_component():
    assert issues(step("e", "mysql.zzzzzzzzz", "read", {}))[-1][3] == "use component: mysql.extractor"
