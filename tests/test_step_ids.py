"""Step ids (docs/oml.md "Step ids", osiris/oml/ids.py): one safe form (OML214), and no two ids that
name the same df_ table (OML215); every id public Osiris's examples and docs use stays valid."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.validate_helpers import oml, run_cli, step, validator

VALIDATOR = validator()

# Every step id in public Osiris's examples, docs and tests (keboola/osiris at e6d55ed), as
# `git grep "id:"` listed them in its YAML and Markdown files.
PUBLIC_IDS = [
    "extract", "extract-movies", "write_csv", "write", "write-director-stats", "extract_users", "extract1",
    "extract-data", "compute-director-stats", "extract_customers", "write-movies-csv", "extract-reviews",
    "write_users", "step_b", "step_a", "rerun_step", "process-data", "load", "extract_movies",
    "extract_data", "extract-orders", "extract-movie-actors", "extract-directors", "extract-actors",
    "calculate", "src", "write-users-csv", "write-to-supabase", "write-reviews-supabase", "load_mysql",
    "load1", "my_extract", "get_data", "transform_enrich", "join_aggregates", "aggregate_users", "dst",
    "debug-mysql-extract", "save_to_supabase", "123movies", "step123",
]


def transform(step_id: str, **extra) -> dict:
    return step(step_id, "duckdb.processor", "transform", {"query": "SELECT 1"}, needs=[], **extra)


def found(*steps: dict) -> list[tuple[str, str, str, str]]:
    return [(i.code, i.path, i.message, i.hint) for i in VALIDATOR.validate(oml(*steps)).issues]


@pytest.mark.parametrize("step_id", PUBLIC_IDS)
def test_every_public_osiris_step_id_is_valid(step_id):
    assert found(transform(step_id)) == []


def test_an_id_of_100_characters_is_valid_and_101_is_not():
    assert found(transform("a" * 100)) == []
    assert [code for code, *_ in found(transform("a" * 101))] == ["OML214"]


@pytest.mark.parametrize("step_id, suggested", [
    ("/some/dir/.ssh", "some-dir-ssh"),
    ("../outside", "outside"),
    ("extract customers.v2", "extract-customers-v2"),
    ("-leading", "leading"),
    ("_private", "private"),
    ("émile", "mile"),
    ("...", "step"),
])
def test_an_id_outside_the_safe_form_is_oml214_with_a_plain_id_suggested(step_id, suggested):
    assert found(transform(step_id)) == [(
        "OML214", "/steps/0/id",
        f"step id '{step_id}' is not a plain name (ASCII letters, digits, - and _, starting with a letter "
        "or a digit, at most 100 characters)",
        f"use id: {suggested}, and the same id in every needs and inputs that name this step")]


def test_the_suggested_id_is_not_one_the_pipeline_already_uses():
    [(code, _, _, hint)] = found(transform("some-dir-ssh"), transform("some/dir/ssh"))
    assert (code, hint) == ("OML214", "use id: some-dir-ssh-2, and the same id in every needs and inputs that "
                                      "name this step")


@pytest.mark.parametrize("first, second, table", [("x-1", "x_1", "df_x_1"), ("Orders", "orders", "df_Orders")])
def test_two_ids_with_the_same_table_are_oml215_on_the_second(first, second, table):
    assert found(transform(first), transform(second)) == [(
        "OML215", "/steps/1/id",
        f"step ids '{first}' and '{second}' both name the table {table} (- and _ are the same there, and case "
        "does not count)",
        f"use id: {second}-2, and the same id in every needs and inputs that name this step")]


def test_the_same_id_twice_is_oml210_only():
    assert [code for code, *_ in found(transform("x-1"), transform("x-1"))] == ["OML210"]


def test_validate_prints_the_line_and_exits_1(tmp_path: Path):
    path = tmp_path / "p.yaml"
    path.write_text(oml(transform("/tmp/x/.ssh")))
    result = run_cli("validate", str(path), cwd=tmp_path)
    assert result.returncode == 1
    assert result.stdout.splitlines() == [
        f"{path}:4:3 OML214 step id '/tmp/x/.ssh' is not a plain name (ASCII letters, digits, - and _, "
        "starting with a letter or a digit, at most 100 characters)",
        "    hint: use id: tmp-x-ssh, and the same id in every needs and inputs that name this step",
        f"{path}: invalid (1 error)"]
