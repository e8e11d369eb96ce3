"""The step-order rule (docs/run.md) and table names."""

from __future__ import annotations

from osiris.run.plan import dependencies_of, run_order, table_name


def step(step_id: str, mode: str, **extra) -> dict:
    return {"id": step_id, "mode": mode, "component": "x.y", **extra}


def test_table_names_replace_every_non_alphanumeric_character():
    assert table_name("extract-customers.v2") == "df_extract_customers_v2"


def test_writes_and_transforms_without_needs_take_the_previous_step_reads_take_none():
    steps = [step("a", "read"), step("b", "transform"), step("c", "write"), step("d", "read"), step("e", "write")]
    assert dependencies_of(steps) == {"a": [], "b": ["a"], "c": ["b"], "d": [], "e": ["d"]}


def test_needs_and_inputs_are_both_dependencies_and_order_follows_them():
    steps = [step("w", "write", needs=["t"]), step("r1", "read"), step("r2", "read"),
             step("t", "transform", needs=["r1"], inputs={"df": "${r2.df}"})]
    assert dependencies_of(steps)["t"] == ["r1", "r2"]
    assert run_order(steps) == ["r1", "r2", "t", "w"]
