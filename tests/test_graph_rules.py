"""The step graph (tier 4, ADR 0051), pinned issue by issue: code, pointer and message.

Written from bench/mutation.py's survivors (issue 15): a cycle that does not pass through the first
step, a second unknown `needs` entry, and the one rule of what a step depends on.
"""

from __future__ import annotations

from typing import Any

import pytest

from osiris.oml.step_graph import input_step, run_order, step_dependencies
from tests.validate_helpers import oml, step, validator

VALIDATOR = validator()


def csv_read(step_id: str, needs: list[str] | None = None, **extra: Any) -> dict[str, Any]:
    return step(step_id, "filesystem.csv_extractor", "read", {"path": f"data/{step_id}.csv"}, needs=needs, **extra)


def issues(*steps: dict[str, Any]) -> list[tuple[str, str, str]]:
    return [(i.code, i.path, i.message) for i in VALIDATOR.validate(oml(*steps)).issues]


def test_a_cycle_that_does_not_pass_through_the_first_step_is_reported_once():
    found = issues(csv_read("a"), csv_read("b", needs=["a", "c"]), csv_read("c", needs=["b"]))
    assert found == [("OML402", "/steps/1/needs/1", "steps depend on each other in a cycle: b -> c -> b")]


def test_a_three_step_cycle_after_the_first_step_starts_at_its_earliest_step():
    found = issues(csv_read("a"), csv_read("b", needs=["d"]), csv_read("c", needs=["b"]), csv_read("d", needs=["c"]))
    assert found == [("OML402", "/steps/1/needs/0", "steps depend on each other in a cycle: b -> d -> c -> b")]


def test_two_separate_cycles_are_two_issues():
    found = issues(csv_read("a", needs=["b"]), csv_read("b", needs=["a"]),
                   csv_read("c", needs=["d"]), csv_read("d", needs=["c"]))
    assert found == [
        ("OML402", "/steps/0/needs/0", "steps depend on each other in a cycle: a -> b -> a"),
        ("OML402", "/steps/2/needs/0", "steps depend on each other in a cycle: c -> d -> c"),
    ]


def test_every_unknown_needs_entry_is_reported_not_only_the_first():
    found = issues(csv_read("a"), csv_read("b", needs=["x", "y"]))
    assert found == [
        ("OML401", "/steps/1/needs/0", "step 'b' needs 'x', which is not a step id"),
        ("OML401", "/steps/1/needs/1", "step 'b' needs 'y', which is not a step id"),
    ]


def test_unknown_needs_hints_name_the_earlier_steps_or_say_it_is_the_first():
    report = VALIDATOR.validate(oml(csv_read("a", needs=["zz"]), csv_read("read-users"),
                                    csv_read("c", needs=["read-usres"])))
    hints = [(i.path, i.hint) for i in report.issues]
    assert hints == [
        ("/steps/0/needs/0", "use the id of an earlier step; this is the first step: remove needs"),
        ("/steps/2/needs/0", "replace 'read-usres' with 'read-users' in needs; earlier steps: a, read-users"),
    ]


def test_a_later_step_named_in_needs_or_inputs_is_oml401_with_a_move_hint():
    report = VALIDATOR.validate(oml(csv_read("a"), csv_read("b", needs=[], inputs={"df": "${c.df}"}),
                                    csv_read("c", needs=["a"])))
    assert [(i.code, i.path, i.message, i.hint) for i in report.issues] == [
        ("OML401", "/steps/1/inputs/df", "step 'b' needs 'c', which comes later in the pipeline",
         "move step 'c' above step 'b': a step may only need earlier steps, because steps run in the order "
         "they are written"),
    ]


def test_self_dependency_is_oml403_and_not_also_a_cycle():
    found = issues(csv_read("a"), csv_read("b", needs=["b", "a"]))
    assert found == [("OML403", "/steps/1/needs/0", "step 'b' depends on itself")]


def test_earlier_needs_are_valid():
    assert issues(csv_read("a"), csv_read("b", needs=["a"]), csv_read("c", needs=["a", "b"])) == []


@pytest.mark.parametrize("steps, index, expected", [
    ([{"id": "a"}, {"id": "b", "mode": "write"}], 1, ["a"]),  # no needs and no inputs: the step before
    ([{"id": "a"}, {"id": "b", "mode": "transform"}], 1, ["a"]),
    ([{"id": "a"}, {"id": "b", "mode": "read"}], 1, []),  # a read takes no rows from the step before
    ([{"id": "a", "mode": "write"}], 0, []),  # the first step depends on nothing
    ([{"name": "no-id"}, {"id": "b", "mode": "write"}], 1, []),  # the step before has no id
    (["not-a-step", {"id": "b", "mode": "write"}], 1, []),
    ([{"id": "a"}, {"id": "b", "mode": "transform", "needs": []}], 1, []),  # needs: [] means no dependency
    ([{"id": "a"}, {"id": "b"}, {"id": "c", "needs": ["b", "a", "b", 7]}], 2, ["b", "a"]),
    ([{"id": "a"}, {"id": "b"}, {"id": "c", "needs": ["a"], "inputs": {"x": "${b.df}", "y": "${a.df}"}}],
     2, ["a", "b"]),  # needs first, then inputs, each id once
    ([{"id": "a"}, {"id": "b", "inputs": {"x": "${ a.df }", "y": "plain"}}], 1, ["a"]),
    ([{"id": "a"}, "not-a-step"], 1, []),
])
def test_dependencies_of(steps, index, expected):
    assert step_dependencies(steps, index) == expected


def test_the_run_order_of_steps_with_earlier_dependencies_is_the_written_order():
    assert run_order([{"id": "b"}, {"id": "a"}, {"name": "x"}, "y", {"id": 3}]) == ["b", "a"]


@pytest.mark.parametrize("value, expected", [
    ("${extract-users.df}", "extract-users"), ("${ a.df }", "a"), ("${a}", None), ("a.df", None), (7, None),
])
def test_input_step(value, expected):
    assert input_step(value) == expected


def test_a_step_without_an_id_does_not_stop_the_checks_of_the_steps_after_it():
    idless = {"component": "filesystem.csv_extractor", "mode": "read", "config": {"path": "x.csv"}}
    found = issues(csv_read("a"), idless, csv_read("c", needs=["ghost"]))
    assert found[-1] == ("OML401", "/steps/2/needs/0", "step 'c' needs 'ghost', which is not a step id")


def test_a_later_need_inside_a_cycle_does_not_hide_a_later_need_outside_it():
    found = issues(csv_read("a", needs=["b"]), csv_read("b", needs=["a"]), csv_read("c", needs=["d"]),
                   csv_read("d", needs=[]))
    assert found == [
        ("OML402", "/steps/0/needs/0", "steps depend on each other in a cycle: a -> b -> a"),
        ("OML401", "/steps/2/needs/0", "step 'c' needs 'd', which comes later in the pipeline"),
    ]


def test_a_cycle_entered_from_an_earlier_step_is_found():
    # a -> b -> c -> b: the search reaches the cycle from outside it, through a.
    found = issues(csv_read("a", needs=["b"]), csv_read("b", needs=["c"]), csv_read("c", needs=["b"]))
    assert [(code, path) for code, path, _ in found] == [("OML401", "/steps/0/needs/0"), ("OML402", "/steps/1/needs/0")]
    assert found[1][2] == "steps depend on each other in a cycle: b -> c -> b"


def test_a_cycle_after_a_step_already_searched_is_found():
    found = issues(csv_read("a", needs=["b"]), csv_read("b", needs=[]), csv_read("c", needs=["d"]),
                   csv_read("d", needs=["c"]))
    assert ("OML402", "/steps/2/needs/0", "steps depend on each other in a cycle: c -> d -> c") in found


def test_the_cycle_issue_carries_the_need_it_points_at():
    report = VALIDATOR.validate(oml(csv_read("a", needs=["b"]), csv_read("b", needs=["a"])))
    assert [(i.code, i.value) for i in report.issues] == [("OML402", "b")]


def test_the_first_step_needing_a_misspelt_later_id_gets_a_suggestion():
    report = VALIDATOR.validate(oml(csv_read("a", needs=["read-usrs"]), csv_read("read-users")))
    assert [i.hint for i in report.issues] == [
        "use the id of an earlier step (did you mean 'read-users'?); this is the first step: remove needs"]


def test_a_step_that_needs_an_already_searched_step_is_no_cycle():
    found = issues(csv_read("a", needs=["b"]), csv_read("b", needs=[]), csv_read("c", needs=["a"]))
    assert found == [("OML401", "/steps/0/needs/0", "step 'a' needs 'b', which comes later in the pipeline")]
