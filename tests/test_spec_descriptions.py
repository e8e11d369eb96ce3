"""Issue 26: every field a model writes says what it takes. A description is what `components show`
prints and what a type error's hint quotes back to the LLM, so each built-in field has one, and a
field that takes a mapping or a list shows one (`e.g.`). The CSV extractor's `dtype` names DuckDB
types: a model once wrote Python's `str` there."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml


COMPONENTS = Path(__file__).resolve().parent.parent / "components"
SPECS = {path.parent.name: yaml.safe_load(path.read_text(encoding="utf-8"))
         for path in sorted(COMPONENTS.glob("*/spec.yaml"))}


def fields() -> list[tuple[str, str, dict[str, Any]]]:
    return [(name, field, prop) for name, spec in SPECS.items()
            for field, prop in spec["configSchema"]["properties"].items() if field != "connection"]


def kinds(prop: dict[str, Any]) -> set[str]:
    found = prop.get("type") or [sub.get("type") for sub in prop.get("oneOf", [])]
    return set(found if isinstance(found, list) else [found])


@pytest.mark.parametrize(("component", "field", "prop"), fields(), ids=lambda v: v if isinstance(v, str) else "")
def test_each_field_says_what_it_takes(component: str, field: str, prop: dict[str, Any]) -> None:
    description = str(prop.get("description") or "")
    assert description.strip(), f"{component}.{field} has no description"
    secret = any(p.strip("/").split("/")[0] == field for p in SPECS[component].get("secrets", []))
    if kinds(prop) & {"object", "array"} and not secret:
        assert "e.g." in description, f"{component}.{field}: a structure needs an example: {description}"


KEYWORDS = {"type", "description", "default", "enum", "minimum", "maximum", "minLength", "maxLength", "items",
            "additionalProperties", "format", "oneOf", "anyOf", "uniqueItems", "minItems", "pattern", "x-sql",
            "x-enum-synonyms", "x-path",  # x-path: a field naming a file (osiris/trust/paths.py)
            "x-no-effect",  # a field accepted and unused: OML321 (osiris/validate/no_effect.py)
            "properties", "required"}  # a structured field's own keys (incremental: {cursor, initial})


@pytest.mark.parametrize(("component", "field", "prop"), fields(), ids=lambda v: v if isinstance(v, str) else "")
def test_no_description_is_cut_at_a_comma(component: str, field: str, prop: dict[str, Any]) -> None:
    """In a YAML flow mapping an unquoted `description: Token, password or API key` ends at the
    comma, and the rest becomes a stray key: the description a model reads was only `Token`."""
    assert set(prop) <= KEYWORDS, f"{component}.{field}: {sorted(set(prop) - KEYWORDS)}"


def test_dtype_takes_duckdb_type_names_and_says_so_where_the_model_reads() -> None:
    spec = SPECS["filesystem.csv_extractor"]
    description = spec["configSchema"]["properties"]["dtype"]["description"]
    assert "DuckDB type name" in description and "BIGINT" in description and "Not Python" in description
    assert "dtype takes DuckDB type names" in spec["llmHints"]["promptGuidance"]
    from osiris.prompt.catalog import describe_component
    from osiris.registry import load_registry

    registry = load_registry()
    line = describe_component(registry.get("filesystem.csv_extractor"))
    assert "dtype takes DuckDB type names (BIGINT, DOUBLE, DECIMAL(10,2), DATE, VARCHAR), never Python types" in line


def test_components_show_prints_what_each_field_takes(tmp_path: Path) -> None:
    from tests.inprocess import run_inprocess

    shown = run_inprocess("components", "show", "filesystem.csv_extractor", cwd=tmp_path)
    assert shown.returncode == 0, shown.stderr
    assert ("      Column name to DuckDB type name, e.g. {id: BIGINT, amount: DECIMAL(10,2), signup: DATE, "
            "name: VARCHAR}; also INTEGER, DOUBLE, BOOLEAN, TIMESTAMP. Not Python or pandas types (str, int, "
            "float64)") in shown.stdout.splitlines()
