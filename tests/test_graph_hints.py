"""Graph and table hints a literal reader can follow (osiris/validate/graph_hints.py, issue 24):
what each says for a later need, a cycle and a table that is not an input."""

from __future__ import annotations

from typing import Any

from tests.validate_helpers import oml, step, validator

VALIDATOR = validator()


def read(step_id: str, **extra: Any) -> dict[str, Any]:
    return step(step_id, "filesystem.csv_extractor", "read", {"path": f"{step_id}.csv"}, **extra)


def sql(step_id: str, query: str, **extra: Any) -> dict[str, Any]:
    return step(step_id, "duckdb.processor", "transform", {"query": query}, **extra)


def hints(*steps: dict[str, Any]) -> list[tuple[str, str, str]]:
    return [(i.code, i.path, i.hint) for i in VALIDATOR.validate(oml(*steps)).issues]


def test_a_later_need_moves_with_the_steps_it_needs_in_their_order():
    found = hints(read("a"), sql("s", "SELECT * FROM df_n", needs=["n"]), read("x"), sql("n", "SELECT * FROM df_x",
                                                                                          needs=["x"]))
    assert found == [("OML401", "/steps/1/needs/0",
                      "move steps 'x', 'n' (in this order) above step 's': a step may only need earlier steps, "
                      "because steps run in the order they are written")]


def test_a_later_need_that_takes_this_steps_rows_through_the_step_before_it_is_removed_not_moved():
    found = hints(read("a"), sql("s", "SELECT * FROM df_a", needs=["a", "n"]), sql("n", "SELECT * FROM input_df"))
    assert found == [("OML401", "/steps/1/needs/1",
                      "remove 'n' from needs: 'n' takes the rows of 's' (directly or through other steps), so it "
                      "must run after it")]


def test_a_transform_left_without_input_gets_a_replacement_the_query_names():
    found = hints(read("a"), read("b"), sql("s", "SELECT * FROM df_a", needs=["n"]), sql("n", "SELECT * FROM df_s"))
    assert found[0] == ("OML401", "/steps/2/needs/0",
                        "replace 'n' with 'a' in needs: 'n' takes the rows of 's' (directly or through other "
                        "steps), so it must run after it")


def test_a_cycle_names_the_need_to_remove_in_the_inputs_form_too():
    found = hints(read("a"), sql("s", "SELECT * FROM input_df", inputs={"df": "${n.df}"}),
                  sql("n", "SELECT * FROM input_df", needs=["s"]))
    assert found == [("OML402", "/steps/1/inputs/df",
                      "replace the inputs entry that names 'n' with \"${a.df}\": 'n' takes the rows of 's' (directly "
                      "or through other steps), so it must run after it")]


def test_a_table_named_by_a_word_of_a_step_id_is_that_steps_table():
    found = hints(read("extract-customers"), read("extract-orders"),
                  sql("s", "SELECT * FROM df_extract_customers JOIN orders USING (id)", needs=["extract-customers"]))
    assert found == [("OML407", "/steps/2/config/query",
                      "write needs: [extract-customers, extract-orders]; read df_extract_orders instead of orders "
                      "(the rows of step 'extract-orders')")]


def test_a_step_without_needs_is_told_its_whole_needs_list_and_input_df_is_replaced():
    found = hints(read("customers"), read("orders"),
                  sql("s", "SELECT * FROM input_df JOIN df_customers USING (id)", needs=["orders"]))
    assert found[0][2] == ("write needs: [orders, customers]; read df_orders instead of input_df: with two inputs "
                           "there is no input_df")


def test_a_table_that_names_no_step_keeps_the_inputs_hint():
    found = hints(read("a"), sql("s", "SELECT * FROM somewhere", needs=["a"]))
    assert found == [("OML407", "/steps/1/config/query",
                      "read df_a (or input_df); a duckdb.processor reads only the rows of the steps it needs")]
