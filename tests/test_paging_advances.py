"""Paging that cannot advance is an error, never exit 0 with part of the data (issue 35): a paginated
GraphQL query that never reads its cursor variable is refused before anything runs (OML416); at run
time a page that repeats, or a next cursor that does not move, fails the step with OML535 naming the
paging setting to check (tests/test_run_http_limits.py has each paging style). Runs go to the local API
of tests/servers/http_apis.py, whose GraphQL endpoint, like a real one, pages only a query that
passes `after: $after`."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.api_fixtures import api, api_server  # noqa: F401 (fixtures)
from tests.run_helpers import RunProject, csv_step
from tests.servers.http_apis import RECORDS, ApiServer
from tests.validate_helpers import oml, step, validator

VALIDATOR = validator()
IGNORES = "query Items($first: Int, $after: String) { items(first: $first) { nodes pageInfo } }"
READS = "query Items($first: Int, $after: String) { items(first: $first, after: $after) { nodes pageInfo } }"
HINT = ("declare it and pass it to the paged field, e.g. query($first: Int, $after: String) { items(first: $first, "
        "after: $after) { nodes { id } pageInfo { hasNextPage endCursor } } }; or set pagination_variable_name to "
        "the variable the query reads")


def graphql(query: str, endpoint: str = "https://api.example.com/graphql", **extra: Any) -> dict[str, Any]:
    return step("get", "graphql.extractor", "read",
                {"endpoint": endpoint, "query": query, "variables": {"first": 5}, "pagination_enabled": True,
                 "pagination_path": "data.items.pageInfo", "data_path": "data.items.nodes", **extra})


def found(*steps: dict[str, Any]) -> list[tuple[str, str, str, str]]:
    return [(i.code, i.path, i.message, i.hint) for i in VALIDATOR.validate(oml(*steps)).issues if i.code == "OML416"]


def test_a_paginated_query_that_only_declares_its_cursor_variable_is_refused():
    assert found(graphql(IGNORES)) == [(
        "OML416", "/steps/0/config/query",
        "step 'get' pages with pagination_enabled, but its query never uses the cursor variable $after, so every "
        "page would be the first one again", HINT)]


def test_a_query_without_any_variable_is_refused_under_the_variable_name_it_is_given():
    [(_, _, message, _)] = found(graphql("{ items { nodes pageInfo } }", pagination_variable_name="cursor"))
    assert "never uses the cursor variable $cursor," in message


@pytest.mark.parametrize("query, extra", [
    (READS, {}),
    ("query($n: Int, $c: String) {\n items(first: $n, after: $c) { nodes pageInfo } }", {"pagination_variable_name": "c"}),
    (IGNORES, {"pagination_enabled": False}),  # one request: no cursor to send
])
def test_a_query_that_reads_its_cursor_or_does_not_page_is_not_refused(query, extra):
    assert found(graphql(query, **extra)) == []


@pytest.mark.parametrize("query", [
    'query($after: String) { items(filter: "$after") { nodes } }',  # in a string, not read
    "query($after: String) { items { nodes } # after: $after\n }",  # in a comment
    "query($after: String, $afterward: String) { items(after: $afterward) { nodes } }",  # another variable
])
def test_the_variable_only_in_a_string_a_comment_or_another_name_is_not_a_use(query):
    assert [code for code, *_ in found(graphql(query))] == ["OML416"]


@pytest.fixture
def project(tmp_path: Path) -> RunProject:
    return RunProject(tmp_path / "project")


def test_run_refuses_the_query_before_any_request_and_the_hints_fix_reads_every_record(
        project: RunProject, api: ApiServer) -> None:  # noqa: F811
    steps = [graphql(IGNORES, endpoint=f"{api.url}/graphql"), csv_step("out", "write", "items.csv")]
    path = project.pipeline(steps)
    result = project.run(str(path))
    assert result.returncode == 1
    assert ("OML416 step 'get' pages with pagination_enabled, but its query never uses the cursor variable $after"
            in result.stderr)
    assert api.hits("/graphql") == [] and not (project.root / "items.csv").exists()
    fixed = project.pipeline([graphql(READS, endpoint=f"{api.url}/graphql"), steps[1]], name="fixed")
    assert project.run(str(fixed)).returncode == 0
    lines = (project.root / "items.csv").read_text().splitlines()
    assert len(lines) == 1 + len(RECORDS)


def test_an_api_that_ignores_the_page_parameter_never_exits_0(project: RunProject, api: ApiServer) -> None:  # noqa: F811
    path = project.pipeline([{"id": "get", "component": "rest.extractor", "mode": "read",
                               "config": {"base_url": api.url, "endpoint": "/same", "pagination": "page",
                                          "data_path": "items"}},
                             csv_step("out", "write", "same.csv")])
    result = project.run(str(path))
    assert result.returncode == 6
    assert result.stderr.splitlines()[:2] == [
        f"{path} OML535 step 'get': paging of {api.url}/same did not advance: page 2 held the same records as page 1, "
        "so the rest of the data cannot be read",
        "    hint: check that the API pages by the parameter 'page' (page_param; pagination: page); set page_param to "
        "the one its documentation names"]
    assert not (project.root / "same.csv").exists()
