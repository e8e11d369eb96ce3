"""Issue 8: specs written the way public Osiris writes them load, validate and can be satisfied."""

from __future__ import annotations

import textwrap

from osiris.prompt.catalog import describe_component
from osiris.registry import load_registry
from osiris.validate import Validator
from osiris.validate.examples import example_problems, example_warnings
from tests.inprocess import run_inprocess as run_osiris  # in-process: tests/inprocess.py
from tests.validate_helpers import oml, step

# Our own spec in public's style: no x-connection-fields, a required `connection` property, and an
# example with the API key written inline.
SPEC = textwrap.dedent("""\
    name: acme.extractor
    version: 1.0.0
    modes: [extract]
    capabilities: {discover: false}
    configSchema:
      type: object
      properties:
        connection: {type: string, pattern: "^@[a-z0-9_.-]+\\\\.[a-z0-9_.-]+$"}
        api_key: {type: string, minLength: 1}
        resource: {type: string, minLength: 1}
      required: [connection, api_key, resource]
      additionalProperties: false
    secrets: [/api_key]
    examples:
      - title: inline key, as public specs do
        config: {connection: "@acme.main", api_key: abcdefghijklmnop, resource: items}
      - title: with a connection
        config: {connection: "@acme.main", resource: items}
    """)


def registry_with_spec(tmp_path):
    (tmp_path / "acme.extractor").mkdir()
    (tmp_path / "acme.extractor" / "spec.yaml").write_text(SPEC)
    return load_registry([tmp_path])


def test_a_required_connection_property_and_no_connection_fields_can_be_satisfied(tmp_path):
    registry = registry_with_spec(tmp_path)
    pipeline = oml(step("read", "acme.extractor", "read", {"connection": "@acme.main", "resource": "items"}))

    report = Validator(registry, {"acme": {"main": {"api_key": "${ACME_KEY}"}}}).validate(pipeline)

    assert registry.problems == []
    assert report.valid, [(i.code, i.path, i.message) for i in report.issues]


def test_without_connection_fields_the_secret_may_not_be_overridden(tmp_path):
    registry = registry_with_spec(tmp_path)
    pipeline = oml(step("read", "acme.extractor", "read", {"connection": "@acme.main", "resource": "items",
                                                           "api_key": "abcdefghijklmnop"}))

    report = Validator(registry, {"acme": {"main": {}}}).validate(pipeline)

    assert "OML310" in report.error_codes


def test_an_inline_secret_in_an_example_is_a_warning_and_never_reaches_the_prompt(tmp_path):
    registry = registry_with_spec(tmp_path)

    assert [p for p in example_problems(registry) if p.startswith("acme")] == []
    assert [w.split(":")[0] for w in example_warnings(registry)] == ["acme.extractor example 1 (inline key, as public specs do)"]
    line = describe_component(registry.get("acme.extractor"))
    assert "abcdefghijklmnop" not in line
    assert 'example config: {"connection": "@acme.main", "resource": "items"}' in line


def test_components_validate_passes_with_the_warning(tmp_path):
    (tmp_path / "specs" / "acme.extractor").mkdir(parents=True)
    (tmp_path / "specs" / "acme.extractor" / "spec.yaml").write_text(SPEC)
    (tmp_path / ".osiris.yaml").write_text("components:\n  paths: [specs]\n")

    done = run_osiris("components", "validate", cwd=tmp_path)

    assert done.returncode == 0, done.stderr
    assert ("osiris: warning: acme.extractor example 1 (inline key, as public specs do): OML310 "
            "/steps/0/config/api_key: secret field 'api_key' is written inline in the pipeline "
            "(this example is left out of the prompt)") in done.stderr.splitlines()


def test_the_public_components_are_there():
    registry = load_registry()
    graphql = registry.get("graphql.extractor")

    assert registry.get("posthog.extractor").oml_modes == ("read",)
    assert "ddl_channel" in registry.get("supabase.writer").properties
    assert graphql.is_secret("/headers/Authorization") and graphql.is_secret("/auth_username")
    assert not graphql.is_secret("/headers/X-Anything") and not graphql.is_secret("/headers")  # issue 24
