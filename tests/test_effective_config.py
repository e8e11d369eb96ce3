"""The effective config (osiris/oml/config.py, issue 24): validation works out each step's config
(aliases renamed, values coerced, the spec's defaults for what the step leaves out) and hands it
to the runtime; a driver's StepContext.config is that config under the resolved connection and the
step's own values. Checked from the validator's report to what `osiris run` and the sample tier
hand a real driver."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest
import yaml

from osiris.oml.config import StepConfig
from osiris.run import drivers
from osiris.run.driver import StepContext, StepOutcome
from osiris.run.duckdb_run import RunOptions, run_pipeline
from tests.run_helpers import RunProject, csv_step
from tests.test_contract_differential import Quiet
from tests.validate_helpers import oml, step, validator


def test_the_report_carries_each_steps_effective_config():
    mysql = step("extract", "mysql.extractor", "read",
                 {"connection": "@mysql.default", "table_name": "customers", "batch_size": "500"})
    report = validator().validate(oml(mysql, {**csv_step("write-csv", "write", "out.csv"), "needs": ["extract"]}))
    assert report.valid, report.errors
    effective = report.step_configs["extract"]
    assert effective.config == {"connection": "@mysql.default", "table": "customers", "batch_size": 500}
    assert effective.defaults == {"host": "localhost", "port": 3306, "offset": 0, "pool_size": 5,
                                  "pool_recycle": 3600, "echo": False}
    assert report.step_configs["write-csv"].defaults["quoting"] == "minimal"


def test_defaults_go_under_the_connection_and_the_step():
    effective = StepConfig({"table": "t"}, {"host": "localhost", "port": 3306, "batch_size": 10000})
    resolved = {"host": "db.internal", "port": 3307, "table": "t", "batch_size": 500}
    assert effective.merged(resolved) == {"host": "db.internal", "port": 3307, "batch_size": 500, "table": "t"}


class Recording:
    """Wraps the real driver of a family and keeps each StepContext.config it is handed."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.configs: dict[str, Mapping[str, Any]] = {}
        self.roots: dict[str, Any] = {}  # where each step's files may be (ctx.files, docs/security.md)
        real = drivers.driver_for

        def driver_for(component: str) -> Any:
            driver = real(component)
            recording = self

            class Recorded:
                def run(self, ctx: StepContext) -> StepOutcome:
                    recording.configs[ctx.step_id] = dict(ctx.config)
                    recording.roots[ctx.step_id] = ctx.files.root if ctx.files else None
                    return driver.run(ctx)
            return Recorded()
        monkeypatch.setattr(drivers, "driver_for", driver_for)


@pytest.fixture
def project(tmp_path: Path) -> RunProject:
    proj = RunProject(tmp_path / "project")
    (proj.root / "people.csv").write_text("id;city\n1;Oslo\n2;Rome\n")
    return proj


def test_osiris_run_hands_each_driver_its_effective_config(project, monkeypatch):
    recorded = Recording(monkeypatch)
    path = project.pipeline([csv_step("read", "read", "people.csv", delimiter=";"),
                             csv_step("write", "write", "out/people.csv")])
    assert project.run(str(path)).returncode == 0
    read, write = recorded.configs["read"], recorded.configs["write"]
    assert {k: read[k] for k in ("path", "delimiter", "header", "encoding", "skip_rows", "compression")} == {
        "path": "people.csv", "delimiter": ";", "header": True, "encoding": "utf-8", "skip_rows": 0,
        "compression": "infer"}
    assert {k: write[k] for k in ("delimiter", "quoting", "newline", "create_dirs")} == {
        "delimiter": ",", "quoting": "minimal", "newline": "lf", "create_dirs": True}
    # since issue 22 the engine hands a driver where its files may be (ctx.files), not a base_dir in its config
    assert "base_dir" not in read and recorded.roots["read"] == project.root.resolve()
    assert (project.root / "out" / "people.csv").read_bytes() == b"id,city\n1,Oslo\n2,Rome\n"


def test_the_sample_tier_hands_the_attempts_effective_config_to_the_run(project, monkeypatch):
    from osiris.retry.result import Attempt
    from osiris.retry.samples import try_on_samples
    from osiris.sample.sample_run import SampleOptions
    from osiris.sample.policy import SampleRunPolicy
    from osiris.sample.tier import SampleTier
    from osiris.secrets.redact import Redactor
    from osiris.session import Session

    recorded = Recording(monkeypatch)
    text = oml(csv_step("read", "read", "people.csv", delimiter=";"), csv_step("write", "write", "out/p.csv"))
    report = validator().validate(text)
    session = Session.create(project.root / "sessions", provider="fake", model="fake", redactor=Redactor(),
                             settings={}, command="test")
    tier = SampleTier(SampleRunPolicy("sample", 2), SampleOptions(2, {}, {}, project.root), session, save_samples=False)
    attempt = Attempt(1, "generate", "p", text, report)
    try_on_samples(tier, 1, attempt, 3, None, lambda event: None)
    assert attempt.dry_run.status == "passed"
    assert recorded.configs["write"]["quoting"] == "minimal" and recorded.configs["read"]["header"] is True


def test_without_a_report_the_engine_runs_the_step_config_as_written(project):
    pipeline = yaml.safe_load(oml(csv_step("read", "read", "people.csv", delimiter=";")))
    result = run_pipeline(pipeline, RunOptions(connections={}, env={}, base_dir=project.root), Quiet())
    assert [(s.status, s.rows_out) for s in result.steps] == [("ok", 2)]
