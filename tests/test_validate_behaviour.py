"""What a person and the LLM see from the validator: hints, positions, order, coercions, connections."""

from __future__ import annotations

from types import SimpleNamespace

import pytest
import yaml

from osiris.errors import SettingsError
from osiris.explain import compact, friendly
from osiris.registry import Registry, load_registry
from osiris.validate import Validator
from tests.validate_helpers import CONNECTIONS, csv_step, extract_step, oml, registry, step, validator


def issues(text, **kwargs):
    return validator(kwargs.pop("rules", ())).validate(text, **kwargs).issues


def only(text, code, **kwargs):
    found = [i for i in issues(text, **kwargs) if i.code == code]
    assert len(found) == 1, [i.to_dict() for i in issues(text, **kwargs)]
    return found[0]


def test_public_osiris_pipeline_validates_unchanged():
    text = """
oml_version: "0.1.0"
name: mysql-to-supabase
steps:
  - id: extract-movies
    component: mysql.extractor
    mode: read
    config:
      connection: "@mysql.default"
      table: movies
      batch_size: 100
  - id: rate
    component: duckdb.processor
    mode: transform
    needs: [extract-movies]
    config:
      query: "SELECT *, rating * 2 AS score FROM input_df"
  - id: write-movies
    component: supabase.writer
    mode: write
    needs: [rate]
    config:
      connection: "@supabase.default"
      table: movies
      write_mode: upsert
      primary_key: [id]
"""
    report = validator().validate(text)
    assert report.valid and report.issues == []


def test_misspelt_component_gets_the_closest_name():
    issue = only(oml(step("e", "mysql.extractr", "read", {"table": "t"})), "OML301")
    assert "mysql.extractor" in issue.hint and issue.path == "/steps/0/component"


def test_alias_is_renamed_with_a_warning_and_the_pipeline_is_valid():
    report = validator().validate(oml(extract_step(), csv_step(file_path="out.csv") | {}))
    text = oml(extract_step(), step("write-csv", "filesystem.csv_writer", "write", {"file_path": "o.csv"},
                                    needs=["extract-customers"]))
    report = validator().validate(text)
    assert report.valid
    warning = next(i for i in report.issues if i.code == "OML315")
    assert warning.severity == "warning" and "path" in warning.hint
    assert report.pipeline["steps"][1]["config"] == {"path": "o.csv"}


@pytest.mark.parametrize("raw, coerced", [("500", 500), (500.0, 500), ("TRUE", None)])
def test_safe_coercions_are_applied_and_recorded(raw, coerced):
    if coerced is None:
        report = validator().validate(oml(extract_step(echo="true"), csv_step()))
        assert report.pipeline["steps"][0]["config"]["echo"] is True
        return
    report = validator().validate(oml(extract_step(batch_size=raw), csv_step()))
    assert report.valid and report.pipeline["steps"][0]["config"]["batch_size"] == coerced
    assert [i.code for i in report.issues] == ["OML315"]


def test_scalar_into_list_and_enum_case_are_coerced():
    text = oml(extract_step(columns="id"), csv_step(encoding="UTF-8"))
    report = validator().validate(text)
    assert report.valid
    assert report.pipeline["steps"][0]["config"]["columns"] == ["id"]
    assert report.pipeline["steps"][1]["config"]["encoding"] == "utf-8"


def test_a_number_where_text_is_expected_is_not_coerced():
    assert "OML305" in [i.code for i in issues(oml(extract_step(table=42), csv_step()))]


def test_range_hint_names_the_field_and_bounds():
    issue = only(oml(extract_step(batch_size=50), csv_step()), "OML306")
    assert issue.path == "/steps/0/config/batch_size"
    assert "batch_size" in issue.hint and "100" in issue.hint and "100000" in issue.hint
    assert issue.value == 50


def test_enum_hint_lists_values_and_the_closest_one():
    text = oml(step("w", "supabase.writer", "write", {"connection": "@supabase.default", "table": "t",
                                                     "write_mode": "upsrt", "primary_key": "id"}))
    issue = only(text, "OML307")
    assert "append" in issue.hint and "replace" in issue.hint and "did you mean 'upsert'" in issue.hint


def test_missing_secret_points_to_a_connection_reference_never_inline():
    for issue in issues(oml(step("e", "mysql.extractor", "read", {"table": "t"}))):
        assert issue.code == "OML303"
        assert 'connection: "@mysql.default"' in issue.hint
        assert "password:" not in issue.hint


def test_inline_secret_is_masked_and_hint_points_to_connection():
    issue = only(oml(extract_step(password="hunter2"), csv_step()), "OML310")
    assert issue.value == "***" and "hunter2" not in friendly(issue) + compact(issue)
    assert "connection" in issue.hint


def test_connection_supplies_required_fields():
    report = validator().validate(oml(extract_step(), csv_step()))
    assert report.valid


def test_forbidden_override_is_error_and_warning_override_is_warning():
    assert only(oml(extract_step(user="admin"), csv_step()), "OML314").severity == "error"
    text = oml(step("r", "rest.extractor", "read", {"connection": "@rest.crm", "endpoint": "/x",
                                                    "headers": {"X-Custom": "v"}}))
    warning = only(text, "OML314")
    assert warning.severity == "warning" and validator().validate(text).valid


def test_how_safely_a_connection_connects_is_its_own_to_set():
    """sslmode was a warning override; since issue 22 it is an endpoint field: a step may not lower it
    unless the connection allows it."""
    text = oml(step("p", "postgres.extractor", "read", {"connection": "@postgres.default", "table": "t",
                                                        "sslmode": "disable"}))
    error = only(text, "OML314")
    assert (error.severity, error.path) == ("error", "/steps/0/config/sslmode")
    assert error.hint == ("remove 'sslmode' from the step (the connection supplies it); to let steps choose it, "
                          "add allow_override: [sslmode] to connections.postgres.default in .osiris.yaml")
    allowing = {**CONNECTIONS, "postgres": {"default": {**CONNECTIONS["postgres"]["default"],
                                                        "allow_override": ["sslmode"]}}}
    report = Validator(registry(), allowing).validate(text)
    assert report.valid and [i.code for i in report.issues] == []


def test_unconfigured_alias_lists_configured_ones():
    issue = only(oml(extract_step(connection="@mysql.defualt"), csv_step()), "OML312")
    assert "default" in issue.hint


def test_constraint_uses_connection_supplied_values():
    text = oml(step("g", "graphql.extractor", "read", {"connection": "@graphql.github", "query": "{ viewer { login } }"}))
    assert validator().validate(text).valid  # auth_type bearer and auth_token come from the connection


def test_constraint_either_table_or_query():
    issue = only(oml(step("e", "mysql.extractor", "read", {"connection": "@mysql.default"})), "OML309")
    assert issue.path == "/steps/0/config/table" and "table" in issue.message


def test_unknown_step_component_skips_only_that_step():
    text = oml(step("x", "nope.thing", "read", {"whatever": 1}), extract_step(batch_size=5), csv_step())
    found = [i.code for i in issues(text)]
    assert found.count("OML301") == 1 and "OML306" in found and "OML304" not in found


def test_all_errors_of_a_tier_in_document_order():
    text = oml(extract_step(batch_size=5, limit=0), csv_step(delimiter="", encoding="x"))  # chunk_size: OML321 too
    found = issues(text)
    lines = [i.line for i in found]
    assert lines == sorted(lines) and len(found) == 4


def test_positions_point_at_the_offending_line():
    text = oml(extract_step(), csv_step(encoding="klingon"))
    issue = only(text, "OML307")
    assert text.splitlines()[issue.line - 1].strip().startswith("encoding:")


def test_missing_field_takes_the_position_of_its_parent():
    text = oml(step("e", "duckdb.processor", "transform", {}))
    issue = only(text, "OML303")
    assert issue.line is not None


def test_legacy_keys_name_the_oml_key():
    assert "oml_version" in only(oml(version="1.0", oml_version=None), "OML203").hint
    legacy_step = {"id": "e", "type": "mysql.extractor", "mode": "read"}
    issue = only(oml(legacy_step), "OML203")
    assert "component" in issue.hint
    assert "OML208" not in [i.code for i in issues(oml(legacy_step))]


def test_oml_mode_synonym_hint():
    issue = only(oml(step("e", "mysql.extractor", "extract", {})), "OML212")
    assert issue.hint == "use mode: read"


def test_id_given_as_a_list_is_a_type_error_not_a_crash():
    issue = only(oml({"id": ["a"], "component": "duckdb.processor", "mode": "transform"}), "OML205")
    assert issue.path == "/steps/0/id"


def test_cycle_message_names_the_steps():
    text = oml(step("a", "duckdb.processor", "transform", {"query": "q"}, needs=["c"]),
               step("b", "duckdb.processor", "transform", {"query": "q"}, needs=["a"]),
               step("c", "duckdb.processor", "transform", {"query": "q"}, needs=["b"]))
    issue = only(text, "OML402")
    assert "a -> c -> b -> a" in issue.message


def test_long_dependency_chain_does_not_hit_the_recursion_limit():
    steps = [step(f"s{n}", "duckdb.processor", "transform", {"query": "q"}, needs=[f"s{n - 1}"] if n else None)
             for n in range(1100)]
    steps[0]["needs"] = ["s1099"]
    assert "OML402" in [i.code for i in issues(oml(*steps))]


def test_rules_per_step_and_per_pipeline():
    rules = [SimpleNamespace(name="few-steps", expr="len(steps) <= 1", when=None, level="warning", message=None),
             SimpleNamespace(name="no-replace", expr="step.config.mode != 'replace'",
                             when="step.component == 'mysql.writer'", level="error", message="no replace")]
    text = oml(extract_step(), step("w", "mysql.writer", "write", {"connection": "@mysql.default", "table": "t",
                                                                   "mode": "replace"}, needs=["extract-customers"]))
    found = [(i.code, i.severity, i.path) for i in issues(text, rules=rules)]
    assert ("OML404", "warning", "") in found and ("OML404", "error", "/steps/1") in found


@pytest.mark.parametrize("expr", ["__import__('os')", "step.__class__", "open('x')", "[x for x in steps]", "a +"])
def test_unsafe_or_broken_rules_are_settings_errors(expr):
    with pytest.raises(SettingsError):
        validator([SimpleNamespace(name="bad", expr=expr, when=None, level="error", message=None)])


def test_compact_and_friendly_renderings():
    issue = only(oml(extract_step(batch_size=50), csv_step()), "OML306")
    line = compact(issue)
    assert line.startswith("OML306 /steps/0/config/batch_size: ") and " | fix: " in line and "\n" not in line
    text = friendly(issue)
    assert "steps[0].config.batch_size" in text and f"line {issue.line}" in text and "batch_size" in text


def test_registry_secret_fields_for_the_redactor():
    registry = load_registry()
    assert registry.secret_fields("mysql.extractor") == {"/password"}
    pipeline = yaml.safe_load(oml())
    assert "/steps/0/config/password" in registry.secret_paths(pipeline)
    assert registry.secret_fields("no.such") == set()


def test_validator_with_an_empty_registry_reports_unknown_components():
    report = Validator(Registry()).validate(oml())
    assert [i.code for i in report.errors] == ["OML301", "OML301"]


@pytest.mark.parametrize("reference, code", [("mysql.default", "OML311"), ("@postgres.default", "OML313")])
def test_a_wrong_connection_is_the_only_connection_issue(reference, code):
    found = [i.code for i in issues(oml(extract_step(connection=reference), csv_step()))]
    assert found == [code]


def test_needing_a_step_that_has_its_own_problems_is_not_an_unknown_dependency():
    text = oml({"id": "extract-customers", "component": "mysql.extractor"}, csv_step())
    found = [i.code for i in issues(text)]
    assert "OML208" in found and "OML401" not in found


def test_public_osiris_style_with_comments_flow_lists_and_writer_options():
    text = """# exported by public Osiris
oml_version: "0.1.0"
name: shop-exports

steps:
# --- orders ---
- id: extract-orders
  component: mysql.extractor
  mode: read
  config:
    connection: "@mysql.db_shop"
    query: "SELECT * FROM orders"

- id: orders-csv
  component: filesystem.csv_writer
  mode: write
  needs: [ "extract-orders" ]
  config:
    path: "./output/orders.csv"
    delimiter: ","
    header: true
    encoding: "utf-8"
    newline: "lf"

- id: orders-table
  component: supabase.writer
  mode: write
  needs: [ "extract-orders" ]
  config:
    connection: "@supabase.main"
    table: "orders_copy"
    create_if_missing: true
    write_mode: "replace" # full refresh
    primary_key: [ "order_id" ]
"""
    connections = {"mysql": {"db_shop": {}}, "supabase": {"main": {}}}
    report = Validator(load_registry(), connections).validate(text)
    assert report.valid and report.issues == []


@pytest.mark.parametrize("component", sorted(load_registry().names()))
def test_hints_for_missing_secrets_never_suggest_writing_them_inline(component):
    spec = load_registry().get(component)
    config = {"auth_type": "bearer"} if "auth_type" in spec.properties else {}
    report = validator().validate(oml(step("s", component, spec.oml_modes[0], config)))
    for issue in report.issues:
        field = issue.path.rsplit("/", 1)[-1]
        if spec.is_secret("/" + field):
            assert "connection" in issue.hint, issue.to_dict()
            assert f"{field}:" not in issue.hint, issue.to_dict()
            assert f"add {field}" not in issue.hint and f"set {field}" not in issue.hint, issue.to_dict()
