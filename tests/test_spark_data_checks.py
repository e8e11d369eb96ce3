"""Checks on data on the Spark engine (docs/run-again.md, docs/spark.md): the same results and lines
as on DuckDB (tests/test_checks.py); an error-level failure stops the run before any writer commits
(CSV files and real PostgreSQL tables stay as they were), a warning-level one lets it succeed with a
warning, and no value of the data is ever said. Real local Spark (each run in-process: few runs)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.run_helpers import RunProject
from tests.test_checks import (
    FAILING_CHECKS,
    PEOPLE,
    a_transform_is_checked_on_a_sample,
    failing_check_leaves_postgres_targets,
    failure_stops_the_run_before_any_writer,
    warning_lets_the_run_succeed,
)
from tests.test_spark_incremental import on_spark

pytestmark = pytest.mark.xdist_group("spark")


@pytest.fixture
def files(tmp_path: Path) -> RunProject:
    proj = on_spark(RunProject(tmp_path / "project"))
    (proj.root / "people.csv").write_text(PEOPLE)
    (proj.root / "out.csv").write_text("before\n")
    (proj.root / "first.csv").write_text("before\n")
    return proj


@pytest.mark.parametrize("check, line", FAILING_CHECKS)
def test_an_error_level_failure_on_spark_stops_the_run_before_any_writer(files, check, line):
    failure_stops_the_run_before_any_writer(files, check, line)


def test_a_warning_level_failure_on_spark_lets_the_run_succeed_and_a_transform_is_checked(files):
    warning_lets_the_run_succeed(files)
    a_transform_is_checked_on_a_sample(files)


def test_a_failing_check_on_spark_leaves_postgres_targets_as_they_were(tmp_path: Path, postgres_server: Any):
    failing_check_leaves_postgres_targets(on_spark(RunProject(tmp_path / "project", postgres=postgres_server)),
                                          postgres_server)
