"""The one step-graph rule (osiris/oml/step_graph.py, ADR 0051) that validation and the run share: what a
step depends on for every form of `needs` and `inputs`, the tables it reads, and the run order;
then the two pipelines that used to pass `osiris validate` and end the run in an internal error."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from osiris.oml.step_graph import dependencies_of, input_step, input_tables, run_order, table_name
from tests.run_helpers import RunProject, csv_step, sql_step
from tests.inprocess import run_inprocess as run_osiris  # in-process: tests/inprocess.py


def step(step_id: str, mode: str, **extra: Any) -> dict[str, Any]:
    return {"id": step_id, "mode": mode, "component": "x.y", **extra}


def test_table_names_replace_every_non_alphanumeric_character():
    assert table_name("extract-customers.v2") == "df_extract_customers_v2"
    assert table_name("Extract_2") == "df_Extract_2"


def test_writes_and_transforms_without_needs_take_the_previous_step_reads_take_none():
    steps = [step("a", "read"), step("b", "transform"), step("c", "write"), step("d", "read"), step("e", "write")]
    assert dependencies_of(steps) == {"a": [], "b": ["a"], "c": ["b"], "d": [], "e": ["d"]}


def test_an_empty_needs_means_no_dependency_for_every_mode():
    steps = [step("a", "read"), step("b", "transform", needs=[]), step("c", "write", needs=None),
             step("d", "read", inputs={})]
    assert dependencies_of(steps) == {"a": [], "b": [], "c": [], "d": []}


@pytest.mark.parametrize("value, expected", [
    ("${extract-users.df}", "extract-users"),  # public Osiris's form
    ("${a.rows}", "a"),  # any ${id.word} the validator accepts
    ("${ a.df }", "a"),
    ("${a}", None), ("a.df", None), ("${a.b.c}", None), (7, None), (None, None),
])
def test_input_references(value, expected):
    assert input_step(value) == expected


def test_needs_then_inputs_each_id_once_and_the_order_follows_them():
    steps = [step("w", "write", needs=["t"]), step("r1", "read"), step("r2", "read"),
             step("t", "transform", needs=["r1", "r1"], inputs={"df": "${r2.rows}", "other": "${ r1.df }"})]
    assert dependencies_of(steps)["t"] == ["r1", "r2"]
    assert run_order(steps) == ["r1", "r2", "t", "w"]


def test_the_run_order_is_the_written_order_where_free_to_choose():
    steps = [step("b", "read"), step("a", "read"), step("c", "transform", needs=["a", "b"]), step("d", "read")]
    assert run_order(steps) == ["b", "a", "c", "d"]


def test_a_cycle_has_no_run_order():
    with pytest.raises(ValueError):
        run_order([step("a", "read", needs=["b"]), step("b", "read", needs=["a"])])


def test_malformed_steps_are_skipped_not_crashed_on():
    steps = ["text", {"id": 3}, step("a", "read"), {"id": "b", "mode": "write", "needs": ["a", 7], "inputs": "x"}]
    assert dependencies_of(steps) == {"a": [], "b": ["a"]}
    assert run_order(steps) == ["a", "b"]


def test_a_read_step_reads_no_table_its_needs_only_order_it():
    assert input_tables(step("r", "read", needs=["w"]), ["w"]) == {}
    assert input_tables(step("t", "transform"), ["a-1", "b"]) == {"a-1": "df_a_1", "b": "df_b"}


# --- the drifted rules, end to end: what validate accepts, run runs -----------------------------

@pytest.fixture
def project(tmp_path: Path) -> RunProject:
    proj = RunProject(tmp_path / "project")
    (proj.root / "data").mkdir()
    (proj.root / "data" / "people.csv").write_text("id,city\n1,Oslo\n2,Rome\n3,Oslo\n")
    return proj


def test_an_inputs_reference_to_rows_validates_and_runs(project):
    writer = csv_step("write-people", "write", "out/people.csv")
    path = project.pipeline([csv_step("read-people", "read", "data/people.csv"),
                             {**writer, "inputs": {"df": "${read-people.rows}"}}])
    assert run_osiris("validate", str(path), cwd=project.root).returncode == 0
    result = project.run(str(path))
    assert result.returncode == 0, result.stderr
    assert (project.root / "out" / "people.csv").read_bytes() == b"id,city\n1,Oslo\n2,Rome\n3,Oslo\n"


def test_a_transform_with_empty_needs_reads_no_input_and_validation_says_so(project):
    path = project.pipeline([csv_step("read-people", "read", "data/people.csv"),
                             sql_step("count", "SELECT count(*) AS n FROM input_df", needs=[])])
    result = run_osiris("validate", str(path), cwd=project.root)
    assert result.returncode == 1
    assert "OML407 step 'count' reads table 'input_df', which is not one of its inputs" in result.stdout


def test_a_read_that_needs_a_writer_runs_after_it(project):
    path = project.pipeline([csv_step("read-people", "read", "data/people.csv"),
                             csv_step("write-people", "write", "out/people.csv"),
                             {**csv_step("read-back", "read", "out/people.csv"), "needs": ["write-people"]},
                             csv_step("write-copy", "write", "out/copy.csv")])
    assert run_osiris("validate", str(path), cwd=project.root).returncode == 0
    result = project.run(str(path))
    assert result.returncode == 0, result.stderr
    assert (project.root / "out" / "copy.csv").read_bytes() == b"id,city\n1,Oslo\n2,Rome\n3,Oslo\n"
