"""osiris.registry.quick (ADR 0169): `plainly_valid` never calls a config valid that jsonschema (as
Osiris builds it) calls invalid, on generated schemas of the keywords it keeps and on generated
configs of every built-in component; and a valid pipeline is checked without importing jsonschema."""

from __future__ import annotations

import subprocess
import sys

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from osiris.registry import compile_schema, load_registry
from osiris.registry.quick import plainly_valid
from tests.support import clean_env

SCALARS = st.one_of(st.none(), st.booleans(), st.integers(-5, 5), st.floats(-5, 5), st.just(float("nan")),
                    st.sampled_from([0.0, 1.0, -0.0, 2.5, 1e300]), st.text(max_size=4), st.sampled_from(["", "a", "ab"]))
VALUES = st.recursive(SCALARS, lambda inner: st.one_of(st.lists(inner, max_size=3),
                                                       st.dictionaries(st.sampled_from("abc"), inner, max_size=3)),
                      max_leaves=6)
TYPES = st.sampled_from(["null", "boolean", "integer", "number", "string", "array", "object"])


KEYWORDS = {
    "type": st.one_of(TYPES, st.lists(TYPES, min_size=1, max_size=3)), "enum": st.lists(SCALARS, min_size=1, max_size=4),
    "minimum": st.integers(-3, 3), "maximum": st.floats(-3, 3), "exclusiveMinimum": st.integers(-3, 3),
    "exclusiveMaximum": st.integers(-3, 3), "minLength": st.integers(0, 3), "maxLength": st.integers(0, 3),
    "minItems": st.integers(0, 2), "maxItems": st.integers(0, 2), "pattern": st.sampled_from(["^a", "b$", "."]),
    "required": st.lists(st.sampled_from("abc"), max_size=2), "description": st.text(max_size=3), "default": SCALARS,
    "x-sql": st.just("duckdb"),
    "format": st.just("uri"), "uniqueItems": st.booleans(), "oneOf": st.just([{"type": "string"}])}  # not kept


def schemas() -> st.SearchStrategy:
    """Schemas of one to three keywords a level, nested through properties, additionalProperties and items."""
    leaf = st.sets(st.sampled_from(sorted(KEYWORDS)), max_size=3).flatmap(
        lambda names: st.fixed_dictionaries({name: KEYWORDS[name] for name in names}))
    return st.recursive(leaf, lambda inner: st.one_of(
        st.builds(lambda base, props: {**base, "properties": props}, leaf, st.dictionaries(st.sampled_from("abc"), inner,
                                                                                             max_size=3)),
        st.builds(lambda base, extra: {**base, "additionalProperties": extra}, leaf, st.one_of(st.booleans(), inner)),
        st.builds(lambda base, items: {**base, "items": items}, leaf, inner)), max_leaves=5)


@settings(max_examples=1500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(schemas(), VALUES)
def test_plainly_valid_is_never_wrong_about_a_generated_schema(schema, value):
    if plainly_valid(schema, value):
        assert compile_schema(schema).is_valid(value), (schema, value)


REGISTRY = load_registry()


def config_values(component: str) -> st.SearchStrategy:
    """Configs of one component: its fields with values of every kind, and a field it does not know."""
    fields = sorted(REGISTRY.config_schema(component).get("properties", {})) + ["unknown"]
    kinds = st.one_of(VALUES, st.sampled_from(["@mysql.default", "orders", "SELECT 1", "https://x.io/a", "a@b.io",
                                               "append", "replace", 1000, 5432, True]))
    return st.dictionaries(st.sampled_from(fields), kinds, max_size=6)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(REGISTRY.names()).flatmap(lambda name: st.tuples(st.just(name), config_values(name))))
def test_plainly_valid_is_never_wrong_about_a_builtin_components_config(case):
    component, config = case
    if plainly_valid(REGISTRY.config_schema(component), config):
        assert REGISTRY.config_validator(component).is_valid(config), (component, config)


BOUNDARY_SCHEMAS = [{"minimum": 1}, {"maximum": 1}, {"exclusiveMinimum": 1}, {"exclusiveMaximum": 1},
                    {"minLength": 2}, {"maxLength": 2}, {"minItems": 2}, {"maxItems": 2}, {"pattern": "^a"},
                    {"type": "integer"}, {"type": ["string", "null"]}, {"enum": [1, "1", None, False]},
                    {"required": ["a"]}, {"properties": {"a": {"type": "string"}}},
                    {"properties": {"a": {}}, "additionalProperties": False},
                    {"additionalProperties": {"type": "integer"}}, {"items": {"maximum": 1}}]
BOUNDARY_VALUES = [None, True, False, 0, 1, 2, 0.5, 1.0, 1.5, 2.0, float("nan"), "", "a", "ab", "abc", "1", "ba",
                   [], [1], [1, 2], [2, 2, 2], {}, {"a": 1}, {"a": "x"}, {"b": 1}, {"a": "x", "b": 2}]


def test_plainly_valid_agrees_with_jsonschema_at_every_boundary():
    for schema in BOUNDARY_SCHEMAS:
        validator = compile_schema(schema)
        for value in BOUNDARY_VALUES:
            if value == value:  # NaN: plainly valid never, whatever jsonschema says of it
                assert plainly_valid(schema, value) == validator.is_valid(value), (schema, value)
            else:
                assert not plainly_valid(schema, value) or validator.is_valid(value), (schema, value)


def test_typical_configs_are_plainly_valid_and_wrong_ones_go_to_jsonschema():
    schema = REGISTRY.config_schema("mysql.extractor")
    assert plainly_valid(schema, {"table": "orders", "batch_size": 5000})
    assert not plainly_valid(schema, {"table": "orders", "batch_size": 50})  # below its minimum
    assert not plainly_valid(schema, {"table": "orders", "batch_size": "5000"})  # a string
    assert not plainly_valid(schema, {"table": "orders", "batch_size": True})  # a boolean is no integer
    assert plainly_valid({"type": "integer"}, 2.0) and not plainly_valid({"type": "integer"}, 2.5)
    assert not plainly_valid({"enum": [1, 2]}, True) and plainly_valid({"enum": [1, 2]}, 1.0)
    assert not plainly_valid({"oneOf": [{"type": "string"}]}, "x")  # a keyword not kept: jsonschema decides


def test_a_valid_pipeline_is_validated_without_importing_jsonschema(tmp_path):
    (tmp_path / "p.yaml").write_text(
        'oml_version: "0.1.0"\nname: p\nsteps:\n'
        '  - {id: read, component: filesystem.csv_extractor, mode: read, config: {path: in.csv, delimiter: ";"}}\n'
        '  - {id: write, component: filesystem.csv_writer, mode: write, needs: [read], config: {path: out.csv}}\n')
    (tmp_path / "bad.yaml").write_text((tmp_path / "p.yaml").read_text().replace('";"', "7"))
    probe = ("import sys; from osiris.cli import main; code = main(sys.argv[1:]); "
             "print(code, 'jsonschema' in sys.modules)")
    for name, expected in (("p.yaml", "0 False"), ("bad.yaml", "1 True")):
        done = subprocess.run([sys.executable, "-c", probe, "validate", name], cwd=tmp_path, env=clean_env(),
                              capture_output=True, text=True, timeout=120)
        assert done.stdout.splitlines()[-1] == expected, done.stdout + done.stderr
