"""One contract from validate to run (issue 24): over seeded random pipelines (tests/random_pipelines.py),
whenever the validator says valid, the engine runs every step: nothing escapes `run_pipeline` (that
is `osiris run`'s internal error, exit 5), and no step fails with what validation could have found
(OML401, OML405, OML407, OML409) or with anything else, since every file the pipelines read exists.
The big campaign is bench/differential.py; this draws a fixed 120 pipelines (a few seconds)."""

from __future__ import annotations

import collections
from pathlib import Path

import pytest
import yaml

from osiris.run.duckdb_run import RunOptions, RunResult, StepResult, run_pipeline
from tests.random_pipelines import random_pipeline, write_data
from tests.validate_helpers import validator

SEEDS = range(120)
VALIDATION_COULD_KNOW = {"OML401", "OML405", "OML407", "OML409"}


class Quiet:
    def step_started(self, step: StepResult) -> None: ...
    def step_progress(self, step: StepResult, rows: int) -> None: ...
    def step_finished(self, step: StepResult) -> None: ...


def run_valid(pipeline: dict, root: Path) -> RunResult:
    return run_pipeline(pipeline, RunOptions(connections={}, env={}, base_dir=root), Quiet())


@pytest.fixture(scope="module")
def verdicts(tmp_path_factory: pytest.TempPathFactory) -> list[tuple[int, list[str], RunResult | None]]:
    """(seed, the validator's error codes, the run's result when valid) for every seed."""
    root = tmp_path_factory.mktemp("differential")
    write_data(root)
    checker = validator()
    found = []
    for seed in SEEDS:
        report = checker.validate(yaml.safe_dump(random_pipeline(seed), sort_keys=False))
        result = run_valid(report.pipeline, root) if report.valid and report.pipeline else None
        found.append((seed, report.error_codes, result))
    return found


def test_every_valid_pipeline_runs_every_step(verdicts):
    for seed, _, result in verdicts:
        if result is None:
            continue
        failed = {s.step_id: (s.status, s.problem.code if s.problem else None) for s in result.steps if s.status != "ok"}
        assert failed == {}, (seed, failed, yaml.safe_dump(random_pipeline(seed), sort_keys=False))
        codes = {s.problem.code for s in result.steps if s.problem}
        assert not codes & VALIDATION_COULD_KNOW, seed


def test_the_draw_holds_both_verdicts_and_the_shapes_the_rules_are_about(verdicts):
    """The differential proves something only if many pipelines are valid and many are refused
    for each graph rule; a generator change that loses a form fails here."""
    valid = sum(1 for _, codes, _ in verdicts if not codes)
    refused = collections.Counter(code for _, codes, _ in verdicts for code in codes)
    assert valid >= 25, valid
    for code in ("OML401", "OML407", "OML409", "OML214", "OML215"):
        assert refused[code] >= 2, (code, refused)


def test_a_pipeline_with_every_dependency_form_is_valid_and_runs_in_written_order(tmp_path):
    write_data(tmp_path)
    pipeline = yaml.safe_load("""
oml_version: "0.1.0"
name: every-form
steps:
  - {id: read-a, component: filesystem.csv_extractor, mode: read, config: {path: data/people.csv}}
  - {id: keep, component: duckdb.processor, mode: transform, config: {query: "SELECT id, city FROM input_df"}}
  - {id: read_b, component: filesystem.csv_extractor, mode: read, needs: [keep], config: {path: data/places.csv}}
  - id: both
    component: duckdb.processor
    mode: transform
    needs: [keep]
    inputs: {df: "${ read_b.rows }"}
    config: {query: "SELECT id, city FROM df_keep UNION ALL SELECT id, city FROM df_read_b"}
  - {id: w, component: filesystem.csv_writer, mode: write, inputs: {df: "${both.df}"}, config: {path: out/all.csv}}
  - {id: w-2, component: filesystem.csv_writer, mode: write, needs: [read-a], config: {path: out/a.csv}}
""")
    report = validator().validate(yaml.safe_dump(pipeline, sort_keys=False))
    assert report.valid, [i.to_dict() for i in report.errors]
    result = run_valid(report.pipeline, tmp_path)
    assert [(s.step_id, s.status, s.rows_out) for s in result.steps] == [
        ("read-a", "ok", 3), ("keep", "ok", 3), ("read_b", "ok", 2), ("both", "ok", 5), ("w", "ok", 5),
        ("w-2", "ok", 3)]
    assert (tmp_path / "out" / "all.csv").read_text().splitlines()[1:] == ["1,Oslo", "2,Rome", "3,Oslo", "7,Lima",
                                                                            "8,Oslo"]
