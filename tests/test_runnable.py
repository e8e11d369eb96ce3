"""OML409 (osiris/validate/runnable.py): the dependency shapes the runtime cannot execute are found
by validation, each with the hint that names the fix, and the fixed pipeline runs."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.run_helpers import RunProject, csv_step, sql_step
from tests.validate_helpers import oml, step, validator

VALIDATOR = validator()
READ = step("read", "filesystem.csv_extractor", "read", {"path": "a.csv"})
READ2 = step("read-2", "filesystem.csv_extractor", "read", {"path": "b.csv"})


def writer(step_id: str, **extra: Any) -> dict[str, Any]:
    return step(step_id, "filesystem.csv_writer", "write", {"path": f"{step_id}.csv"}, **extra)


def transform(step_id: str, query: str, **extra: Any) -> dict[str, Any]:
    return step(step_id, "duckdb.processor", "transform", {"query": query}, **extra)


def found(*steps: dict[str, Any]) -> list[tuple[str, str, str, str]]:
    return [(i.code, i.path, i.message, i.hint) for i in VALIDATOR.validate(oml(*steps)).issues]


TAKES_A_WRITER = "step '{0}' takes the rows of 'w', which is a writer: a writer leaves no table to read"


def test_a_writer_after_a_writer_without_needs_is_told_to_need_the_rows_the_first_one_writes():
    assert found(READ, writer("w"), writer("w2")) == [(
        "OML409", "/steps/2", TAKES_A_WRITER.format("w2"),
        "add needs: [read] to take the rows of 'read', the rows 'w' writes; a step without needs takes the step "
        "just before it")]


def test_a_writer_named_in_needs_is_replaced_by_the_step_it_writes_through_a_chain_of_writers():
    steps = [READ, writer("w0"), writer("w", needs=["w0"]), writer("w2", needs=["w"])]
    assert found(*steps)[-1] == (
        "OML409", "/steps/3/needs/0", TAKES_A_WRITER.format("w2"),
        "replace 'w' with 'read' in needs: take the rows of 'read' instead")


def test_a_transform_reading_a_writers_table_is_told_which_table_to_read():
    assert found(READ, writer("w"), transform("t", "SELECT * FROM df_w", needs=["w"])) == [(
        "OML409", "/steps/2/needs/0", TAKES_A_WRITER.format("t"),
        "replace 'w' with 'read' in needs: take the rows of 'read' instead, and read df_read in the query "
        "instead of df_w")]


def test_an_inputs_reference_to_a_writer_is_rewritten_in_the_inputs_form():
    assert found(READ, writer("w"), transform("t", "SELECT * FROM input_df", inputs={"df": "${w.df}"})) == [(
        "OML409", "/steps/2/inputs/df", TAKES_A_WRITER.format("t"),
        "write inputs: {df: \"${read.df}\"} to take the rows of 'read' instead of 'w'")]


def test_a_writer_as_the_first_step_has_no_input():
    assert found(writer("w")) == [(
        "OML409", "/steps/0", "step 'w' is a writer with no input: it is the first step",
        "add a read or transform step before it, and give it needs: [<that step's id>]")]


def test_a_writer_with_empty_needs_is_told_the_nearest_step_and_the_others():
    assert found(READ, READ2, writer("w", needs=[])) == [(
        "OML409", "/steps/2/needs", "step 'w' is a writer with no input: its needs name no step",
        "name the step whose rows it writes: needs: [read-2] (steps that leave rows before it: read, read-2)")]


def test_a_writer_with_two_inputs_is_told_to_join_them_first():
    assert found(READ, READ2, writer("w", needs=["read", "read-2"])) == [(
        "OML409", "/steps/2/needs", "step 'w' writes the rows of one step, but it takes 2: read, read-2",
        "add a duckdb.processor step before it with needs: [read, read-2] that joins or unions df_read, df_read_2 "
        "into one table, and give 'w' needs: [<that step's id>] instead")]


@pytest.mark.parametrize("steps", [
    [READ, writer("w"), {**READ2, "needs": ["w"]}, writer("w2")],  # a read's needs only order it
    [READ, writer("w", needs=["ghost"])],  # OML401 is the one thing to fix
    [READ, writer("w", needs=["read", "ghost"])],
    [READ, {**writer("w"), "inputs": {"df": "read.df"}}],  # OML205
    [READ, step("w", "mysql.extractor", "write", {"connection": "@mysql.default", "table": "t"})],  # OML302 first
])
def test_shapes_that_run_or_have_another_fix_first_get_no_oml409(steps):
    assert "OML409" not in [code for code, *_ in found(*steps)]


# --- through the CLI: refused by validate and run alike; the hinted fix runs ------------------

@pytest.fixture
def project(tmp_path: Path) -> RunProject:
    proj = RunProject(tmp_path / "project")
    (proj.root / "people.csv").write_text("id,city\n1,Oslo\n2,Rome\n")
    return proj


def test_run_refuses_the_pipeline_before_anything_runs_and_the_fix_from_the_hint_runs(project):
    steps = [csv_step("read", "read", "people.csv"), csv_step("w", "write", "out/one.csv"),
             csv_step("w2", "write", "out/two.csv")]
    path = project.pipeline(steps)
    result = project.run(str(path))
    assert result.returncode == 1
    assert result.stderr.splitlines()[:2] == [
        f"{path}:14:3 OML409 {TAKES_A_WRITER.format('w2')}",
        "    hint: add needs: [read] to take the rows of 'read', the rows 'w' writes; a step without needs takes "
        "the step just before it"]
    assert not (project.root / "out").exists()
    path = project.pipeline([*steps[:2], {**steps[2], "needs": ["read"]}])
    assert project.run(str(path)).returncode == 0
    assert (project.root / "out" / "two.csv").read_bytes() == b"id,city\n1,Oslo\n2,Rome\n"


def test_a_transform_fixed_as_the_hint_says_runs(project):
    steps = [csv_step("read", "read", "people.csv"), csv_step("w", "write", "out/one.csv"),
             sql_step("t", "SELECT count(*) AS n FROM df_w", needs=["w"]), csv_step("out", "write", "out/n.csv")]
    assert project.run(str(project.pipeline(steps))).returncode == 1
    fixed = {**steps[2], "needs": ["read"], "config": {"query": "SELECT count(*) AS n FROM df_read"}}
    assert project.run(str(project.pipeline([*steps[:2], fixed, steps[3]]))).returncode == 0
    assert (project.root / "out" / "n.csv").read_bytes() == b"n\n2\n"
