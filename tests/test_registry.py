"""The registry: built-in specs, extra directories, broken specs reported and skipped."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from osiris.registry import builtin_components_dir, load_registry
from osiris.settings import load_settings
from osiris.validate import Validator, load_validator
from tests.validate_helpers import example_specs_ok, oml, step

REQUIRED_COMPONENTS = {"mysql.extractor", "mysql.writer", "postgres.extractor", "postgres.writer",
                       "supabase.extractor", "supabase.writer", "filesystem.csv_extractor",
                       "filesystem.csv_writer", "duckdb.processor", "graphql.extractor", "rest.extractor"}

# Written in the style of a public Osiris spec: vendor extensions, redaction, limits, x-runtime.
PUBLIC_STYLE_SPEC = """
name: acme.extractor
version: 1.2.0
title: Acme Extractor
modes: [extract, discover]
capabilities: {discover: true, streaming: false}
configSchema:
  type: object
  properties:
    host: {type: string}
    password: {type: string}
    table: {type: string, minLength: 1}
    page_size: {type: integer, minimum: 10, maximum: 500, default: 100}
  required: [host, password, table]
  additionalProperties: false
secrets: [/password]
x-secret: [/password, /resolved_connection/password]
x-connection-fields:
  - host
  - {name: password, override: forbidden}
redaction: {strategy: mask, mask: "****", extras: [/host]}
loggingPolicy: {sensitivePaths: [/password], metricsToCapture: [rows_read]}
limits: {maxRows: 1000, rateLimit: {requests: 10, period: second}}
compatibility: {requires: ["python>=3.10"], platforms: [linux]}
llmHints:
  inputAliases: {table: [table_name]}
  promptGuidance: Use acme.extractor.
  yamlSnippets: ["component: acme.extractor"]
  commonPatterns: [{pattern: full, description: everything}]
examples:
  - title: One table
    config: {connection: "@acme.main", table: items}
    notes: reads items
x-runtime:
  driver: acme.drivers.Extractor
  requirements: {imports: [requests], packages: [requests]}
"""


def write_spec(directory: Path, name: str, text: str) -> Path:
    (directory / name).mkdir(parents=True, exist_ok=True)
    path = directory / name / "spec.yaml"
    path.write_text(text)
    return path


def test_builtins_pass_the_meta_schema_and_the_json_schema_self_check():
    registry = load_registry(check_builtins=True)
    assert set(registry.names()) >= REQUIRED_COMPONENTS
    assert registry.problems == []


def test_every_spec_example_validates_as_a_step():
    assert example_specs_ok() == []


def test_every_builtin_spec_is_complete():
    for spec in load_registry().components.values():
        assert spec.title and spec.description and spec.examples, spec.name
        assert spec.llm_hints.prompt_guidance, spec.name
        assert spec.config_schema.get("additionalProperties") is False, spec.name
        for field in spec.connection_fields:
            assert field in spec.properties, (spec.name, field)
        for pointer in spec.secret_pointers:
            assert pointer.split("/")[1] in spec.properties, (spec.name, pointer)


def test_a_public_style_spec_loads_unchanged(tmp_path):
    write_spec(tmp_path, "acme.extractor", PUBLIC_STYLE_SPEC)
    registry = load_registry([tmp_path])
    assert registry.problems == []
    spec = registry.get("acme.extractor")
    assert spec.family == "acme" and spec.connection_fields == {"host": "allowed", "password": "forbidden"}
    assert registry.secret_fields("acme.extractor") == {"/password", "/resolved_connection/password"}
    text = oml(step("a", "acme.extractor", "read", {"connection": "@acme.main", "table_name": "t"}))
    report = Validator(registry, {"acme": {"main": {"host": "h"}}}).validate(text)
    assert report.valid and [i.code for i in report.issues] == ["OML315"]


@pytest.mark.parametrize("text, reason", [
    ("name: broken.one\nversion: 1.0.0\n", "meta-schema"),
    ("name: broken.two\n  version: [", "cannot be read"),
    ("- a list\n", "not a YAML mapping"),
    (PUBLIC_STYLE_SPEC + "version: 2.0.0\n", "key 'version' appears twice"),
    (PUBLIC_STYLE_SPEC.replace("modes: [extract, discover]", "modes: [fly]"), "meta-schema at /modes/0"),
])
def test_broken_spec_is_reported_with_file_and_reason_and_skipped(tmp_path, text, reason):
    path = write_spec(tmp_path, "broken", text)
    write_spec(tmp_path, "acme.extractor", PUBLIC_STYLE_SPEC)
    registry = load_registry([tmp_path])
    assert [p.path for p in registry.problems] == [path.resolve()]
    assert reason in registry.problems[0].reason
    assert "acme.extractor" in registry.names() and "mysql.extractor" in registry.names()


def test_a_user_spec_overrides_a_builtin_of_the_same_name(tmp_path):
    write_spec(tmp_path, "duckdb.processor", PUBLIC_STYLE_SPEC.replace("acme.extractor", "duckdb.processor"))
    assert load_registry([tmp_path]).get("duckdb.processor").title == "Acme Extractor"


def test_load_validator_uses_components_paths_each_directory_once(tmp_path):
    write_spec(tmp_path / "more", "acme.extractor", PUBLIC_STYLE_SPEC)
    (tmp_path / ".osiris.yaml").write_text(yaml.safe_dump({
        "components": {"paths": ["more", "./more", str(tmp_path / "more"), str(builtin_components_dir())]},
        "connections": {"acme": {"main": {"host": "h"}}},
    }))
    effective = load_settings(cwd=tmp_path, env={})
    validator = load_validator(effective)
    assert "acme.extractor" in validator.registry.names()
    assert validator.registry.problems == []
    text = oml(step("a", "acme.extractor", "read", {"connection": "@acme.main", "table": "t"}))
    assert validator.validate(text).valid


def test_config_validators_are_built_once_per_component():
    registry = load_registry()
    assert registry.config_validator("mysql.extractor") is registry.config_validator("mysql.extractor")


def test_the_spec_documented_in_components_md_loads_and_its_example_validates(tmp_path):
    import re

    from osiris.validate.examples import example_problems
    from tests.validate_helpers import REPO

    text = (REPO / "docs" / "components.md").read_text()
    spec_text = next(block for block in re.findall(r"```yaml\n(.*?)```", text, re.DOTALL)
                     if block.startswith("name: acme.extractor"))
    write_spec(tmp_path, "acme.extractor", spec_text)
    registry = load_registry([tmp_path])
    assert registry.problems == [] and "acme.extractor" in registry.names()
    assert [p for p in example_problems(registry) if p.startswith("acme")] == []


def test_a_user_spec_with_an_invalid_json_schema_is_skipped_not_fatal(tmp_path):
    broken = PUBLIC_STYLE_SPEC.replace("page_size: {type: integer,", "page_size: {type: integr,")
    path = write_spec(tmp_path, "acme.extractor", broken)
    registry = load_registry([tmp_path])
    assert [p.path for p in registry.problems] == [path.resolve()]
    assert "not a valid JSON Schema" in registry.problems[0].reason
    report = Validator(registry).validate(oml(step("a", "acme.extractor", "read", {"table": "t"})))
    assert [i.code for i in report.issues] == ["OML301"]
