"""osiris.run.graphql_selection: the columns a GraphQL query selects at a data_path, from its text
alone (what an empty answer's table is made of), and the plain reason when the text cannot tell."""

from __future__ import annotations

import pytest

from osiris.run.graphql_selection import Unknowable, columns_at

QUERY = '''
# the cursor variable's default holds braces and a quote: "{ x }"
query Items($first: Int = 5, $after: String = "}{") {
  items(first: $first, after: $after, filter: {name: "a } b", tags: ["{"]}) @cached(ttl: 60) {
    nodes {
      id
      label: name
      ...More @include(if: $withMore)
      ... on Item { id extra }
      meta { rank }
    }
    pageInfo { hasNextPage endCursor }
  }
}
fragment More on Item { note(format: """a block string with } and {""") meta { tags } }
'''


@pytest.mark.parametrize("path, flat, columns", [
    ("data.items.nodes", False, ["id", "label", "note", "meta", "extra"]),  # each response key once, in order
    ("data.items.0.nodes", False, ["id", "label", "note", "meta", "extra"]),  # an index stands for each item
    ("data.items.pageInfo", True, ["hasNextPage", "endCursor"]),
    ("data.items", False, ["nodes", "pageInfo"]),
    ("data.items.nodes.0.id", True, ["value"]),  # a list of plain values: {"value": item}
])
def test_the_columns_are_the_response_keys_at_data_path(path: str, flat: bool, columns: list[str]) -> None:
    assert columns_at(QUERY, path, flat=flat) == columns


@pytest.mark.parametrize("query, path, why", [
    (QUERY, "data.items.nodes", "'meta' has a sub-selection, and with flatten_result it becomes columns (meta_...) "
                                "if the API answers an object, one column (meta) if it answers a list"),
    (QUERY, "items.nodes", "data_path 'items.nodes' does not start at the answer's data"),
    (QUERY, "data.items.edges", "data_path 'data.items.edges' leaves the query's selection at 'edges'"),
    ("{ items { nodes { ...Gone } } }", "data.items.nodes", "the fragment 'Gone' is not in the query"),
    ("{ a { ...F } } fragment F on A { ...F }", "data.a", "the fragment 'F' spreads itself"),
    ("query A { a { id } } query B { b { id } }", "data.a",
     "the query holds 2 operations, and the step sends no operation name"),
    ("{ items { id ID } }", "data.items", "fields 'id' and 'ID' differ only by case, which the engine's columns "
                                          "cannot tell apart"),
    ("{ items { id ", "data.items", "the query cannot be read: it ends inside a selection"),
    ("{ items { ! } }", "data.items", "the query cannot be read: '!' where a field was expected"),
    ("{ items { id ~ } }", "data.items", "the query cannot be read at character 14"),
])
def test_what_the_query_cannot_tell_is_said_plainly(query: str, path: str, why: str) -> None:
    with pytest.raises(Unknowable) as caught:
        columns_at(query, path, flat=True)
    assert str(caught.value) == why
