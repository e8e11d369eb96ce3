"""Data larger than the engine's memory cap: it spills, and the run succeeds (docs/run.md, ADR 0170).

60,000 rows of 1,000 characters (60 MB) under a cap lowered to 96 MB: the table and its sorted copy
(120 MB) cannot both stay in memory, so DuckDB must spill them to the run's scratch directory. With
the engine as it was (64 MB, a DuckDB thread a core) each of these failed with an out-of-memory
OML503: the CSV writer, postgres.writer and the ORDER BY transform. The cap is lowered through the
settings (`OSIRIS_RUN__MEMORY_LIMIT`, one thread): the default cap (a quarter of the machine's
memory) would hold 60 MB whole and test nothing; bench/memory.py measures it on 1 and 3 GB.
"""

from __future__ import annotations

import csv
import shutil
from pathlib import Path

import psycopg
import pytest

from tests.run_helpers import RunProject, csv_step, pg_step, sql_step

ROWS, WIDTH = 60_000, 1_000


@pytest.fixture(scope="module")
def wide_csv(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """ROWS rows of an id and WIDTH characters that sort differently from the ids."""
    path = tmp_path_factory.mktemp("wide") / "wide.csv"
    with path.open("w", encoding="utf-8", newline="") as out:
        out.write("id,txt\n")
        for i in range(ROWS):
            out.write(f"{i},{format(i * 7919 % ROWS, '06d') * (WIDTH // 6)}{'x' * (WIDTH % 6)}\n")
    return path


def project(tmp_path: Path, wide_csv: Path, postgres=None, cap_mb: int = 96) -> RunProject:
    """A project whose runs have `cap_mb` of memory on one thread (run.memory_limit, run.threads)."""
    proj = RunProject(tmp_path / "project", postgres=postgres)
    proj.env.update({"OSIRIS_RUN__MEMORY_LIMIT": f"{cap_mb}MB", "OSIRIS_RUN__THREADS": "1"})
    shutil.copyfile(wide_csv, proj.root / "wide.csv")
    return proj


def test_wide_rows_sorted_into_a_csv_file_spill_and_arrive_whole(tmp_path, wide_csv) -> None:
    proj = project(tmp_path, wide_csv)
    path = proj.pipeline([csv_step("read", "read", "wide.csv"),
                          sql_step("sort", "SELECT * FROM input_df ORDER BY txt, id"),
                          csv_step("write", "write", "sorted.csv")])
    result = proj.run(str(path))
    assert result.returncode == 0, result.stderr
    assert "sort  ok  60,000 rows" in result.stdout
    assert "write  ok  60,000 rows" in result.stdout
    with (proj.root / "sorted.csv").open(encoding="utf-8", newline="") as written:
        rows = list(csv.reader(written))
    assert rows[0] == ["id", "txt"]
    expected = sorted(csv.reader(wide_csv.open(encoding="utf-8", newline="")), key=lambda r: (r[1], r[0]))
    assert rows[1:] == [r for r in expected if r[0] != "id"]
    assert not (proj.root / ".osiris" / "tmp").exists() or not any((proj.root / ".osiris" / "tmp").iterdir())


def test_wide_rows_written_to_postgres_under_the_cap(tmp_path, wide_csv, postgres_server) -> None:
    with psycopg.connect(postgres_server.dsn(), autocommit=True) as pg:
        pg.execute("DROP TABLE IF EXISTS wide_rows")
        proj = project(tmp_path, wide_csv, postgres_server)
        path = proj.pipeline([csv_step("read", "read", "wide.csv"),
                              sql_step("sort", "SELECT * FROM input_df ORDER BY id DESC"),
                              pg_step("write", "write", table="wide_rows", create_if_missing=True)])
        result = proj.run(str(path))
        assert result.returncode == 0, result.stderr
        assert "write  ok  60,000 rows" in result.stdout
        count, total, first = pg.execute(
            "SELECT count(*), sum(length(txt)), (SELECT id FROM wide_rows ORDER BY ctid LIMIT 1) FROM wide_rows"
        ).fetchone()
        assert (count, total, first) == (ROWS, ROWS * WIDTH, ROWS - 1)
        pg.execute("DROP TABLE wide_rows")


@pytest.mark.parametrize(("last", "cap"), [("read", 24), ("sort", 64)])
def test_rows_too_wide_for_the_cap_are_one_oml526_line(tmp_path, wide_csv, last, cap) -> None:
    """Under a cap of 24 MB the CSV reader, and under 64 MB a sort, cannot hold rows of 1,000
    characters even on one thread: one line that says so, not the SQL's fault; the old file stays."""
    proj = project(tmp_path, wide_csv, cap_mb=cap)
    (proj.root / "sorted.csv").write_bytes(b"id,txt\n")
    steps = [csv_step("read", "read", "wide.csv"), csv_step("write", "write", "sorted.csv")]
    if last == "sort":
        steps.insert(1, sql_step("sort", "SELECT * FROM input_df ORDER BY txt"))
    path, stderr = proj.run_failing(steps)
    assert (f"{path} OML526 step '{last}': the step needs more memory than the engine's {cap} MB cap, even spilling to "
            "disk\n    hint: rows this wide do not fit a sort or a write under the cap: leave out wide columns the "
            "step does not need, or sort and write them in a later step; or raise run.memory_limit, or lower run.threads "
            "(docs/run.md, memory); nothing was written\n"
            ) in stderr
    assert (proj.root / "sorted.csv").read_bytes() == b"id,txt\n"
