"""Hints a literal reader can apply (issue 41), one rule at a time: a constraint's field says what it
holds with the spec's example, a key from another format names its OML key, a schedule hint keeps the
timing it can read and explains the five fields otherwise, an unknown need and the table its step
reads get one fix, and the retry request carries the warnings a fix must correct too."""

from __future__ import annotations

from typing import Any

import pytest

from osiris.explain import compact
from osiris.prompt.retry import build_retry_prompt
from osiris.registry.spec import spec_from_dict
from osiris.retry.delta import FIXED_WITH_ERRORS
from osiris.validate.constraints import field_facts
from osiris.validate.issue import Issue
from osiris.validate.schedule import FIVE_FIELDS
from tests.validate_helpers import oml, step, validator

VALIDATOR = validator()


def hints(text: str) -> list[tuple[str, str, str]]:
    return [(i.code, i.path, i.hint) for i in VALIDATOR.validate(text).issues]


def read(step_id: str, **extra: Any) -> dict[str, Any]:
    return step(step_id, "filesystem.csv_extractor", "read", {"path": f"{step_id}.csv"}, **extra)


def write(**extra: Any) -> dict[str, Any]:
    return step("write-csv", "filesystem.csv_writer", "write", {"path": "out/x.csv"}, **extra)


@pytest.mark.parametrize("schedule, fix", [
    ("0 0 * * * *", '"0 * * * *" (the same times without the seconds field, which 5-field cron does not have)'),
    ("0 30 2 * * ?", '"30 2 * * *" (the same times without the seconds field, which 5-field cron does not have)'),
    ("0 2 * * ? *", '"0 2 * * *" (the same times without the year field, which 5-field cron does not have)'),
    ("0 15 * * * ? *", '"15 * * * *" (the same times without the seconds and year fields, which 5-field cron '
                       "does not have)"),
    ("0 * * * ?", "\"0 * * * *\" ('?' is written '*' in 5-field cron)"),
    ("hourly", "\"0 * * * *\" ('hourly' as cron)"),
    ("every 15 minutes", "\"*/15 * * * *\" ('every 15 minutes' as cron)"),
    ("every 6 hours", "\"0 */6 * * *\" ('every 6 hours' as cron)"),
    ("@hourly", '"0 * * * *" (the 5-field form of @hourly)'),
])
def test_a_schedule_whose_timing_can_be_read_keeps_it(schedule: str, fix: str) -> None:
    assert hints(oml(schedule=schedule)) == [("OML213", "/schedule", f"write schedule: {fix}; {FIVE_FIELDS}")]


@pytest.mark.parametrize("schedule", ["0 2 * *", "every 7 minutes", "* 0 * * * *", "0 0 2 * * ? 2027", "every night",
                                      "61 * * * *"])
def test_a_schedule_whose_timing_is_unclear_gets_the_fields_and_no_single_value_to_copy(schedule: str) -> None:
    [(code, _, hint)] = hints(oml(schedule=schedule))
    assert code == "OML213"
    assert hint.startswith("write schedule with the timing the request asked for: the five fields, separated by "
                           "spaces, are minute (0-59) hour (0-23)")
    assert '"0 * * * *" runs every hour at minute 0' in hint and '"0 2 * * *" every day at 02:00' in hint


def test_keys_from_other_formats_name_their_oml_key() -> None:
    found = hints(oml(read("a"), read("b", depends_on=["a"]), write(needs=["b"], params={"x": 1})))
    assert found == [
        ("OML209", "/steps/1/depends_on", "rename 'depends_on' to 'needs' (OML lists the ids of the earlier steps a "
                                          "step depends on under needs)"),
        ("OML209", "/steps/2/params", "move what 'params' holds into config and remove 'params' (OML puts a "
                                      "component's settings under config)"),
    ]


def test_a_key_that_is_no_other_formats_keeps_the_list_of_step_keys() -> None:
    assert hints(oml(read("a"), write(needs=["a"], colour="red")))[0][2] == (
        "step keys are: id, component, mode, config, needs, inputs, description, name, checks; component settings go "
        "under config")


def test_an_unknown_need_is_replaced_by_the_close_id_in_the_inputs_form_too() -> None:
    found = hints(oml(read("orders"), write(inputs={"df": "${order.df}"})))
    assert found == [("OML401", "/steps/1/inputs/df",
                      "replace the inputs entry that names 'order' with \"${orders.df}\"; earlier steps: orders")]


def test_a_table_the_replaced_need_supplies_is_not_reported_again() -> None:
    query = "SELECT * FROM df_customers JOIN df_orders USING (id)"
    found = hints(oml(read("customers"), read("orders"),
                      step("s", "duckdb.processor", "transform", {"query": query}, needs=["customers", "order"]),
                      write(needs=["s"])))
    assert found == [("OML401", "/steps/2/needs/1",
                      "replace 'order' with 'orders' in needs; earlier steps: customers, orders")]


def test_a_needs_list_written_by_oml407_leaves_out_an_unknown_id_without_a_close_one() -> None:
    query = "SELECT * FROM df_customers JOIN orders USING (id)"
    found = hints(oml(read("customers"), read("orders"),
                      step("s", "duckdb.processor", "transform", {"query": query}, needs=["customers", "zzz"]),
                      write(needs=["s"])))
    assert ("OML407", "/steps/2/config/query",
            "write needs: [customers, orders]; read df_orders instead of orders (the rows of step 'orders')") in found


def spec(examples: list[dict[str, Any]], description: str | None) -> Any:
    field = {"type": "string", **({"description": description} if description else {})}
    return spec_from_dict({"name": "x.extractor", "version": "1.0.0", "modes": ["extract"],
                           "configSchema": {"type": "object", "properties": {"mode": {"type": "string"},
                                                                             "key": field}},
                           "examples": examples})


def test_a_required_field_gets_the_example_of_the_matching_case_first() -> None:
    examples = [{"title": "a", "config": {"mode": "plain", "key": "first"}},
                {"title": "b", "config": {"mode": "keyed", "key": ["a", "b"]}}]
    assert field_facts("key", spec(examples, "The key column, e.g. id"), {"mode": "keyed"}) == \
        ": The key column, e.g. key: [a, b]"
    assert field_facts("key", spec(examples, None), {"mode": "other"}) == ": e.g. key: first"


def test_without_an_example_config_the_description_is_said_as_written() -> None:
    assert field_facts("key", spec([], "The key column, e.g. id"), {}) == ": The key column, e.g. id"
    assert field_facts("key", spec([], None), {}) == ""


def warning(code: str, path: str, hint: str) -> Issue:
    return Issue(code, 2, "warning", path, "a warning", hint)


def test_the_retry_request_lists_the_warnings_a_fix_must_correct_too() -> None:
    error = Issue("OML212", 2, "error", "/steps/0/mode", "bad mode", "use mode: read")
    name = warning("OML211", "/name", "use name: hourly-sync")
    prompt = build_retry_prompt([error], "steps: []", [], compact, warnings=[name])
    assert ("Fix these warnings as well: the pipeline would run with them, but they stay wrong:\n"
            "- OML211 (warning) /name: a warning | fix: use name: hourly-sync") in prompt
    sample = Issue("OML502", 5, "error", "/steps/0", "unknown column", "use id")
    assert "OML211" not in build_retry_prompt([sample], "steps: []", [], compact, warnings=[name])
    assert {"OML204", "OML211"} == FIXED_WITH_ERRORS  # by list: a stale catalogue's OML406 is not the model's to fix
