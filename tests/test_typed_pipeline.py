"""The validator hands the engines typed objects (osiris/oml/pipeline.py, issue 37): a valid report
carries a frozen Pipeline whose Steps hold their id, component, mode, effective config, the ids they
need and their checks; an invalid one carries none. The old dict fields stay as they were."""

from __future__ import annotations

import dataclasses

import pytest

from osiris.oml.config import StepConfig
from osiris.oml.pipeline import Pipeline, Step
from tests.validate_helpers import oml, step, validator

READ = step("extract", "mysql.extractor", "read",
            {"connection": "@mysql.default", "table_name": "customers", "batch_size": "500"})
TRANSFORM = step("shape", "duckdb.processor", "transform", {"query": "SELECT * FROM df_extract"},
                 checks=[{"not_null": ["id"]}])
WRITE = step("write-csv", "filesystem.csv_writer", "write", {"path": "out/customers.csv"})


def test_a_valid_report_carries_the_pipeline_as_typed_steps():
    report = validator().validate(oml(READ, TRANSFORM, WRITE))
    assert report.valid, report.errors
    pipeline = report.typed_pipeline
    assert isinstance(pipeline, Pipeline)
    assert pipeline.name == "customers-to-csv"
    assert [(s.id, s.component, s.mode) for s in pipeline.steps] == [
        ("extract", "mysql.extractor", "read"), ("shape", "duckdb.processor", "transform"),
        ("write-csv", "filesystem.csv_writer", "write")]
    # no `needs` written: a transform and a write take the step before them (osiris/oml/step_graph.py)
    assert [s.needs for s in pipeline.steps] == [(), ("extract",), ("shape",)]
    assert [c.label for c in pipeline.step("shape").checks] == ["not_null(id)"]


def test_a_steps_config_is_its_effective_config():
    report = validator().validate(oml(READ, TRANSFORM, WRITE))
    assert report.typed_pipeline is not None
    extract = report.typed_pipeline.step("extract")
    assert isinstance(extract.config, StepConfig)
    assert extract.config is report.step_configs["extract"]  # one object, the same the runtime reads today
    assert extract.config.config == {"connection": "@mysql.default", "table": "customers", "batch_size": 500}
    assert extract.config.defaults["port"] == 3306


def test_the_old_dict_fields_stay():
    report = validator().validate(oml(READ, TRANSFORM, WRITE))
    assert report.pipeline is not None and report.typed_pipeline is not None
    assert report.typed_pipeline.document is report.pipeline
    assert report.pipeline["steps"][0]["config"]["table"] == "customers"  # alias renamed in the dict too


def test_the_run_order_follows_needs():
    late = step("late", "filesystem.csv_writer", "write", {"path": "out/late.csv"}, needs=["extract"])
    early = {**READ, "needs": []}
    report = validator().validate(oml(early, late))
    assert report.typed_pipeline is not None
    assert [s.id for s in report.typed_pipeline.in_run_order()] == ["extract", "late"]
    assert report.typed_pipeline.step("late").needs == ("extract",)
    with pytest.raises(KeyError):
        report.typed_pipeline.step("missing")


def test_an_invalid_pipeline_has_no_typed_form():
    broken = step("extract", "mysql.extractor", "read", {"connection": "@mysql.default"})  # no table nor query
    report = validator().validate(oml(broken, WRITE))
    assert not report.valid
    assert report.typed_pipeline is None


def test_the_typed_objects_are_frozen():
    report = validator().validate(oml(READ, TRANSFORM, WRITE))
    assert report.typed_pipeline is not None
    first: Step = report.typed_pipeline.steps[0]
    with pytest.raises(dataclasses.FrozenInstanceError):
        first.id = "other"  # type: ignore[misc]


def test_a_steps_config_holds_its_parameters_values():
    with_param = step("extract", "mysql.extractor", "read", {"connection": "@mysql.default", "table": "${params.table}"})
    text = oml(with_param, WRITE, params={"table": {"default": "customers"}})
    report = validator().validate(text, params={"table": "orders"})  # --param beats the default
    assert report.valid, report.errors
    assert report.typed_pipeline is not None
    assert report.typed_pipeline.step("extract").config.config["table"] == "orders"
    assert report.typed_pipeline.step("write-csv").needs == ("extract",)
