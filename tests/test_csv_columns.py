"""What a CSV read keeps, never less in silence. `columns` (docs/components.md): the step keeps those
columns of the file, in the order it lists them, on every engine and on the fused read; a name the
file lacks is OML502 naming the file's columns. Before, every engine read every column in silence:
a column the person left out (here `secret`) reached the target. And `skip_blank_lines: false`,
which neither engine can honour (a blank line is no row to DuckDB's reader or Spark's), is refused
when validated: it was accepted and a blank line dropped in silence. A header naming one column
twice is OML540 (DuckDB renamed the second `id` to `id_1` in silence), and `header: N` (the header
on row N, pandas's reading) reads on DuckDB and is refused on Spark when validated: both stopped the
run at an internal error (OML105) before."""

from __future__ import annotations

import json

import pytest

from tests.run_helpers import ENGINES, RunProject, after, csv_step, on_engine, sql_step

pytestmark = pytest.mark.xdist_group("spark")  # the Spark cells start a JVM: one worker runs them all
# A Spark cell runs `osiris run` as a child, with a Spark session of its own, as a person's run has: in a
# test process whose session earlier tests used, one such run once spun for minutes in a join none of
# its steps asks for (the first fresh-clone gate of 2026-11-28).


PEOPLE = 'id,email,secret,amount\n1,a@x.org,s3cr3t-1,10.5\n2,"b, jr@x.org",s3cr3t-2,\n'
def project(tmp_path, engine: str) -> RunProject:
    proj = RunProject(tmp_path / "p")
    (proj.root / "people.csv").write_text(PEOPLE, encoding="utf-8")
    return on_engine(proj, engine)


@pytest.mark.parametrize("engine", sorted(ENGINES))
def test_a_read_keeps_the_listed_columns_in_their_order(tmp_path, engine):
    proj = project(tmp_path, engine)
    path = proj.pipeline([csv_step("read", "read", "people.csv", columns=["amount", "id", "email"]),
                          after(csv_step("write", "write", "out/kept.csv"), "read")])
    result = proj.run(str(path), process=engine == "spark")
    assert result.returncode == 0, result.stdout + result.stderr
    assert (proj.root / "out" / "kept.csv").read_bytes() == b'amount,id,email\n10.5,1,a@x.org\n,2,"b, jr@x.org"\n'


@pytest.mark.parametrize("engine", sorted(ENGINES))
def test_a_listed_column_the_file_lacks_is_oml502_naming_the_files_columns(tmp_path, engine):
    proj = project(tmp_path, engine)
    path = proj.pipeline([csv_step("read", "read", "people.csv", columns=["id", "emial"]),
                          after(csv_step("write", "write", "out/kept.csv"), "read")])
    result = proj.run(str(path), process=engine == "spark")
    assert result.returncode == 6, result.stdout + result.stderr
    assert f"{path} OML502 step 'read': column \"emial\" does not exist in people.csv\n" in result.stderr
    assert "    hint: columns of people.csv: id, email, secret, amount (did you mean 'email'?)\n" in result.stderr
    assert not (proj.root / "out" / "kept.csv").exists()
    assert "s3cr3t" not in result.stdout + result.stderr


def test_a_read_fused_into_its_transform_sees_only_the_listed_columns(tmp_path):
    proj = project(tmp_path, "duckdb")
    path = proj.pipeline([
        csv_step("read", "read", "people.csv", columns=["id", "amount"]),
        sql_step("shape", "SELECT * FROM df_read ORDER BY id", needs=["read"]),
        after(csv_step("write", "write", "out/shaped.csv"), "shape")])
    result = proj.run(str(path), "--json")
    assert result.returncode == 0, result.stderr
    assert (proj.root / "out" / "shaped.csv").read_bytes() == b"id,amount\n1,10.5\n2,\n"
    steps = {step["id"]: step for step in json.loads(result.stdout)["steps"]}
    assert steps["read"]["fused_into"] == "shape"  # the fused path was the one taken
    assert steps["read"]["rows_out"] == 2


def test_a_transform_naming_a_column_the_read_left_out_is_oml502_naming_the_kept_ones(tmp_path):
    proj = project(tmp_path, "duckdb")
    path = proj.pipeline([
        csv_step("read", "read", "people.csv", columns=["id", "amount"]),
        sql_step("shape", "SELECT id, secret FROM df_read", needs=["read"]),
        after(csv_step("write", "write", "out/shaped.csv"), "shape")])
    result = proj.run(str(path))
    assert result.returncode == 6
    assert f"{path} OML502 step 'shape': column \"secret\" does not exist\n" in result.stderr
    assert "hint: columns the database knows: amount, id\n" in result.stderr
    assert "s3cr3t" not in result.stdout + result.stderr
    assert not (proj.root / "out" / "shaped.csv").exists()


def test_skip_blank_lines_false_is_refused_before_anything_runs(tmp_path):
    proj = project(tmp_path, "duckdb")
    path = proj.pipeline([csv_step("read", "read", "people.csv", skip_blank_lines=False),
                          after(csv_step("write", "write", "out/kept.csv"), "read")])
    result = proj.run(str(path))
    assert result.returncode == 1, result.stdout + result.stderr
    assert "OML307 skip_blank_lines is false, which is not one of the allowed values\n" in result.stderr
    assert "    hint: set skip_blank_lines to one of: true\n" in result.stderr
    assert not (proj.root / "out").exists()


@pytest.mark.parametrize("engine", sorted(ENGINES))
def test_a_header_naming_a_column_twice_is_oml540_before_any_row_is_read(tmp_path, engine):
    proj = project(tmp_path, engine)
    (proj.root / "twice.csv").write_text("id,name,ID\n1,a,2\n", encoding="utf-8")
    path = proj.pipeline([csv_step("read", "read", "twice.csv"), after(csv_step("write", "write", "out/t.csv"), "read")])
    result = proj.run(str(path), process=engine == "spark")
    assert result.returncode == 6, result.stdout + result.stderr
    assert (f"{path} OML540 step 'read': the header of twice.csv names two columns 'ID' (column names ignore "
            "case)\n") in result.stderr
    assert not (proj.root / "out").exists()


def test_a_header_whose_names_only_look_renamed_reads_as_it_stands(tmp_path):
    proj = project(tmp_path, "duckdb")
    (proj.root / "like.csv").write_text("id,x_1,x\n1,2,3\n", encoding="utf-8")
    path = proj.pipeline([csv_step("read", "read", "like.csv"), after(csv_step("write", "write", "out/l.csv"), "read")])
    assert proj.run(str(path)).returncode == 0
    assert (proj.root / "out" / "l.csv").read_bytes() == b"id,x_1,x\n1,2,3\n"


@pytest.mark.parametrize(("header", "text"), [(0, "id,name\n1,a\n"), (2, "# export\n# of people\nid,name\n1,a\n")])
def test_header_as_a_row_number_reads_the_header_on_that_row(tmp_path, header, text):
    proj = project(tmp_path, "duckdb")
    (proj.root / "rows.csv").write_text(text, encoding="utf-8")
    path = proj.pipeline([csv_step("read", "read", "rows.csv", header=header),
                          after(csv_step("write", "write", "out/r.csv"), "read")])
    result = proj.run(str(path))
    assert result.returncode == 0, result.stdout + result.stderr
    assert (proj.root / "out" / "r.csv").read_bytes() == b"id,name\n1,a\n"


def test_header_on_a_later_row_is_refused_on_spark_when_validated(tmp_path):
    proj = project(tmp_path, "spark")
    (proj.root / "rows.csv").write_text("# export\nid,name\n1,a\n", encoding="utf-8")
    path = proj.pipeline([csv_step("read", "read", "rows.csv", header=1),
                          after(csv_step("write", "write", "out/r.csv"), "read")])
    result = proj.run(str(path))
    assert result.returncode == 1, result.stdout + result.stderr
    assert "OML414 step 'read': header: 1 (the header on a later row) is not available on the Spark engine\n" in result.stderr
    assert not (proj.root / "out").exists()
