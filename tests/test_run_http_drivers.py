"""The rest and graphql drivers, called in process as the engine calls them (a real DuckDB, a
StepContext), against the local API of tests/servers/http_apis.py. Each test asserts the rows in
DuckDB, the requests the server received, or the exact OML5xx message a person sees.

Nothing is mocked but the wait between retries: `osiris.run.http.sleep` is replaced by a recorder,
so the tests assert the waits the driver chose (retry-after honoured and capped, backoff doubled)
without sleeping them.
"""

from __future__ import annotations

import base64
import socket
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import duckdb
import pytest

from osiris.run import http
from osiris.run.driver import RuntimeProblem, StepContext, StepOutcome
from osiris.run.drivers import driver_for
from tests.api_fixtures import api, api_server  # noqa: F401  (fixtures)
from tests.effective_config import effective
from tests.servers.http_apis import API_KEY, PASSWORD, RECORDS, TOKEN, USER, ApiServer
from tests.servers.process import free_port

ALL_IDS = [r["id"] for r in RECORDS]
PLANTED = [TOKEN, API_KEY, PASSWORD, base64.b64encode(f"{USER}:{PASSWORD}".encode()).decode()]


@pytest.fixture
def waits(monkeypatch: pytest.MonkeyPatch) -> list[float]:
    recorded: list[float] = []
    monkeypatch.setattr(http, "sleep", recorded.append)
    return recorded


def run(component: str, config: dict[str, Any], sample: int | None = None) -> tuple[StepOutcome, list[tuple]]:
    con = duckdb.connect()
    ctx = StepContext("get", component, "read", effective(component, config), con, "df_get", {}, sample=sample,
                      secrets=tuple(PLANTED))
    outcome = driver_for(component).run(ctx)
    return outcome, con.execute("SELECT * FROM df_get").fetchall()


def fails(component: str, config: dict[str, Any]) -> RuntimeProblem:
    with pytest.raises(RuntimeProblem) as caught:
        run(component, config)
    problem = caught.value
    for secret in PLANTED:
        assert secret not in problem.message and secret not in problem.hint
    return problem


def rest(api: ApiServer, endpoint: str, **extra: Any) -> dict[str, Any]:
    return {"base_url": api.url, "endpoint": endpoint, **extra}


STYLES = {
    "none": ("/all", {"data_path": "data.items"}),
    "page": ("/page", {"pagination": "page", "data_path": "items", "params": {"per": 5}}),
    "offset": ("/offset", {"pagination": "offset", "page_param": "offset", "data_path": "items",
                           "params": {"per": 5}}),
    "cursor": ("/cursor", {"pagination": "cursor", "cursor_path": "meta.next_cursor", "data_path": "results",
                           "params": {"per": 5}}),
    "link_header": ("/link", {"pagination": "link_header", "params": {"per": 5}}),
}
# What each style sends, page after page, for 23 records in pages of 5.
SENT = {
    "none": [{}],
    "page": [{"page": str(n), "per": "5"} for n in range(1, 6)],
    "offset": [{"offset": str(n), "per": "5"} for n in range(0, 25, 5)],
    "cursor": [{"per": "5"}] + [{"per": "5", "cursor": f"c{n}"} for n in range(5, 25, 5)],
    "link_header": [{"per": "5"}] + [{"page": str(n), "per": "5"} for n in range(2, 6)],
}


@pytest.mark.parametrize("style", list(STYLES))
def test_each_pagination_style_reads_every_record_once(api: ApiServer, style: str) -> None:
    endpoint, extra = STYLES[style]
    outcome, rows = run("rest.extractor", rest(api, endpoint, **extra))
    assert [row[0] for row in rows] == ALL_IDS
    assert outcome.rows_out == 23
    assert [r.query for r in api.hits(endpoint)] == SENT[style]


@pytest.mark.parametrize("style", list(STYLES))
def test_a_sample_reads_exactly_n_records_and_stops_paging(api: ApiServer, style: str) -> None:
    endpoint, extra = STYLES[style]
    outcome, rows = run("rest.extractor", rest(api, endpoint, **extra), sample=7)
    assert [row[0] for row in rows] == ALL_IDS[:7]
    assert outcome.rows_out == 7
    assert len(api.hits(endpoint)) == (1 if style == "none" else 2)


def test_page_paging_ends_on_an_empty_page_when_pages_are_full(api: ApiServer) -> None:
    _, rows = run("rest.extractor", rest(api, "/page", pagination="page", data_path="items", params={"per": 23}))
    assert len(rows) == 23
    assert [r.query["page"] for r in api.hits("/page")] == ["1", "2"]


def test_max_pages_ends_paging(api: ApiServer) -> None:
    _, rows = run("rest.extractor", rest(api, "/page", pagination="page", data_path="items", params={"per": 5},
                                         max_pages=2))
    assert [row[0] for row in rows] == ALL_IDS[:10]
    assert len(api.hits("/page")) == 2


def test_nested_objects_become_struct_columns(api: ApiServer) -> None:
    outcome, rows = run("rest.extractor", rest(api, "/all", data_path="data.items"))
    assert outcome.columns == [("id", "BIGINT"), ("name", "VARCHAR"), ("meta", "STRUCT(rank BIGINT, tags VARCHAR[])")]
    assert rows[0] == (1, "item-1", {"rank": 1, "tags": ["t1"]})


def test_an_empty_answer_is_an_empty_table_with_a_warning(api: ApiServer) -> None:
    outcome, rows = run("rest.extractor", rest(api, "/offset", pagination="offset", page_param="offset",
                                               data_path="items", params={"offset": 100}))
    assert rows == []
    assert outcome.warnings == ["the API returned no records; the output table is empty, with one JSON column, "
                                "record (no catalog for it)"]


@pytest.mark.parametrize(
    ("endpoint", "auth", "header", "value"),
    [
        ("/bearer", {"auth_type": "bearer", "auth_token": TOKEN}, "authorization", f"Bearer {TOKEN}"),
        ("/basic", {"auth_type": "basic", "auth_username": USER, "auth_token": PASSWORD}, "authorization",
         "Basic " + base64.b64encode(f"{USER}:{PASSWORD}".encode()).decode()),
        ("/apikey", {"auth_type": "api_key", "auth_token": API_KEY}, "x-api-key", API_KEY),
    ],
)
def test_each_auth_type_sends_its_credential(api: ApiServer, endpoint: str, auth: dict, header: str,
                                             value: str) -> None:
    _, rows = run("rest.extractor", rest(api, endpoint, data_path="items", **auth))
    assert len(rows) == 23
    assert api.hits(endpoint)[0].headers[header] == value


def test_api_key_goes_in_the_named_header(api: ApiServer) -> None:
    run("rest.extractor", rest(api, "/all", auth_type="api_key", auth_token=API_KEY, auth_header_name="X-Token",
                               data_path="data.items"))
    assert api.hits("/all")[0].headers["x-token"] == API_KEY


@pytest.mark.parametrize(
    "auth",
    [{"auth_type": "bearer", "auth_token": TOKEN}, {"auth_type": "api_key", "auth_token": TOKEN},
     {"auth_type": "basic", "auth_username": USER, "auth_token": TOKEN}],
)
def test_401_is_oml506(api: ApiServer, auth: dict) -> None:
    path = "/basic" if auth["auth_type"] == "bearer" else "/bearer"  # a credential the route does not accept
    problem = fails("rest.extractor", rest(api, path, **auth))
    assert (problem.code, problem.message) == ("OML506", f"authentication failed: GET {api.url}{path} answered "
                                                          "401 Unauthorized")
    assert problem.hint == "Check the connection's credentials (auth_token, auth_username or key) and auth_type."


def test_403_is_oml507(api: ApiServer) -> None:
    problem = fails("rest.extractor", rest(api, "/forbidden", auth_type="bearer", auth_token=TOKEN))
    assert (problem.code, problem.message) == ("OML507", f"permission denied: GET {api.url}/forbidden answered "
                                                          "403 Forbidden")


def test_404_is_oml508_and_the_url_drops_its_query_string(api: ApiServer) -> None:
    problem = fails("rest.extractor", rest(api, "/nowhere", params={"access_token": TOKEN, "q": "x"}))
    assert (problem.code, problem.message) == ("OML508", f"HTTP 404 Not Found from GET {api.url}/nowhere")
    assert problem.hint == ('Check the URL and endpoint: the server has no such resource. It answered: '
                            '{"error": "not found"}')


def test_500_is_retried_then_oml508(api: ApiServer, waits: list[float]) -> None:
    problem = fails("rest.extractor", rest(api, "/broken", max_retries=2))
    assert (problem.code, problem.message) == ("OML508", f"HTTP 500 Internal Server Error from GET "
                                                          f"{api.url}/broken after 2 retries")
    assert len(api.hits("/broken")) == 3
    assert waits == [0.0, 0.0]  # the server's retry-after: 0


def test_429_is_retried_honouring_retry_after(api: ApiServer, waits: list[float]) -> None:
    outcome, rows = run("rest.extractor", rest(api, "/busy", data_path="items", max_retries=3))
    assert len(rows) == 3
    assert len(api.hits("/busy")) == 3
    assert waits == [0.0, 0.0]
    assert outcome.warnings == []


def test_a_long_retry_after_is_capped_at_60_seconds_and_said(api: ApiServer, waits: list[float]) -> None:
    api.busy_retry_after = "300"
    outcome, rows = run("rest.extractor", rest(api, "/busy", data_path="items", max_retries=3))
    assert len(rows) == 3
    assert waits == [60.0, 60.0]
    assert outcome.warnings == ["the server asked to wait 300 s before retrying; waited 60 s (the cap)"] * 2


def test_retries_stop_after_max_retries(api: ApiServer, waits: list[float]) -> None:
    problem = fails("rest.extractor", rest(api, "/slow", max_retries=1))
    assert problem.message == f"HTTP 429 Too Many Requests from GET {api.url}/slow after 1 retry"
    assert len(api.hits("/slow")) == 2
    assert waits == [60.0]


def test_connection_refused_is_retried_with_doubling_backoff_then_oml505(waits: list[float]) -> None:
    port = free_port()
    problem = fails("rest.extractor", {"base_url": f"http://127.0.0.1:{port}", "endpoint": "/x", "max_retries": 2})
    assert (problem.code, problem.message) == ("OML505", f"cannot connect to http://127.0.0.1:{port}/x: "
                                                          "connection refused")
    assert waits == [1.0, 2.0]


def test_an_unknown_host_is_oml505() -> None:
    problem = fails("rest.extractor", {"base_url": "http://no-such-host.invalid", "endpoint": "/x", "max_retries": 0})
    assert problem.message == "cannot connect to http://no-such-host.invalid/x: host name not found"


@contextmanager
def silent_port() -> Iterator[int]:
    """A port on 127.0.0.1 that accepts connections (into its backlog) but never answers."""
    with socket.socket() as silent:
        silent.bind(("127.0.0.1", 0))
        silent.listen(4)
        yield silent.getsockname()[1]


def test_a_server_that_never_answers_times_out_as_oml505() -> None:
    with silent_port() as port:
        problem = fails("rest.extractor", {"base_url": f"http://127.0.0.1:{port}", "endpoint": "/x", "timeout": 1,
                                           "max_retries": 0})
    assert problem.message == f"cannot connect to http://127.0.0.1:{port}/x: no complete answer within 1 s"


def test_a_body_that_is_not_json_is_oml515(api: ApiServer) -> None:
    problem = fails("rest.extractor", rest(api, "/html"))
    assert (problem.code, problem.message) == ("OML515", f"invalid API response from {api.url}/html: the body is "
                                                          "not JSON (text/html)")


def test_a_data_path_that_matches_nothing_is_oml509_with_the_keys_found(api: ApiServer) -> None:
    problem = fails("rest.extractor", rest(api, "/cursor", data_path="data.items"))
    assert (problem.code, problem.message) == ("OML509", f"no records at data_path 'data.items' in the response of "
                                                          f"{api.url}/cursor")
    assert problem.hint == ("The response's top-level keys are: meta, results. Set data_path to the dotted path of "
                            "the list of records.")


def test_an_error_body_echoing_the_token_is_masked(api: ApiServer) -> None:
    problem = fails("rest.extractor", rest(api, "/echo-token", auth_type="bearer", auth_token=TOKEN,
                                           params={"api_key": API_KEY}))
    assert problem.code == "OML508"
    assert "***" in problem.hint


@pytest.mark.parametrize("endpoint", ["/forbidden", "/nowhere", "/echo-token", "/broken", "/html", "/all"])
@pytest.mark.parametrize("auth", [{"auth_type": "bearer", "auth_token": TOKEN},
                                  {"auth_type": "api_key", "auth_token": API_KEY},
                                  {"auth_type": "basic", "auth_username": USER, "auth_token": PASSWORD}])
def test_no_planted_secret_reaches_a_message(api: ApiServer, waits: list[float], endpoint: str, auth: dict) -> None:
    fails("rest.extractor", rest(api, endpoint, data_path="nope", max_retries=1,
                                 params={"token": TOKEN, "key": API_KEY}, **auth))  # `fails` scans the message


GRAPHQL = {"query": "query Items($first: Int, $after: String) { items(first: $first, after: $after) { nodes pageInfo } }",
           "variables": {"first": 5},
           "pagination_enabled": True, "pagination_path": "data.items.pageInfo", "data_path": "data.items.nodes"}


def test_graphql_follows_the_cursor_in_page_info(api: ApiServer) -> None:
    outcome, rows = run("graphql.extractor", {"endpoint": f"{api.url}/graphql", **GRAPHQL})
    assert [row[0] for row in rows] == ALL_IDS
    assert [r.body["variables"] for r in api.hits("/graphql")] == (
        [{"first": 5}] + [{"first": 5, "after": str(n)} for n in range(5, 25, 5)]
    )
    assert outcome.columns == [("id", "BIGINT"), ("name", "VARCHAR"), ("meta_rank", "BIGINT"),
                               ("meta_tags", "VARCHAR[]")]


def test_graphql_without_flattening_keeps_struct_columns(api: ApiServer) -> None:
    outcome, _ = run("graphql.extractor", {"endpoint": f"{api.url}/graphql", **GRAPHQL, "flatten_result": False})
    assert ("meta", "STRUCT(rank BIGINT, tags VARCHAR[])") in outcome.columns


def test_graphql_sample_stops_paging(api: ApiServer) -> None:
    _, rows = run("graphql.extractor", {"endpoint": f"{api.url}/graphql", **GRAPHQL}, sample=7)
    assert [row[0] for row in rows] == ALL_IDS[:7]
    assert len(api.hits("/graphql")) == 2


def test_graphql_without_pagination_sends_one_request(api: ApiServer) -> None:
    _, rows = run("graphql.extractor", {"endpoint": f"{api.url}/graphql", **GRAPHQL, "pagination_enabled": False})
    assert len(rows) == 5
    assert len(api.hits("/graphql")) == 1


def test_graphql_errors_are_oml515(api: ApiServer) -> None:
    problem = fails("graphql.extractor", {"endpoint": f"{api.url}/graphql", "query": "{ nope }",
                                          "auth_type": "bearer", "auth_token": TOKEN})
    assert (problem.code, problem.message) == ("OML515", f"the GraphQL endpoint {api.url}/graphql answered with "
                                                          "errors: Cannot query field 'nope' on type 'Query'")


def test_graphql_missing_page_info_is_oml509(api: ApiServer) -> None:
    problem = fails("graphql.extractor", {"endpoint": f"{api.url}/graphql", **GRAPHQL,
                                          "pagination_path": "data.pageInfo"})
    assert (problem.code, problem.message) == ("OML509", f"no pageInfo object at pagination_path 'data.pageInfo' "
                                                          f"in the response of {api.url}/graphql")
    assert problem.hint.startswith("The response's top-level keys are: data.")


def test_importing_the_http_drivers_leaves_httpx_and_duckdb_unloaded() -> None:
    import subprocess
    import sys

    code = ("import sys, osiris.run.drivers.rest, osiris.run.drivers.graphql, osiris.run.drivers.supabase; "
            "print(sorted(m for m in ('httpx', 'duckdb', '_duckdb') if m in sys.modules))")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert result.stdout.strip() == "[]"


def test_a_next_link_to_another_site_is_not_followed_and_fails_the_step(api: ApiServer) -> None:
    problem = fails("rest.extractor", rest(api, "/link-away", pagination="link_header", auth_type="bearer",
                                           auth_token=TOKEN))
    assert len(api.hits("/link-away")) == 1  # the token never goes to the other site
    assert (problem.code, problem.message) == (
        "OML535", f"paging of {api.url}/link-away did not advance: the next page after page 1 is on another site "
                  "(http://elsewhere.invalid/link), which is not followed, so the rest of the data cannot be read")


def test_progress_reports_the_rows_so_far_after_each_page(api: ApiServer) -> None:
    seen: list[int] = []
    endpoint, extra = STYLES["page"]
    ctx = StepContext("get", "rest.extractor", "read", effective("rest.extractor", rest(api, endpoint, **extra)),
                      duckdb.connect(), "df_get", {},
                      progress=seen.append)
    driver_for("rest.extractor").run(ctx)
    assert seen == [5, 10, 15, 20, 23]


def test_graphql_sends_the_auth_header_and_the_variables(api: ApiServer) -> None:
    run("graphql.extractor", {"endpoint": f"{api.url}/graphql", **GRAPHQL, "pagination_enabled": False,
                              "auth_type": "bearer", "auth_token": TOKEN})
    sent = api.hits("/graphql")[0]
    assert sent.headers["authorization"] == f"Bearer {TOKEN}"
    assert sent.body == {"query": GRAPHQL["query"], "variables": {"first": 5}}


@pytest.mark.parametrize("style", ["page", "offset"])
def test_an_api_that_ignores_the_page_parameter_fails_the_step(api: ApiServer, style: str) -> None:
    problem = fails("rest.extractor", rest(api, "/same", pagination=style, data_path="items"))
    assert len(api.hits("/same")) == 2
    assert (problem.code, problem.message, problem.hint) == (
        "OML535", f"paging of {api.url}/same did not advance: page 2 held the same records as page 1, so the rest "
                  "of the data cannot be read",
        f"check that the API pages by the parameter 'page' (page_param; pagination: {style}); set page_param to "
        "the one its documentation names")


def test_graphql_errors_sent_with_a_400_are_oml515(api: ApiServer) -> None:
    problem = fails("graphql.extractor", {"endpoint": f"{api.url}/graphql", "query": "invalid {"})
    assert (problem.code, problem.message) == ("OML515", f"the GraphQL endpoint {api.url}/graphql answered with "
                                                          "errors: Syntax Error: Unexpected Name 'invalid'")


def test_a_graphql_400_without_errors_is_oml508(api: ApiServer) -> None:
    problem = fails("graphql.extractor", {"endpoint": f"{api.url}/graphql", "query": "bare400"})
    assert (problem.code, problem.message) == ("OML508", f"HTTP 400 Bad Request from POST {api.url}/graphql")


def test_a_redirect_on_the_same_site_is_followed(api: ApiServer) -> None:
    _, rows = run("rest.extractor", rest(api, "/moved", data_path="data.items", auth_type="api_key",
                                         auth_token=API_KEY))
    assert len(rows) == 23
    assert api.hits("/all")[0].headers["x-api-key"] == API_KEY


def test_a_redirect_to_another_site_is_refused(api: ApiServer) -> None:
    problem = fails("rest.extractor", rest(api, "/away", auth_type="api_key", auth_token=API_KEY))
    assert (problem.code, problem.message) == ("OML508", f"HTTP 302 Found from GET {api.url}/away: a redirect to "
                                                          "another site (http://elsewhere.invalid/steal), not followed")


@pytest.mark.parametrize(("style", "extra", "sent"), [
    ("page", {}, {"page": "1", "per_page": "5"}),
    ("offset", {"page_param": "offset"}, {"offset": "0", "limit": "5"}),
    ("cursor", {"cursor_path": "meta.next_cursor"}, {"limit": "5"}),
    ("page", {"page_size_param": "per"}, {"page": "1", "per": "5"}),
])
def test_page_size_is_sent_as_the_apis_parameter(api: ApiServer, style: str, extra: dict, sent: dict) -> None:
    endpoint = {"page": "/page", "offset": "/offset", "cursor": "/cursor"}[style]
    run("rest.extractor", rest(api, endpoint, pagination=style, data_path="results" if style == "cursor" else "items",
                               page_size=5, **extra))
    assert api.hits(endpoint)[0].query == sent


def test_page_size_is_what_the_api_pages_by(api: ApiServer) -> None:
    outcome, rows = run("rest.extractor", rest(api, "/page", pagination="page", data_path="items", page_size=10,
                                               page_size_param="per"))
    assert [row[0] for row in rows] == ALL_IDS
    assert [r.query for r in api.hits("/page")] == [{"page": str(n), "per": "10"} for n in (1, 2, 3)]


def test_without_page_size_no_size_is_sent(api: ApiServer) -> None:
    run("rest.extractor", rest(api, "/page", pagination="page", data_path="items"))
    assert api.hits("/page")[0].query == {"page": "1"}
