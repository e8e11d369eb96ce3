"""The CSV extractor inside the trust boundary (docs/security.md, "Files"): the checked file is linked
into the run's scratch directory and read there; a `base_dir` the person declares widens where
files may be, one a pipeline writes may only narrow it; and what a failed read says names the
column and the type, never a line of the file. Through `osiris run`, in process."""

from __future__ import annotations

import gzip
from pathlib import Path

import pytest
import yaml

from tests.run_helpers import RunProject, csv_step


@pytest.fixture
def proj(tmp_path: Path) -> RunProject:
    project = RunProject(tmp_path / "project")
    (project.root / "data").mkdir()
    (project.root / "data" / "orders.csv").write_text("id,amount\n1,10\n2,x7-Planted\n")
    return project


def test_a_type_duckdb_does_not_know_gets_the_names_it_takes(proj: RunProject) -> None:
    """Issue 26: a model wrote Python's `str`; the hint says what DuckDB calls it (and that the file is fine)."""
    path, stderr = proj.run_failing([csv_step("read", "read", "data/orders.csv", dtype={"id": "str"})])
    assert stderr.splitlines()[:2] == [
        f"{path} OML503 step 'read': cannot read data/orders.csv as CSV: dtype names the type 'str', which DuckDB "
        "does not know",
        "    hint: write VARCHAR for 'str'; dtype takes DuckDB type names: VARCHAR, BIGINT, INTEGER, DOUBLE, "
        "DECIMAL(18,2), BOOLEAN, DATE, TIMESTAMP"]
    _, stderr = proj.run_failing([csv_step("read", "read", "data/orders.csv", dtype={"id": "texty"})])
    assert "    hint: dtype takes DuckDB type names: VARCHAR, BIGINT" in stderr


def test_a_value_that_does_not_fit_its_dtype_is_told_by_column_type_and_line(proj: RunProject) -> None:
    path, stderr = proj.run_failing([csv_step("read", "read", "data/orders.csv", dtype={"amount": "INTEGER"})])
    assert stderr.splitlines()[:2] == [
        f"{path} OML503 step 'read': cannot read data/orders.csv as CSV: column 'amount' holds a value that does not "
        "convert to INTEGER (line 3 of the file); the value is withheld",
        "    hint: set dtype for that column to a type its values fit (VARCHAR reads anything), or clean the file"]
    sessions = "".join(p.read_text() for p in (proj.root / ".osiris").rglob("*") if p.is_file())
    assert "x7-Planted" not in stderr + sessions


def test_a_compressed_file_is_read_through_its_link_in_the_scratch_directory(proj: RunProject) -> None:
    with gzip.open(proj.root / "data" / "orders.csv.gz", "wt") as handle:
        handle.write("id,amount\n1,10\n2,20\n")
    path = proj.pipeline([csv_step("read", "read", "data/orders.csv.gz"), csv_step("write", "write", "out.csv")])
    result = proj.run(str(path))
    assert result.returncode == 0, result.stderr
    assert (proj.root / "out.csv").read_text() == "id,amount\n1,10\n2,20\n"
    assert (proj.root / "data" / "orders.csv.gz").stat().st_nlink == 1  # the link went with the scratch directory
    assert list((proj.root / ".osiris" / "tmp").iterdir()) == []


def test_a_base_dir_the_person_declares_is_where_a_connection_reads_and_writes(proj: RunProject, tmp_path) -> None:
    lake = tmp_path / "lake"
    (lake / "in").mkdir(parents=True)
    (lake / "in" / "a.csv").write_text("id\n1\n2\n")
    (proj.root / ".osiris.yaml").write_text(yaml.safe_dump({"connections": {"filesystem": {"lake": {
        "base_dir": str(lake)}}}}))
    lake_step = {"connection": "@filesystem.lake"}
    path = proj.pipeline([csv_step("read", "read", "in/a.csv", **lake_step),
                          csv_step("write", "write", "out/b.csv", **lake_step)])
    result = proj.run(str(path))
    assert result.returncode == 0, result.stderr
    assert (lake / "out" / "b.csv").read_text() == "id\n1\n2\n"
    escape = proj.pipeline([csv_step("read", "read", "../project/data/orders.csv", **lake_step)], name="escape")
    result = proj.run(str(escape))
    assert result.returncode == 1
    assert "OML317 path '../project/data/orders.csv' goes up with '..': files stay inside the project" in result.stderr
    moved = proj.pipeline([csv_step("read", "read", "a.csv", base_dir="/", **lake_step)], name="moved")
    result = proj.run(str(moved))
    assert result.returncode == 1
    assert "OML314 'base_dir' says where @filesystem.lake connects" in result.stderr
    assert "OML317 base_dir '/' is an absolute path" in result.stderr


def test_a_base_dir_in_the_pipeline_may_narrow_but_not_widen(proj: RunProject) -> None:
    path = proj.pipeline([csv_step("read", "read", "orders.csv", base_dir="data"), csv_step("write", "write", "o.csv")])
    result = proj.run(str(path))
    assert result.returncode == 0, result.stderr
    assert (proj.root / "o.csv").read_text() == "id,amount\n1,10\n2,x7-Planted\n"
    wide = proj.pipeline([csv_step("read", "read", "x.csv", base_dir="..")], name="wide")
    result = proj.run(str(wide))
    assert result.returncode == 1
    assert "OML317 base_dir '..' goes up with '..': files stay inside the project" in result.stderr


def test_the_read_options_the_driver_reads_typed_take_effect(proj: RunProject) -> None:
    """skip_rows, na_values and dtype go from the step's config (osiris.run.fields) into DuckDB's read."""
    (proj.root / "data" / "export.csv").write_text("export,v2\nid,amount\n1,-\n2,007\n")  # a line to skip
    path = proj.pipeline([csv_step("read", "read", "data/export.csv", skip_rows=1, na_values=["-"],
                                   dtype={"amount": "VARCHAR"}),
                          csv_step("write", "write", "out.csv")])
    result = proj.run(str(path))
    assert result.returncode == 0, result.stderr
    assert (proj.root / "out.csv").read_text() == "id,amount\n1,\n2,007\n"
