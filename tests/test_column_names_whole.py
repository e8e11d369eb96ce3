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


# --- previews show a duration as the databases print a TIME (issue 35, item 6) ---

@pytest.mark.parametrize("micros, shown", [
    ((838 * 3600 + 59 * 60 + 59) * 10**6, "838:59:59"), (-(12 * 3600 * 10**6 + 500_000), "-12:00:00.5"),
    (1, "00:00:00.000001"), (0, "00:00:00"), (-(838 * 3600 + 59 * 60 + 59) * 10**6, "-838:59:59")])  # issue 37:
# the one rule of osiris.text_table.duration_text, as MySQL and the DuckDB engine print them (tests/test_duration_text.py)
def test_a_preview_shows_a_duration_as_hours_minutes_seconds(micros: int, shown: str) -> None:
    from datetime import timedelta

    from osiris.run.display import preview_lines
    from osiris.run.duckdb_run import StepResult
    from osiris.sample.sample_run import SampleRun
    from osiris.sample.preview import step_previews

    value = timedelta(microseconds=micros)
    step = StepResult("read", "mysql.extractor", "read", status="ok", rows_out=1, preview=(["tm"], [(value,)]))
    assert preview_lines(step) == ["  tm", f"  {shown}"]  # osiris run --sample
    dry_run = SampleRun.__new__(SampleRun)
    dry_run.steps = [step]
    [preview] = step_previews(dry_run)  # the preview before a generated pipeline is accepted
    assert preview.rows == [[shown]]
