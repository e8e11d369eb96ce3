"""Issue 8: one complete report, hints that fit, public Osiris's forms, and the dependency rule."""

from __future__ import annotations

import pytest

from osiris.prompt.retry import build_retry_prompt
from osiris.explain import compact
from osiris.oml.step_graph import run_order, step_dependencies
from tests.inprocess import run_inprocess as run_osiris  # in-process: tests/inprocess.py
from tests.validate_helpers import csv_step, extract_step, oml, step, validator


def codes_at(report):
    return [(i.code, i.path) for i in report.issues]


def hint(report, code):
    return next(i.hint for i in report.issues if i.code == code)


# --- one complete report ---------------------------------------------------------------------

def test_a_step_with_an_unknown_key_still_gets_its_config_checks():
    writer = step("write", "supabase.writer", "write", {"connection": "@supabase.default", "table": "t",
                                                        "write_mode": "insrt"}, needs=["extract-customers"],
                  colour="blue")
    report = validator().validate(oml(extract_step(), writer))

    assert ("OML209", "/steps/1/colour") in codes_at(report)
    assert ("OML307", "/steps/1/config/write_mode") in codes_at(report)


def test_structural_errors_in_one_step_do_not_hide_config_or_graph_errors_of_others():
    broken = step("extract-customers", "mysql.extractor", "extract", {"connection": "@mysql.default",
                                                                    "table": "t", "batch_size": 50})
    report = validator().validate(oml(broken, csv_step(needs=["extract-customer"])))

    assert set(codes_at(report)) >= {("OML212", "/steps/0/mode"), ("OML306", "/steps/0/config/batch_size"),
                                     ("OML401", "/steps/1/needs/0")}


def test_only_an_unparseable_document_stops_everything():
    report = validator().validate("oml_version: '0.1.0'\nsteps: [\n")

    assert [i.code for i in report.issues] == ["OML101"]


# --- locations and syntax excerpts -------------------------------------------------------------

BROKEN_YAML = 'oml_version: "0.1.0"\nname: x\nsteps:\n  - id: a\n    config: {path: [a, b}\n'


def test_a_syntax_error_reaches_the_llm_with_line_column_and_a_caret():
    answer = "Here it is:\n\n```yaml\n" + BROKEN_YAML + "```\n"
    report = validator().validate(answer)
    prompt = build_retry_prompt(report.errors, report.oml_text, [], compact)

    [issue] = report.errors
    assert (issue.line, issue.column) == (5, 25)  # of the pipeline, not of the answer
    assert "(line 5, column 25)\n    3 | steps:\n    4 |   - id: a\n    5 |     config: {path: [a, b}\n" \
           "      |                         ^" in prompt


def test_validate_shows_the_person_the_excerpt(tmp_path):
    (tmp_path / "bad.yaml").write_text(BROKEN_YAML)

    done = run_osiris("validate", "bad.yaml", cwd=tmp_path)

    assert done.returncode == 1
    assert done.stdout.splitlines()[2:6] == ["    3 | steps:", "    4 |   - id: a",
                                             "    5 |     config: {path: [a, b}", "      |                         ^"]


# --- hints -------------------------------------------------------------------------------------

def test_an_unknown_component_is_not_replaced_by_one_of_another_mode():
    report = validator().validate(oml(extract_step(), step("w", "snowflake.writer", "write", {}, needs=["extract-customers"])))

    text = hint(report, "OML301")
    assert "supabase.writer" in text and "use component" not in text
    assert text.startswith("there is no snowflake component for mode write; the system may not be supported. "
                           "Components for mode write:")
    assert "mysql.extractor" not in text


def test_a_close_name_is_suggested_only_when_it_supports_the_mode():
    close = validator().validate(oml(step("r", "mysql.extracter", "read", {"connection": "@mysql.default", "table": "t"})))
    wrong_mode = validator().validate(oml(step("r", "mysql.reader", "read", {"connection": "@mysql.default", "table": "t"})))

    assert hint(close, "OML301") == "use component: mysql.extractor"
    assert hint(wrong_mode, "OML301") == "use component: mysql.extractor"  # never mysql.writer in read mode


def test_an_enum_synonym_from_the_spec_is_the_hint():
    writer = step("w", "supabase.writer", "write", {"connection": "@supabase.default", "table": "t",
                                                    "write_mode": "insert"}, needs=["extract-customers"])
    report = validator().validate(oml(extract_step(), writer))

    assert hint(report, "OML307") == ("set write_mode to one of: 'append', 'replace', 'upsert' "
                                      "('insert' is called 'append' here: use 'append')")


def test_a_range_hint_names_the_nearest_bound():
    report = validator().validate(oml(extract_step(batch_size=50), csv_step()))

    assert hint(report, "OML306") == "set batch_size: 100, the nearest allowed value (allowed: between 100 and 100000)"


def test_a_constraint_hint_says_what_is_wrong_with_a_present_field():
    writer = step("w", "supabase.writer", "write", {"project_id": "", "table": "t"}, needs=["extract-customers"])
    report = validator().validate(oml(extract_step(), writer))

    assert hint(report, "OML309") == ("project_id is set to '', but '' should be non-empty; change its value "
                                      "(needed when url is not set)")


# --- public Osiris's forms ---------------------------------------------------------------------

def test_inputs_and_extension_keys_are_accepted_and_inputs_is_a_dependency():
    writer = step("write-csv", "filesystem.csv_writer", "write", {"path": "o.csv", "x-note": "kept"},
                  inputs={"df": "${extract-customers.df}"}, **{"x-owner": "data-team"})
    report = validator().validate(oml(extract_step(), writer, **{"x-team": "bi"}))

    assert report.valid, codes_at(report)
    assert step_dependencies(report.pipeline["steps"], 1) == ["extract-customers"]


def test_inputs_must_name_an_earlier_step():
    writer = step("write-csv", "filesystem.csv_writer", "write", {"path": "o.csv"}, inputs={"df": "${extract-clients.df}"})
    report = validator().validate(oml(extract_step(), writer))

    assert ("OML401", "/steps/1/inputs/df") in codes_at(report)


def test_a_forward_need_is_rejected_with_a_hint_to_move_the_step():
    first = csv_step(needs=["extract-customers"])
    report = validator().validate(oml(first, extract_step()))

    [issue] = report.errors
    assert (issue.code, issue.path) == ("OML401", "/steps/0/needs/0")
    assert issue.hint.startswith("move step 'extract-customers' above step 'write-csv'")


def test_a_step_without_needs_depends_on_the_previous_one_and_steps_run_as_written():
    steps = [extract_step(), step("t", "duckdb.processor", "transform", {"query": "select 1"}),
             step("u", "duckdb.processor", "transform", {"query": "select 1"}, needs=[])]

    assert [step_dependencies(steps, i) for i in range(3)] == [[], ["extract-customers"], []]
    assert run_order(steps) == ["extract-customers", "t", "u"]


def test_supabase_replace_needs_a_primary_key_as_in_public_osiris():
    writer = step("w", "supabase.writer", "write", {"connection": "@supabase.default", "table": "t",
                                                    "write_mode": "replace", "ddl_channel": "auto"},
                  needs=["extract-customers"])
    report = validator().validate(oml(extract_step(), writer))

    assert codes_at(report) == [("OML309", "/steps/1/config/primary_key")]


@pytest.mark.parametrize("schedule, valid", [("0 2 * * *", True), ("*/15 9-17 * * MON-FRI", True),
                                             ("0 2 * *", False), ("61 * * * *", False), ("@daily", False)])
def test_schedule_is_a_five_field_cron(schedule, valid):
    report = validator().validate(oml(schedule=schedule))

    assert report.valid is valid
    if not valid:
        assert [i.code for i in report.errors] == ["OML213"]


def test_a_cron_macro_gets_its_five_field_form():
    assert hint(validator().validate(oml(schedule="@daily")), "OML213") == \
        'write schedule: "0 0 * * *" (the 5-field form of @daily); the five fields, separated by spaces, are minute ' \
        "(0-59) hour (0-23) day-of-month (1-31) month (1-12) day-of-week (0-7, 0 and 7 are Sunday)"


def test_a_missing_mode_is_named_when_the_component_has_one():
    legacy = 'oml_version: "0.1.0"\nname: x\ntasks:\n  - id: a\n    type: mysql.extractor\n' \
             '    config: {connection: "@mysql.default", table: t}\n'

    assert hint(validator().validate(legacy), "OML208") == "add mode: read (the only mode mysql.extractor supports)"


def test_generate_shows_the_person_the_syntax_error_in_the_saved_pipeline(project, fake_api):
    from tests.conftest import osiris_here as run_with_key
    from tests.engine_samples import VALID, fenced
    from tests.fake_anthropic import Reply

    fake_api.add(Reply(fenced(BROKEN_YAML)), Reply(fenced(VALID)))

    done = run_with_key("generate", "copy the customers", cwd=project)

    assert done.returncode == 0, done.stderr
    assert "(line 5, column 25): YAML syntax error" in done.stderr
    assert "    5 |     config: {path: [a, b}\n      |                         ^\n" in done.stderr


def test_chat_shows_the_person_the_syntax_error_in_the_pipeline(project, fake_api):
    from tests.conftest import TEST_API_KEY, cli_env
    from tests.engine_samples import VALID, fenced
    from tests.fake_anthropic import Reply

    fake_api.add(Reply(fenced(BROKEN_YAML)), Reply(fenced(VALID)))

    done = run_osiris("chat", cwd=project, env=cli_env(ANTHROPIC_API_KEY=TEST_API_KEY), input="copy the customers\nn\n")

    assert done.returncode == 0, done.stderr
    out = done.stdout + done.stderr
    assert "(line 5, column 25): YAML syntax error" in out
    assert "    5 |     config: {path: [a, b}\n" in out and "      |                         ^\n" in out


def test_an_inputs_value_that_is_not_a_step_reference_is_reported():
    writer = step("write-csv", "filesystem.csv_writer", "write", {"path": "o.csv"}, inputs={"df": "extract.df"})
    report = validator().validate(oml(extract_step(), writer))

    assert codes_at(report) == [("OML205", "/steps/1/inputs")]
