"""The rest and graphql drivers' and their HTTP client's edges, from what mutation testing left
unpinned: the client's defaults are the specs' defaults (TLS checked unless `validate_ssl:
false`), only a POST carries the body, an empty first page is zero rows, a start that is not a
number starts at the first page; graphql's `max_pages` and how much of its errors a message shows;
redirects (a POST becomes a GET, five are followed, a loop is OML508), retries (a `retry-after`
date, a read timeout) and the words of each failure. Against the local API of
tests/servers/http_apis.py, as tests/test_run_http_drivers.py does, and for what that API does not
do, a real HTTP server (or socket) on 127.0.0.1 that answers what the test gives it. Nothing is
mocked but the wait between retries (recorded, not slept)."""

from __future__ import annotations

import json
import socket
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
import yaml

from osiris.run.drivers.rest import rest_client as client_for
from osiris.run.drivers import posthog, rest, supabase
from osiris.run.drivers.posthog import client_for as posthog_client
from osiris.run.drivers.supabase import client_for as supabase_client
from tests.effective_config import effective
from tests.servers.http_apis import ApiServer
from tests.test_run_http_drivers import GRAPHQL, api, api_server, fails, run, silent_port, waits  # noqa: F401

COMPONENTS = Path(__file__).resolve().parent.parent / "components"


def spec_default(component: str, field: str) -> object:
    spec = yaml.safe_load((COMPONENTS / component / "spec.yaml").read_text(encoding="utf-8"))
    return spec["configSchema"]["properties"][field]["default"]


@pytest.mark.parametrize("component", ["rest.extractor", "graphql.extractor"])
def test_the_clients_defaults_are_the_specs_defaults(component: str) -> None:
    with client_for(effective(component, {}), ()) as client:  # ctx.config as the engine builds it
        assert client.timeout == spec_default(component, "timeout") == 30
        assert client.max_retries == spec_default(component, "max_retries") == 3
        assert client.verify is spec_default(component, "validate_ssl") is True


FIXED = {"rest.extractor": rest.CLIENT_SETTINGS, "graphql.extractor": {}, "posthog.extractor": posthog.CLIENT_SETTINGS,
         "supabase.extractor": supabase.CLIENT_SETTINGS, "supabase.writer": supabase.CLIENT_SETTINGS}


@pytest.mark.parametrize(("component", "client_of"), [
    ("rest.extractor", client_for), ("graphql.extractor", client_for), ("posthog.extractor", posthog_client),
    ("supabase.extractor", supabase_client), ("supabase.writer", supabase_client)])
def test_each_http_client_setting_lives_once_in_the_spec_or_the_driver(component: str, client_of: Any) -> None:
    """A setting the spec offers comes from its default; one it does not, from the family's
    CLIENT_SETTINGS, which never names a field the spec offers (graphql's retry_delay overrides
    the rest settings its shared client is given)."""
    properties = yaml.safe_load((COMPONENTS / component / "spec.yaml").read_text(encoding="utf-8"))[
        "configSchema"]["properties"]
    assert set(FIXED[component]) & set(properties) == set()
    names = ["timeout", "retries" if component.startswith("supabase.") else "max_retries", "retry_delay",
             "validate_ssl", "max_response_mb"]
    expected = [properties[name]["default"] if name in properties else FIXED[component][name] for name in names]
    with client_of(effective(component, {}), ()) as client:
        assert [client.timeout, client.max_retries, client.retry_delay, client.verify, client.max_response_mb] \
            == expected == [30, 5 if component == "posthog.extractor" else 3, 1.0, True, 64]


def test_tls_checking_is_off_only_when_asked() -> None:
    with client_for(effective("rest.extractor", {"validate_ssl": False, "timeout": 7, "max_retries": 0}), ()) as client:
        assert (client.verify, client.timeout, client.max_retries) == (False, 7.0, 0)


def test_only_a_post_carries_the_body(api: ApiServer) -> None:  # noqa: F811
    base = {"base_url": api.url, "endpoint": "/all", "data_path": "data.items", "body": {"filter": "active"}}
    run("rest.extractor", {**base, "method": "POST"})
    run("rest.extractor", {**base, "method": "GET"})
    assert [(seen.method, seen.body) for seen in api.hits("/all")] == [("POST", {"filter": "active"}), ("GET", None)]


def test_an_empty_first_page_is_zero_rows(api: ApiServer) -> None:  # noqa: F811
    outcome, rows = run("rest.extractor", {"base_url": api.url, "endpoint": "/page", "data_path": "items",
                                           "pagination": "page", "params": {"page": 1000}})
    assert (outcome.rows_out, rows) == (0, [])
    assert [seen.query.get("page") for seen in api.hits("/page")] == ["1000"]



@pytest.mark.parametrize(("style", "sent"), [("page", ["1", "2", "3", "4", "5"]), ("offset", ["0", "5", "10", "15", "20"])])
def test_a_start_that_is_not_a_number_starts_at_the_first_page(api: ApiServer, style: str, sent: list[str]) -> None:  # noqa: F811
    outcome, _ = run("rest.extractor", {"base_url": api.url, "endpoint": f"/{style}", "data_path": "items",
                                        "pagination": style, "page_param": style,
                                        "params": {style: "first", "per": 5}})
    assert outcome.rows_out == 23
    assert [seen.query[style] for seen in api.hits(f"/{style}")] == sent


def test_graphql_max_pages_ends_paging(api: ApiServer) -> None:  # noqa: F811
    _, rows = run("graphql.extractor", {"endpoint": f"{api.url}/graphql", **GRAPHQL, "max_pages": 2})
    assert [row[0] for row in rows] == list(range(1, 11))
    assert len(api.hits("/graphql")) == 2


@pytest.fixture
def answering() -> Iterator[tuple[str, dict[str, Any]]]:
    """A real HTTP server on 127.0.0.1 that answers every GET and POST with `answer`: its
    `status`, `headers` and JSON `body` (or `raw` bytes), or for a path in `answer["redirects"]`,
    that (status, location). `answer["seen"]` records each request's method, path and body."""
    answer: dict[str, Any] = {"status": 200, "headers": {}, "body": {}, "redirects": {}, "seen": []}

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            sent = self.rfile.read(int(self.headers.get("content-length") or 0))
            answer["seen"].append((self.command, self.path, json.loads(sent) if sent else None))
            status, headers = answer["status"], answer["headers"]
            if self.path in answer["redirects"]:
                status, location = answer["redirects"][self.path]
                headers = {"location": location}
            data = answer.get("raw") or json.dumps(answer["body"]).encode()
            self.send_response(status)
            for name, value in {"content-type": "application/json", **headers}.items():
                self.send_header(name, value)
            self.send_header("content-length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        do_POST = do_GET

        def log_message(self, *args: object) -> None:
            pass

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}", answer
    httpd.shutdown()
    httpd.server_close()


def test_graphql_errors_show_the_first_three_and_at_most_400_characters(answering) -> None:
    base, answer = answering
    url = f"{base}/graphql"
    answer["body"] = {"errors": ["a bare string", {"message": "a" * 200}, {"message": "b" * 200},
                                 {"message": "never shown"}, {"message": "nor this"}], "data": None}
    problem = fails("graphql.extractor", {"endpoint": url, "query": "{ items }"})
    shown = ("; ".join(["a bare string", "a" * 200, "b" * 200]))[:400]
    assert (problem.code, problem.message) == (
        "OML515", f"the GraphQL endpoint {url} answered with errors: {shown} (and 2 more)")


def test_an_error_body_is_shown_up_to_200_characters(answering) -> None:
    base, answer = answering
    answer.update(status=400, raw=("x" * 199 + "yz" + "z" * 100).encode())
    problem = fails("rest.extractor", {"base_url": base, "endpoint": "/items"})
    assert (problem.code, problem.message) == ("OML508", f"HTTP 400 Bad Request from GET {base}/items")
    assert problem.hint == "The server rejected the request. It answered: " + "x" * 199 + "y"


def test_a_redirect_loop_is_oml508_after_five_redirects(answering) -> None:
    base, answer = answering
    answer.update(status=302, headers={"location": "/items"}, raw=b"")
    problem = fails("rest.extractor", {"base_url": base, "endpoint": "/items"})
    assert (problem.code, problem.message) == (
        "OML508", f"HTTP 302 Found from GET {base}/items: more than 5 redirects, not followed")
    assert len(answer["seen"]) == 6


def test_a_retry_after_date_in_the_past_is_no_wait(api: ApiServer, waits: list[float]) -> None:  # noqa: F811
    api.busy_retry_after = "Wed, 21 Oct 2015 07:28:00 GMT"
    outcome, rows = run("rest.extractor", {"base_url": api.url, "endpoint": "/busy", "data_path": "items"})
    assert (len(rows), waits, outcome.warnings) == (3, [0.0, 0.0], [])


def test_the_supabase_client_checks_tls_certificates() -> None:
    with supabase_client(effective("supabase.writer", {"url": "https://example.invalid", "key": "k" * 40}), ()) as client:
        assert client.verify is True


def test_a_credential_too_short_to_mask_leaves_the_message_whole(api: ApiServer) -> None:  # noqa: F811
    """Values under MIN_KNOWN_SECRET_LENGTH (4) are not masked: "GET" would cut words out of every line."""
    problem = fails("rest.extractor", {"base_url": api.url, "endpoint": "/forbidden", "auth_type": "api_key",
                                       "auth_token": "GET"})
    assert problem.message == f"permission denied: GET {api.url}/forbidden answered 403 Forbidden"


@pytest.mark.parametrize("status", [301, 302, 303])
def test_a_post_redirected_by_301_302_or_303_is_followed_as_a_get_without_its_body(answering, status: int) -> None:
    base, answer = answering
    answer["redirects"] = {"/items": (status, "/moved-here")}
    run("rest.extractor", {"base_url": base, "endpoint": "/items", "method": "POST", "body": {"filter": "active"}})
    assert answer["seen"] == [("POST", "/items", {"filter": "active"}), ("GET", "/moved-here", None)]



@pytest.mark.parametrize(("endpoint", "said"), [("/broken", '{"error": "boom"}'), ("/slow", '{"error": "slow down"}')])
def test_a_failing_or_busy_server_is_told_apart_from_a_rejected_request(api: ApiServer, waits: list[float],  # noqa: F811
                                                                       endpoint: str, said: str) -> None:
    problem = fails("rest.extractor", {"base_url": api.url, "endpoint": endpoint, "max_retries": 0})
    assert problem.hint == f"The server is failing or busy; try again later or raise max_retries. It answered: {said}"


def test_five_redirects_are_followed(answering) -> None:
    base, answer = answering
    answer["redirects"] = {f"/r{n}": (302, f"/r{n + 1}") for n in range(5)}
    answer["body"] = [{"id": 1}]
    outcome, rows = run("rest.extractor", {"base_url": base, "endpoint": "/r0"})
    assert (outcome.rows_out, rows) == (1, [(1,)])
    assert [path for _, path, _ in answer["seen"]] == ["/r0", "/r1", "/r2", "/r3", "/r4", "/r5"]


def test_a_read_that_times_out_is_retried(waits: list[float]) -> None:  # noqa: F811
    """A GET may be repeated whatever failed; the silent server costs one 0.5 s timeout a try."""
    with silent_port() as port:
        problem = fails("rest.extractor", {"base_url": f"http://127.0.0.1:{port}", "endpoint": "/x", "timeout": 0.5,
                                           "max_retries": 1})
    assert problem.message == f"cannot connect to http://127.0.0.1:{port}/x: no complete answer within 0.5 s"
    assert waits == [1.0]


def test_a_server_that_hangs_up_is_a_failed_connection_not_a_missing_host() -> None:
    with socket.socket() as rude:
        rude.bind(("127.0.0.1", 0))
        rude.listen(1)
        port = rude.getsockname()[1]

        def hang_up() -> None:
            connection, _ = rude.accept()
            connection.close()

        threading.Thread(target=hang_up, daemon=True).start()
        problem = fails("rest.extractor", {"base_url": f"http://127.0.0.1:{port}", "endpoint": "/x", "max_retries": 0})
    assert problem.message == f"cannot connect to http://127.0.0.1:{port}/x: the connection failed"
