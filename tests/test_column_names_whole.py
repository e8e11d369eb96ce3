"""Every message names a column whole (issue 35, item 6): spaces, dots and quotes in a name are part
of it (`Unit cost`, not `Unit`). The texts are DuckDB's own errors, produced here by DuckDB."""

from __future__ import annotations

from pathlib import Path

import duckdb
import pytest

from osiris.trust.disclosure import conversion_problem
from tests.run_helpers import RunProject, csv_step, sql_step


def duckdb_error(sql: str) -> str:
    with pytest.raises(duckdb.Error) as caught:
        duckdb.connect().execute(sql).fetchall()
    return str(caught.value)


@pytest.mark.parametrize("name", ["Unit cost", "a.b", 'we"ird x', "x"])
def test_a_cast_error_names_the_column_whole(name: str) -> None:
    quoted = '"' + name.replace('"', '""') + '"'
    text = duckdb_error(f"SELECT CAST({quoted} AS INTEGER) FROM (SELECT 'PLANTED' AS {quoted})")
    assert conversion_problem(text) == (f"column '{name}' holds a value that does not convert to INTEGER; "
                                        "the value is withheld")


@pytest.mark.parametrize("name", ["Unit cost", "a.b"])
def test_a_csv_conversion_error_names_the_column_whole(tmp_path: Path, name: str) -> None:
    (tmp_path / "u.csv").write_text(f'id,"{name}"\n1,1\n2,PLANTED\n')
    typed = "'" + name + "'"
    text = duckdb_error(f"SELECT * FROM read_csv('{tmp_path / 'u.csv'}', types = {{{typed}: 'BIGINT'}})")
    assert conversion_problem(text).startswith(f"column '{name}' holds a value that does not convert to BIGINT")


def test_a_run_names_the_column_unit_cost_whole(tmp_path: Path) -> None:
    proj = RunProject(tmp_path / "project")
    (proj.root / "prices.csv").write_text("id,Unit cost\n1,1.5\n2,PLANTED\n")
    path, stderr = proj.run_failing([csv_step("read", "read", "prices.csv"),
                                     sql_step("cast", 'SELECT CAST("Unit cost" AS DOUBLE) AS c FROM input_df',
                                              needs=["read"]),
                                     {**csv_step("out", "write", "out.csv"), "needs": ["cast"]}])
    assert "column 'Unit cost' holds a value that does not convert to DOUBLE" in stderr
    assert "PLANTED" not in stderr
