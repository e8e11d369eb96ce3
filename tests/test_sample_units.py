"""The sample tier's small parts: when it runs, what it asks, how an API's shape is described,
and the settings `validation.dry_run` / `dry_run_attempts` with their sources."""

from __future__ import annotations

import json

import pytest

from osiris.errors import SettingsError
from osiris.sample.facts import describe_shape
from osiris.sample.policy import SampleRunPolicy, question, sources, systems
from osiris.settings import load_settings
from tests.conftest import cli_env, write_settings
from tests.conftest import osiris_here as run_osiris  # in-process: tests/inprocess.py

PG_READ = {"id": "read", "component": "postgres.extractor", "mode": "read",
           "config": {"connection": "@postgres.default", "table": "t"}}
API_READ = {"id": "api", "component": "rest.extractor", "mode": "read",
            "config": {"base_url": "https://api.example.com/v1", "endpoint": "/users"}}
CSV_READ = {"id": "csv", "component": "filesystem.csv_extractor", "mode": "read", "config": {"path": "data/a.csv"}}
CSV_WRITE = {"id": "out", "component": "filesystem.csv_writer", "mode": "write", "config": {"path": "out/a.csv"}}


def test_the_question_names_what_the_pipeline_reads():
    pipeline = {"steps": [PG_READ, API_READ, CSV_READ, CSV_WRITE]}
    assert question(10, sources(pipeline)) == (
        "Test on 10 sample rows from @postgres.default, api.example.com and data/a.csv? [Y/n] ")
    assert question(5, sources({"steps": [PG_READ]})) == "Test on 5 sample rows from @postgres.default? [Y/n] "


def test_ask_asks_once_and_the_answer_holds_for_the_session():
    asked: list[str] = []
    policy = SampleRunPolicy("ask", 10, ask=lambda text: asked.append(text) or False)
    pipeline = {"steps": [PG_READ, CSV_WRITE]}
    assert [policy.wants_run(pipeline) for _ in range(3)] == [False, False, False]
    assert asked == ["Test on 10 sample rows from @postgres.default? [Y/n] "]


def test_ask_leaves_local_file_pipelines_alone_and_sample_tests_them():
    files_only = {"steps": [CSV_READ, CSV_WRITE]}
    assert systems(files_only) == []
    assert SampleRunPolicy("ask", 10, ask=lambda text: pytest.fail("asked")).wants_run(files_only) is False
    assert SampleRunPolicy("sample", 10).wants_run(files_only) is True
    assert SampleRunPolicy("off", 10, ask=lambda text: True).wants_run({"steps": [PG_READ]}) is False
    assert SampleRunPolicy("ask", 10).wants_run({"steps": [PG_READ]}) is False  # nobody to ask: generate


def test_an_api_shape_names_keys_and_types_never_values():
    body = {"meta": {"next": "c5"}, "data": {"items": [{"id": 7, "email": "ada@x.org", "vip": True,
                                                        "tags": ["a"], "address": {"city": "Oslo"}}]}}
    lines = describe_shape(body)
    assert lines == [
        "the response body's top level is an object with keys: meta (object), data (object)",
        "records at data_path 'data.items': 1 objects; keys of the first record (values withheld): "
        "id (number), email (string), vip (boolean), tags (array), address (object: city)",
    ]
    assert "ada@x.org" not in "".join(lines) and "Oslo" not in "".join(lines)
    assert describe_shape([1, 2]) == ["the response body is a list of 2 number (values withheld)"]


def test_dry_run_settings_precedence_cli_over_env_over_file(tmp_path):
    write_settings(tmp_path, {"validation": {"dry_run": "off", "retry": {"dry_run_attempts": 2}}})
    from_file = load_settings(cwd=tmp_path, env={})
    assert from_file.settings.validation.dry_run == "off"  # YAML 1.1 reads a bare off as false: taken as 'off'
    assert from_file.source("validation.dry_run") == str(tmp_path / ".osiris.yaml")
    assert from_file.settings.validation.retry.dry_run_attempts == 2
    env = {"OSIRIS_VALIDATION_DRY_RUN": "sample"}
    from_env = load_settings(cwd=tmp_path, env=env)
    assert (from_env.settings.validation.dry_run, from_env.source("validation.dry_run")) == (
        "sample", "env OSIRIS_VALIDATION_DRY_RUN")
    from_cli = load_settings(cli={"validation": {"dry_run": "off"}}, cwd=tmp_path, env=env)
    assert (from_cli.settings.validation.dry_run, from_cli.source("validation.dry_run")) == ("off", "cli")
    empty = tmp_path / "empty"
    empty.mkdir()
    write_settings(empty, {})
    defaults = load_settings(cwd=empty, env={})
    assert defaults.settings.validation.dry_run == "ask" and defaults.settings.validation.retry.dry_run_attempts == 2


def test_a_bad_dry_run_value_names_its_source_and_the_choices(tmp_path):
    with pytest.raises(SettingsError) as raised:
        load_settings(cwd=tmp_path, env={"OSIRIS_VALIDATION_DRY_RUN": "always"})
    assert str(raised.value) == ("env OSIRIS_VALIDATION_DRY_RUN: validation.dry_run = 'always' is not allowed; "
                                 "it must be one of: off, ask, sample")
    write_settings(tmp_path, {"validation": {"retry": {"dry_run_attempts": 9}}})
    with pytest.raises(SettingsError, match="dry_run_attempts = 9 is not allowed; it must be a whole number from 0 to 5"):
        load_settings(cwd=tmp_path, env={})


def test_config_show_prints_the_dry_run_settings_with_their_sources(project):
    done = run_osiris("config", "show", "--json", cwd=project, env=cli_env(OSIRIS_VALIDATION_DRY_RUN="off"))
    shown = json.loads(done.stdout)
    assert shown["validation.dry_run"] == {"value": "off", "source": "env OSIRIS_VALIDATION_DRY_RUN"}
    assert shown["validation.retry.dry_run_attempts"] == {"value": 2, "source": "default"}
    assert shown["validation.sample_rows"] == {"value": 10, "source": "default"}


@pytest.mark.parametrize("flags", [("--sample-run", "--no-sample-run"), ("--dry-run", "--no-dry-run"),
                                   ("--sample-run", "--no-dry-run")])
def test_the_flags_are_mutually_exclusive(project, flags):
    done = run_osiris("generate", "x", *flags, cwd=project)
    assert done.returncode == 2
    assert "argument --no-sample-run/--no-dry-run: not allowed with argument --sample-run/--dry-run" in done.stderr


def test_a_sample_retry_asks_to_change_what_the_runtime_errors_name():
    from osiris.prompt.retry import build_retry_prompt
    from osiris.validate.issue import Issue

    issue = Issue("OML502", 5, "error", "/steps/0/config", "step 'x' failed on sample rows: column \"a\" does not exist")
    prompt = build_retry_prompt([issue], "steps: []", [], lambda i: i.code, sample_facts=["table t has columns: b integer"],
                                sample_rows=10)
    assert prompt.startswith("Your previous pipeline is valid OML, but it failed when Osiris ran it on sample data "
                             "(10 rows a source; writes rolled back).")
    assert "What the sample run showed (names and types only; values withheld):\n- table t has columns: b integer" in prompt
    assert prompt.endswith("Change only what these runtime errors point at (a column, a table, a data_path, a key), "
                           "using the real names the sample run showed; keep everything else unchanged. Answer with "
                           "the complete corrected pipeline in one ```yaml block and no other text.")
    assert "Keep the valid content (queries" not in prompt


def test_a_sample_run_that_breaks_outside_every_step_leaves_the_pipeline_untested(tmp_path, monkeypatch):
    """Plants the fault by replacing the runtime entry point (a broken install cannot be made here)."""
    from osiris.retry.result import Attempt
    from osiris.retry.samples import try_on_samples
    from osiris.sample import tier as tier_module
    from osiris.sample.sample_run import SampleOptions
    from osiris.sample.tier import SampleTier
    from osiris.secrets.redact import Redactor
    from osiris.session import Session
    from osiris.validate.issue import ValidationReport

    def broken(*args, **kwargs):
        raise OSError("disk full")

    monkeypatch.setattr(tier_module, "sample_run", broken)
    session = Session.create(tmp_path, provider="fake", model="fake", redactor=Redactor(), settings={}, command="test")
    pipeline = {"steps": [CSV_READ, CSV_WRITE]}
    attempt = Attempt(1, "generate", "p", "a", ValidationReport(pipeline=pipeline, oml_text="x"))
    seen: list = []
    tier = SampleTier(SampleRunPolicy("sample", 10), SampleOptions(10, {}, {}, tmp_path), session, save_samples=False)

    try_on_samples(tier, 1, attempt, 3, None, seen.append)

    assert attempt.valid and attempt.dry_run.status == "skipped"
    assert attempt.dry_run.reason == "the sample run stopped: disk full"  # no Python class name (issue 22)
    assert type(seen[-1]).__name__ == "SamplesTested"


def test_the_dry_run_budget_default_is_what_the_docs_say(project):
    """docs/configuration.md's table, docs/sample-run.md's budget section and `config show` agree."""
    import re

    from tests.support import REPO

    shown = json.loads(run_osiris("config", "show", "--json", cwd=project, env=cli_env()).stdout)
    default = shown["validation.retry.dry_run_attempts"]
    table = re.search(r"^\| `validation.retry.dry_run_attempts` \| `(\d+)` \|", (REPO / "docs" / "configuration.md")
                      .read_text(), re.MULTILINE)
    budget = re.search(r"`validation.retry.dry_run_attempts`\n\(default \*\*(\d+)\*\*", (REPO / "docs" / "sample-run.md")
                       .read_text())
    assert default == {"value": int(table.group(1)), "source": "default"} == {"value": int(budget.group(1)),
                                                                            "source": "default"}
    assert default["value"] == 2


def test_an_api_shape_shows_keys_made_from_data_as_column_n():
    """Keys the pipeline, the catalog or the engines' vocabulary do not know may be data (an object
    keyed by customers): `column_<n>` in its object, and a path made of them loses its unknown words."""
    from osiris.trust.engine_words import Known

    body = {"Ann-CANARY-7731": [{"id": 1, "Bob-CANARY-1234": {"name": 2, "Cy-CANARY-99": 3}}]}
    lines = describe_shape(body, Known.of({"data_path": "items"}))
    assert lines == [
        "the response body's top level is an object with keys: column_1 (array)",
        "records at data_path '(…)': 1 objects; keys of the first record (values withheld): "
        "id (number), column_2 (object: name, column_2)",
    ]
    assert "CANARY" not in "".join(lines)
