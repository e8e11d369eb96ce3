"""The HTTP drivers against hostile servers (issue 25): a request that trickles, a gzip bomb, paging
that loops, JSON that Python reads but nothing else does, and an error body that puts the token
across the snippet's cut (issue 22). Each run ends within its deadline plus a margin with one clear
line and a defined exit code; nothing raw, no temp path, no token.

The servers are the hostile routes of tests/servers/http_apis.py on 127.0.0.1. `osiris run` runs in
process (tests/inprocess.py) with the engine's real memory cap; the driver-level tests call the
driver as the engine does (tests/test_run_http_drivers.py). Nothing is mocked. The time bounds are
upper bounds far above the deadline (a loaded machine passes them), against servers that would
otherwise go on for TRICKLE_FOR seconds or for ever.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.api_fixtures import api, api_server  # noqa: F401  (fixtures)
from tests.fake_anthropic import Reply
from tests.run_helpers import RunProject, csv_step, sql_step
from tests.sample_project import SampleProject, last_user_message, pipeline
from tests.servers.http_apis import TOKEN, ApiServer
from osiris.run import http
from tests.test_run_http_drivers import ALL_IDS, GRAPHQL, SENT, STYLES, fails, rest, run

MARGIN_S = 10.0  # far above what a cut at the deadline takes, far below the server's TRICKLE_FOR


@pytest.fixture
def proj(tmp_path: Path, api: ApiServer) -> RunProject:  # noqa: F811
    project = RunProject(tmp_path / "project")
    project.env["API_TOKEN"] = TOKEN
    project.secrets.append(TOKEN)
    # the connection says where its token goes (issue 22): steps may repeat base_url, not change it
    (project.root / ".osiris.yaml").write_text(yaml.safe_dump(
        {"connections": {"rest": {"api": {"base_url": api.url, "auth_token": "${API_TOKEN}"}}}}), encoding="utf-8")
    return project


def get(api: ApiServer, endpoint: str, **config: Any) -> dict[str, Any]:
    return {"id": "get", "component": "rest.extractor", "mode": "read",
            "config": {"base_url": api.url, "endpoint": endpoint, "data_path": "items", **config}}


def failed_run(proj: RunProject, steps: list[dict[str, Any]]) -> tuple[list[str], float, Path]:
    path = proj.pipeline(steps)
    started = time.monotonic()
    result = proj.run(str(path))
    elapsed = time.monotonic() - started
    assert result.returncode == 6, result.stderr
    assert "Traceback" not in result.stderr and "osiris-" not in result.stderr  # no temp path
    return result.stderr.splitlines(), elapsed, path


# --- one deadline for the whole request ---

@pytest.mark.parametrize("endpoint", ["/trickle-body", "/trickle-headers"])
def test_a_server_trickling_a_byte_at_a_time_is_cut_at_the_timeout(proj: RunProject, api: ApiServer,
                                                                   endpoint: str) -> None:
    lines, elapsed, path = failed_run(proj, [get(api, endpoint, timeout=2, max_retries=0)])
    assert lines[0] == f"{path} OML505 step 'get': cannot connect to {api.url}{endpoint}: no complete answer within 2 s"
    assert 2 <= elapsed < 2 + MARGIN_S
    assert len(api.hits(endpoint)) == 1


def test_each_retry_of_a_trickling_server_gets_its_own_deadline(api: ApiServer) -> None:  # noqa: F811
    started = time.monotonic()
    problem = fails("rest.extractor", {"base_url": api.url, "endpoint": "/trickle-body", "timeout": 1,
                                       "max_retries": 1, "data_path": "items"})
    assert problem.code == "OML505" and len(api.hits("/trickle-body")) == 2
    assert time.monotonic() - started < 2 + 1 + MARGIN_S  # two deadlines and the 1 s backoff


# --- the decoded size of a response ---

def test_a_gzip_bomb_is_stopped_at_the_default_cap(proj: RunProject, api: ApiServer,  # noqa: F811
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """Stopped where the cap is passed, counted in decoded bytes (a clock failed on a loaded machine:
    26.7 s against a 10 s bound)."""
    import httpx

    decoded: list[int] = []
    iter_bytes = httpx.Response.iter_bytes

    def counted(self: httpx.Response, *args: Any, **kwargs: Any) -> Any:
        for chunk in iter_bytes(self, *args, **kwargs):
            decoded.append(len(chunk))
            yield chunk

    monkeypatch.setattr(httpx.Response, "iter_bytes", counted)
    api.bomb_mb = 256  # inflates to 256 MiB; the default cap is 64
    lines, _, path = failed_run(proj, [get(api, "/bomb")])
    assert lines[:2] == [
        f"{path} OML523 step 'get': the response of GET {api.url}/bomb is larger than max_response_mb "
        "(64 MB decoded); not read further",
        "    hint: Ask for smaller pages (the API's page-size parameter in params), or raise max_response_mb in "
        "the step if the API really sends pages this large."]
    # past the cap by at most one chunk (a 64 KiB read of zeros inflates to about 64 MiB), never all 256 MiB
    assert 64 << 20 < sum(decoded) < 192 << 20


def test_max_response_mb_sets_the_cap(api: ApiServer) -> None:  # noqa: F811
    problem = fails("rest.extractor", {"base_url": api.url, "endpoint": "/big", "params": {"mb": 2},
                                       "max_response_mb": 1, "data_path": "items"})
    assert (problem.code, problem.message) == (
        "OML523", f"the response of GET {api.url}/big is larger than max_response_mb (1 MB decoded); not read further")
    outcome, rows = run("rest.extractor", {"base_url": api.url, "endpoint": "/big", "params": {"mb": 2},
                                           "max_response_mb": 3, "data_path": "items"})
    assert [row[0] for row in rows] == [1, 2]


# --- a large body waits on disk and is read a record at a time ---

def test_a_body_over_the_spill_size_is_streamed_across_two_pages(api: ApiServer) -> None:  # noqa: F811
    outcome, rows = run("rest.extractor", {"base_url": api.url, "endpoint": "/many", "params": {"mb": 18},
                                           "pagination": "cursor", "cursor_path": "meta.next", "data_path": "items"})
    assert (outcome.rows_out, len(rows)) == (2 * 18 * 1024, 2 * 18 * 1024)
    assert [rows[0][0], rows[-1][0]] == [0, 2 * 18 * 1024 - 1]
    assert [hit.query.get("cursor") for hit in api.hits("/many")] == [None, "1"]


@pytest.mark.parametrize("style", list(STYLES))
def test_every_paging_style_reads_the_same_from_a_body_on_disk(api: ApiServer, style: str,  # noqa: F811
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(http, "SPILL_BYTES", 0)  # every body, however small, takes the streamed path
    endpoint, extra = STYLES[style]
    outcome, rows = run("rest.extractor", rest(api, endpoint, **extra))
    assert [row[0] for row in rows] == ALL_IDS
    assert [r.query for r in api.hits(endpoint)] == SENT[style]


def test_a_wrong_data_path_in_a_body_on_disk_names_the_top_level_keys(api: ApiServer,  # noqa: F811
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(http, "SPILL_BYTES", 0)
    problem = fails("rest.extractor", {"base_url": api.url, "endpoint": "/cursor", "data_path": "data"})
    assert (problem.code, problem.message, problem.hint) == (
        "OML509", f"no records at data_path 'data' in the response of {api.url}/cursor",
        "The response's top-level keys are: meta, results. Set data_path to the dotted path of the list of records.")


# --- paging that loops ---

def test_a_cursor_that_comes_back_after_two_pages_fails_the_step(api: ApiServer) -> None:  # noqa: F811
    problem = fails("rest.extractor", {"base_url": api.url, "endpoint": "/cursor-loop", "pagination": "cursor",
                                       "cursor_path": "meta.next_cursor", "data_path": "results"})
    assert [hit.query.get("cursor") for hit in api.hits("/cursor-loop")] == [None, "A", "B"]
    assert (problem.code, problem.message, problem.hint) == (
        "OML535", f"paging of {api.url}/cursor-loop did not advance: the cursor after page 3 leads back to page 2, "
                  "so the rest of the data cannot be read",
        "check cursor_path ('meta.next_cursor': the next cursor in a response) and cursor_param ('cursor': the "
        "parameter it is sent back in)")


def test_a_link_header_loop_between_two_urls_fails_the_step(api: ApiServer) -> None:  # noqa: F811
    problem = fails("rest.extractor", {"base_url": api.url, "endpoint": "/link-loop",
                                       "pagination": "link_header", "params": {"page": 1}})
    assert len(api.hits("/link-loop")) == 2
    assert (problem.code, problem.message) == (
        "OML535", f"paging of {api.url}/link-loop did not advance: the link after page 2 leads back to page 1, "
                  "so the rest of the data cannot be read")
    assert problem.hint == ('check pagination: link_header: the API\'s Link rel="next" must lead to a new page of '
                            "the same site; an API whose pages are elsewhere needs its base_url, and paging by another "
                            "style")


def test_two_alternating_page_contents_fail_the_step(api: ApiServer) -> None:  # noqa: F811
    problem = fails("rest.extractor", {"base_url": api.url, "endpoint": "/flip", "pagination": "page",
                                       "data_path": "items"})
    assert [hit.query["page"] for hit in api.hits("/flip")] == ["1", "2", "3"]
    assert (problem.code, problem.message, problem.hint) == (
        "OML535", f"paging of {api.url}/flip did not advance: page 3 held the same records as page 1, so the rest "
                  "of the data cannot be read",
        "check that the API pages by the parameter 'page' (page_param; pagination: page); set page_param to the "
        "one its documentation names")


def test_a_graphql_end_cursor_alternating_x_and_y_fails_the_step(api: ApiServer) -> None:  # noqa: F811
    config = {**GRAPHQL, "variables": {"loop": True}}
    problem = fails("graphql.extractor", {"endpoint": f"{api.url}/graphql", **config})
    assert [hit.body["variables"].get("after") for hit in api.hits("/graphql")] == [None, "X", "Y"]
    assert (problem.code, problem.message) == (
        "OML535", f"paging of {api.url}/graphql did not advance: page 3 held the same records as page 1, so the "
                  "rest of the data cannot be read")


def test_a_graphql_query_that_never_reads_its_cursor_fails_at_the_second_page(api: ApiServer) -> None:  # noqa: F811
    """The issue's case: 50 of 154 records and exit 0. The cursor is sent, the query ignores it."""
    config = {**GRAPHQL, "query": "query Items($first: Int, $after: String) { items(first: $first) { nodes pageInfo } }"}
    problem = fails("graphql.extractor", {"endpoint": f"{api.url}/graphql", **config})
    assert [hit.body["variables"].get("after") for hit in api.hits("/graphql")] == [None, "5"]
    assert (problem.code, problem.message, problem.hint) == (
        "OML535", f"paging of {api.url}/graphql did not advance: page 2 held the same records as page 1, so the "
                  "rest of the data cannot be read",
        "check that the query passes $after (pagination_variable_name) to the paged field, e.g. items(first: 50, "
        "after: $after), and that pagination_cursor_field names the cursor of the page's end")


def test_a_next_cursor_that_does_not_move_fails_the_step(api: ApiServer) -> None:  # noqa: F811
    problem = fails("rest.extractor", {"base_url": api.url, "endpoint": "/stuck", "pagination": "cursor",
                                       "cursor_path": "meta.next_cursor", "data_path": "results"})
    assert [hit.query.get("cursor") for hit in api.hits("/stuck")] == [None, "S"]
    assert (problem.code, problem.message) == (
        "OML535", f"paging of {api.url}/stuck did not advance: the cursor after page 2 does not move, so the rest "
                  "of the data cannot be read")


def test_paging_that_never_ends_stops_at_the_default_max_pages_with_oml524(api: ApiServer) -> None:  # noqa: F811
    problem = fails("rest.extractor", {"base_url": api.url, "endpoint": "/endless", "pagination": "cursor",
                                       "cursor_path": "meta.next_cursor", "data_path": "results"})
    assert (problem.code, problem.message) == (
        "OML524", f"paging of {api.url}/endless did not end after 1,000 pages (the default max_pages)")
    assert problem.hint.startswith("If the API really has more pages, set max_pages to a larger number")
    assert len(api.hits("/endless")) == 1000


def test_a_max_pages_the_step_sets_stops_quietly(api: ApiServer) -> None:  # noqa: F811
    outcome, rows = run("rest.extractor", {"base_url": api.url, "endpoint": "/endless", "pagination": "cursor",
                                           "cursor_path": "meta.next_cursor", "data_path": "results",
                                           "max_pages": 3})
    assert ([row[0] for row in rows], outcome.warnings) == ([0, 1, 2], [])


# --- JSON that Python reads but nothing else does ---

def rows_written(proj: RunProject, api: ApiServer, endpoint: str, query: str, **config: Any) -> str:
    path = proj.pipeline([get(api, endpoint, **config), sql_step("pick", query), csv_step("write", "write", "out.csv")])
    result = proj.run(str(path))
    assert result.returncode == 0, result.stderr
    return (proj.root / "out.csv").read_text(encoding="utf-8")


def test_one_record_of_7_mib_loads_under_the_engines_memory_cap(proj: RunProject, api: ApiServer) -> None:
    written = rows_written(proj, api, "/big", "SELECT id, length(text) AS n FROM input_df ORDER BY id",
                           params={"mb": 7})
    assert written == "id,n\n1,7340032\n2,5\n"


def test_a_record_over_8_mib_is_one_line(proj: RunProject, api: ApiServer) -> None:
    lines, _, path = failed_run(proj, [get(api, "/big", params={"mb": 9})])
    assert lines[0] == (f"{path} OML515 step 'get': invalid API response: record 1 cannot be loaded: it is 9.0 MiB "
                        "of JSON, more than the 8 MiB a record may be")


def test_a_lone_escaped_surrogate_arrives_as_the_replacement_character(proj: RunProject, api: ApiServer) -> None:
    written = rows_written(proj, api, "/surrogate", "SELECT id, name FROM input_df ORDER BY id")
    assert written == "id,name\n1,a\ufffdb\n2,ok\n"


def test_an_integer_of_5000_digits_arrives_as_its_digits(proj: RunProject, api: ApiServer) -> None:
    # beside numbers, the digits are a JSON string in a JSON column; ->> '$' reads either as text
    written = rows_written(proj, api, "/long-int", "SELECT id, big ->> '$' AS big FROM input_df ORDER BY id")
    assert written == f"id,big\n1,{'7' * 5000}\n2,5\n"


@pytest.mark.parametrize(("depth", "why"), [
    (5000, "invalid API response from {url}/deep: the body nests deeper than Osiris reads (about 1,000 levels)"),
    (200, "invalid API response: a record cannot be loaded: it nests deeper than the 128 levels DuckDB reads"),
])
def test_deep_nesting_is_one_line(proj: RunProject, api: ApiServer, depth: int, why: str) -> None:
    lines, _, path = failed_run(proj, [get(api, "/deep", params={"depth": depth})])
    assert lines[0] == f"{path} OML515 step 'get': {why.format(url=api.url)}"


# --- nothing raw reaches the user ---

@pytest.mark.parametrize(("base_url", "reason"), [
    ("http://a..b", "the host name is not valid (a label is empty, too long, or not a valid name)"),
    ("http://xn--", "the host name is not valid (a label is empty, too long, or not a valid name)"),
    ("http://" + "a" * 70 + ".example", "the host name is not valid (a label is empty, too long, or not a valid name)"),
    ("http://exa\x00mple.org", "the URL or a header holds a control character"),
    ("ftp://example.org", "the URL does not start with http:// or https://"),
    ("http://[::1", "the URL is not valid"),
])
def test_a_url_that_cannot_be_sent_is_oml505_naming_why(base_url: str, reason: str) -> None:
    problem = fails("rest.extractor", {"base_url": base_url, "endpoint": "/x", "max_retries": 2})
    assert problem.code == "OML505"
    assert problem.message.endswith(f"/x: {reason}")
    assert "\x00" not in problem.message and "Error" not in problem.message


def test_a_redirect_or_a_next_link_that_is_not_a_url_is_one_clear_line(api: ApiServer) -> None:  # noqa: F811
    problem = fails("rest.extractor", {"base_url": api.url, "endpoint": "/bad-redirect"})
    assert (problem.code, problem.message) == (
        "OML508", f"a redirect from GET {api.url}/bad-redirect to an address that is not a URL, not followed")
    assert len(api.hits("/bad-redirect")) == 1  # not retried: a broken redirect stays broken
    problem = fails("rest.extractor", {"base_url": api.url, "endpoint": "/bad-link", "pagination": "link_header"})
    assert (problem.code, problem.message) == (
        "OML535", f"paging of {api.url}/bad-link did not advance: the next link after page 1 is not a URL, so the "
                  "rest of the data cannot be read")


def test_an_invalid_host_in_a_run_is_one_line_naming_the_step(proj: RunProject) -> None:
    path = proj.pipeline([{"id": "get", "component": "rest.extractor", "mode": "read",
                           "config": {"base_url": "http://a..b", "endpoint": "/x"}}])
    result = proj.run(str(path))
    assert result.returncode == 6
    assert result.stderr.splitlines()[0] == (f"{path} OML505 step 'get': cannot connect to http://a..b/x: the host "
                                             "name is not valid (a label is empty, too long, or not a valid name)")


# --- redact first, then cut (issue 22 item 5) ---

CUT_AT = 184  # the old 200-character cut would have kept the token's first 16 characters
PREFIX = TOKEN[:16]


def test_a_token_across_the_snippet_cut_is_masked_whole_in_every_trail(proj: RunProject, api: ApiServer) -> None:
    step = get(api, "/token-at", connection="@rest.api", auth_type="bearer", params={"at": CUT_AT})
    lines, _, path = failed_run(proj, [step])
    assert lines[:2] == [f"{path} OML508 step 'get': HTTP 400 Bad Request from GET {api.url}/token-at",
                         "    hint: The server rejected the request. It answered: (…)*** tail"]  # its own word withheld
    session = proj.last_session()
    for name in ("events.jsonl", "artifacts/run.json"):
        assert PREFIX not in (session / name).read_text(encoding="utf-8"), name


def test_the_retry_prompt_never_carries_part_of_the_token(tmp_path: Path, fake_api: Any, api: ApiServer) -> None:  # noqa: F811
    proj = SampleProject(tmp_path / "p", fake_api)
    config = yaml.safe_load((proj.root / ".osiris.yaml").read_text(encoding="utf-8"))
    config["connections"] = {"rest": {"api": {"base_url": api.url, "auth_token": "${API_TOKEN}"}}}  # issue 22
    (proj.root / ".osiris.yaml").write_text(yaml.safe_dump(config), encoding="utf-8")
    proj.env["API_TOKEN"] = TOKEN
    proj.secrets.append(TOKEN)
    hostile = get(api, "/token-at", connection="@rest.api", auth_type="bearer", params={"at": CUT_AT})
    fixed = get(api, "/bearer", connection="@rest.api", auth_type="bearer")
    write = csv_step("write", "write", "out.csv")
    fake_api.add(Reply(pipeline(hostile, write)), Reply(pipeline(fixed, write)))

    done = proj.osiris("generate", "copy the items API into out.csv", "--dry-run")

    assert done.returncode == 0, done.stderr
    retry = last_user_message(fake_api.requests[1])
    assert "It answered: (…)*** tail" in retry  # the server's own word withheld, the token masked whole
    everything = [retry, done.stderr, done.stdout] + [
        p.read_text(encoding="utf-8", errors="replace") for p in (proj.root / ".osiris").rglob("*") if p.is_file()]
    assert not [text for text in everything if PREFIX in text]
