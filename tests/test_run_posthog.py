"""posthog.extractor end to end: `osiris run` (validation included) against the local STAND-IN for
PostHog's HogQL query API in tests/servers/posthog_api.py (PostHog cannot run here; the stand-in
answers with PostHog's request and response shapes and runs each query on DuckDB).

Each test asserts what a person sees: the exit code, the exact OML5xx line, the bytes of the CSV
written, and the HogQL requests the stand-in received. The personal API key comes from a
connection's `${POSTHOG_API_KEY}` and every run scans the terminal and the session files for it.
Only the wait between retries is replaced (`osiris.run.http.sleep`, by a recorder), so that a
Retry-After of 300 s is asserted without waiting it. Also here: a component whose spec exists but
that has no driver fails its step with OML516.
"""

from __future__ import annotations

import json
import re
import subprocess
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.inprocess import run_inprocess
from tests.run_helpers import RunProject, csv_step, sql_step
from tests.servers import posthog_api as ph
from tests.servers.posthog_api import API_KEY, NO_SCOPE_KEY, PostHogStandIn, start_posthog
from tests.support import clean_env
from tests.test_run_http_drivers import waits  # noqa: F401  (the fixture recording retry waits)

WRONG_KEY = "phx_Planted0wrong0key0a9b8c7d6e5f"


@pytest.fixture(scope="module")
def server() -> Iterator[PostHogStandIn]:
    standin = start_posthog()
    yield standin
    standin.stop()


@pytest.fixture
def standin(server: PostHogStandIn) -> PostHogStandIn:
    server.reset()
    return server


@pytest.fixture
def proj(tmp_path: Path, standin: PostHogStandIn) -> RunProject:
    project = RunProject(tmp_path / "project")
    project.env["POSTHOG_API_KEY"] = API_KEY
    project.secrets += [API_KEY, NO_SCOPE_KEY, WRONG_KEY]
    connect(project, standin)
    return project


def connect(proj: RunProject, standin: PostHogStandIn, **fields: Any) -> None:
    """A self-hosted connection to the stand-in; the key is resolved from the environment at run time."""
    connection = {"api_key": "${POSTHOG_API_KEY}", "project_id": ph.PROJECT_ID, "region": "self_hosted",
                  "custom_base_url": standin.url, **fields}
    (proj.root / ".osiris.yaml").write_text(yaml.safe_dump({"connections": {"posthog": {"ph": connection}}}))


def posthog_step(data_type: str, **config: Any) -> dict[str, Any]:
    return {"id": "read", "component": "posthog.extractor", "mode": "read",
            "config": {"connection": "@posthog.ph", "data_type": data_type, "page_size": 100,
                       "initial_since": "2024-03-01T00:00:00Z", **config}}


def to_csv(first: dict[str, Any], select: str) -> list[dict[str, Any]]:
    return [first, sql_step("pick", select), csv_step("write", "write", "out.csv")]


def csv_text(header: str, rows: list[tuple[Any, ...]]) -> str:
    return header + "\n" + "".join(",".join(str(v) for v in row) + "\n" for row in rows)


def ordered(rows: list[dict[str, Any]], first: str, second: str) -> list[dict[str, Any]]:
    return sorted(rows, key=lambda r: (r[first], r[second]))


def query_url(standin: PostHogStandIn, project: str = ph.PROJECT_ID) -> str:
    return f"{standin.url}/api/projects/{project}/query/"


EVENTS = ordered(ph.EVENTS, "timestamp", "uuid")
PERSONS = ordered(ph.PERSONS, "created_at", "id")
SESSIONS = ordered(ph.SESSIONS, "$start_timestamp", "session_id")
DISTINCT_IDS = ordered(ph.DISTINCT_IDS, "person_id", "distinct_id")
PERSON_EMAIL = {p["id"]: json.loads(p["properties"])["email"] for p in ph.PERSONS}

CASES = {  # data_type: (the transform's SELECT, the CSV expected, the seek key's columns)
    "events": ('SELECT uuid, event, "properties_$browser" AS browser FROM input_df ORDER BY timestamp, uuid',
               csv_text("uuid,event,browser", [(e["uuid"], e["event"], json.loads(e["properties"])["$browser"])
                                               for e in EVENTS]), ("timestamp", "uuid")),
    "persons": ("SELECT id, person_properties_email AS email FROM input_df ORDER BY created_at, id",
                csv_text("id,email", [(p["id"], PERSON_EMAIL[p["id"]]) for p in PERSONS]), ("created_at", "id")),
    "sessions": ('SELECT session_id, "$pageview_count" AS pageviews FROM input_df ORDER BY "$start_timestamp", session_id',
                 csv_text("session_id,pageviews", [(s["session_id"], s["$pageview_count"]) for s in SESSIONS]),
                 ("$start_timestamp", "session_id")),
    "person_distinct_ids": ("SELECT distinct_id, person_id FROM input_df ORDER BY person_id, distinct_id",
                            csv_text("distinct_id,person_id", [(d["distinct_id"], d["person_id"]) for d in DISTINCT_IDS]),
                            ("person_id", "distinct_id")),
}


@pytest.mark.parametrize("data_type", list(CASES))
def test_each_data_type_reads_every_row_page_by_page(proj: RunProject, standin: PostHogStandIn, data_type: str) -> None:
    select, expected, key = CASES[data_type]
    result = proj.run(str(proj.pipeline(to_csv(posthog_step(data_type), select))))
    assert result.returncode == 0, result.stderr
    assert (proj.root / "out.csv").read_text() == expected
    rows = expected.count("\n") - 1
    assert f"read  ok  {rows} rows" in result.stdout
    queries = standin.queries()
    assert len(queries) == rows // 100 + 1  # pages of 100; the last one is short
    assert all(q.endswith(f"ORDER BY {key[0]} ASC, {key[1]} ASC LIMIT 100") for q in queries)
    assert "WHERE" not in queries[0] or " > " not in queries[0]  # the first page starts at the beginning
    assert all(f"{key[0]} > " in q and f"{key[1]} > '" in q for q in queries[1:])  # then seeks, never OFFSET
    assert not any("OFFSET" in q for q in queries)
    assert all(r.headers["authorization"] == f"Bearer {API_KEY}" for r in standin.requests)


def test_events_query_pages_and_ties(proj: RunProject, standin: PostHogStandIn) -> None:
    """Three events share each timestamp, and page 1 ends inside such a group: the seek must carry
    the full timestamp (microseconds) and break the tie by uuid, or rows are lost or read twice."""
    select, expected, _ = CASES["events"]
    result = proj.run(str(proj.pipeline(to_csv(posthog_step("events"), select))))
    assert result.returncode == 0, result.stderr
    window = ("timestamp >= toDateTime('2024-03-01 00:00:00.000000', 'UTC') AND timestamp < toDateTime('")
    first, second, third = standin.queries()
    assert first.startswith(f"SELECT uuid, event, timestamp, distinct_id, person_id, properties FROM events WHERE {window}")
    last_of_page_1 = EVENTS[98]  # 100 rows held the twin of EVENTS[40]
    stamp = last_of_page_1["timestamp"].isoformat().replace("+00:00", "Z")
    assert (f"(timestamp > toDateTime('{stamp}') OR (timestamp = toDateTime('{stamp}') "
            f"AND uuid > '{last_of_page_1['uuid']}'))") in second
    assert EVENTS[98]["timestamp"] == EVENTS[99]["timestamp"]  # the tie the seek has to break
    assert "event IN" not in first
    assert (proj.root / "out.csv").read_text() == expected


def test_an_event_stored_twice_is_read_once_unless_deduplication_is_off(proj: RunProject, standin: PostHogStandIn) -> None:
    twin = ph.EVENTS[ph.DUPLICATE_OF]["uuid"]
    select = "SELECT uuid FROM input_df ORDER BY timestamp, uuid"
    path = proj.pipeline(to_csv(posthog_step("events"), select))
    result = proj.run(str(path))
    assert result.returncode == 0, result.stderr
    assert (proj.root / "out.csv").read_text().count(twin) == 1
    assert f"{path} OML513 warning: step 'read': dropped 1 event read twice (same uuid)" in result.stderr
    result = proj.run(str(proj.pipeline(to_csv(posthog_step("events", deduplication_enabled=False), select))))
    assert result.returncode == 0, result.stderr
    assert (proj.root / "out.csv").read_text().count(twin) == 2
    assert "read  ok  251 rows" in result.stdout


def test_event_types_keep_only_those_events_even_with_quotes_and_backslashes(proj: RunProject,
                                                                            standin: PostHogStandIn) -> None:
    wanted = ["signup", "it's a \\ test"]
    step = posthog_step("events", event_types=wanted)
    result = proj.run(str(proj.pipeline(to_csv(step, "SELECT uuid, event FROM input_df ORDER BY timestamp, uuid"))))
    assert result.returncode == 0, result.stderr
    kept = [(e["uuid"], e["event"]) for e in EVENTS if e["event"] in wanted]
    assert len(kept) == 100
    assert (proj.root / "out.csv").read_text() == csv_text("uuid,event", kept)
    assert all("event IN ('signup', 'it\\'s a \\\\ test')" in q for q in standin.queries())


def test_initial_since_starts_the_window_and_without_it_the_last_30_days_are_read(proj: RunProject,
                                                                                 standin: PostHogStandIn) -> None:
    step = posthog_step("sessions", initial_since="2024-03-02T00:00:00+01:00")  # 23:00 UTC on the 1st
    result = proj.run(str(proj.pipeline(to_csv(step, "SELECT session_id FROM input_df"))))
    assert result.returncode == 0, result.stderr
    since = datetime(2024, 3, 1, 23, tzinfo=UTC)
    assert f"read  ok  {sum(s['$start_timestamp'] >= since for s in ph.SESSIONS)} rows" in result.stdout
    assert "$start_timestamp >= toDateTime('2024-03-01 23:00:00.000000', 'UTC')" in standin.queries()[0]

    standin.reset()
    step = posthog_step("events")
    del step["config"]["initial_since"]
    result = proj.run(str(proj.pipeline([step])))
    assert result.returncode == 0, result.stderr
    assert "read  ok  0 rows" in result.stdout  # the stand-in's events are from 2024
    sent = re.findall(r"toDateTime\('([^']+)', 'UTC'\)", standin.queries()[0])
    since_sent, until_sent = (datetime.fromisoformat(t).replace(tzinfo=UTC) for t in sent)
    assert until_sent - since_sent == timedelta(days=30)
    assert abs(datetime.now(UTC) - until_sent) < timedelta(minutes=1)


def test_persons_and_distinct_ids_are_read_whole_without_a_time_window(proj: RunProject, standin: PostHogStandIn) -> None:
    result = proj.run(str(proj.pipeline([posthog_step("persons", initial_since="2030-01-01T00:00:00Z")])))
    assert result.returncode == 0, result.stderr
    assert f"read  ok  {ph.N_PERSONS} rows" in result.stdout
    assert "toDateTime('2030" not in " ".join(standin.queries())


@pytest.mark.parametrize("rows, limits", [(5, [5]), (150, [100, 51])])
def test_sample_stops_asking_for_pages_once_it_has_its_rows(proj: RunProject, standin: PostHogStandIn,
                                                            rows: int, limits: list[int]) -> None:
    """Page 1 holds an event twice: 99 fresh rows, so a sample of 150 asks for 51 more, then stops."""
    select = "SELECT uuid FROM input_df ORDER BY timestamp, uuid"
    result = proj.run(str(proj.pipeline(to_csv(posthog_step("events"), select))), "--sample", str(rows))
    assert result.returncode == 0, result.stderr
    assert f"read  ok  {rows} rows" in result.stdout
    assert [int(q.rsplit("LIMIT ", 1)[1]) for q in standin.queries()] == limits
    assert not (proj.root / "out.csv").exists()


SEEK_HINT = ("    hint: rows are paged by {0}, then {1}: every row needs both, and each page must start after the "
             "last row read (rows with a greater {0}, or the same {0} and a greater {1}); check that region and "
             "custom_base_url name a PostHog whose query API applies the query's WHERE and ORDER BY")


@pytest.mark.parametrize("fault, data_type, why, key", [
    ("ignore_seek", "events", "page 2 ended on the row page 1 ended on", ("timestamp", "uuid")),
    ("ignore_seek", "person_distinct_ids", "page 2 ended on the row page 1 ended on", ("person_id", "distinct_id")),
    ("blank_column", "persons", "the last row of page 1 has no created_at to read on from", ("created_at", "id")),
])
def test_paging_that_cannot_go_on_fails_the_step_and_the_target_keeps_what_it_held(
        proj: RunProject, standin: PostHogStandIn, fault: str, data_type: str, why: str, key: tuple[str, str]) -> None:
    """A PostHog (or a proxy before it) that answers page 1 again whatever the seek says, or rows
    without their seek key, after a full page: the rows after it cannot be read. It was a warning
    and exit 0 with the first page written as if complete; now the step fails (OML535, exit 6) and
    the CSV written by an earlier run is left as it was."""
    if fault == "ignore_seek":
        standin.ignore_seek = True
    else:
        standin.blank_column = key[0]
    (proj.root / "out.csv").write_text("an earlier run's rows\n")
    path = proj.pipeline(to_csv(posthog_step(data_type), f"SELECT {key[1]} FROM input_df"))
    result = proj.run(str(path), process=True)
    assert result.returncode == 6, result.stderr
    assert result.stderr.splitlines()[:2] == [
        f"{path} OML535 step 'read': paging of {query_url(standin)} did not advance: {why}, so the rest of the "
        "data cannot be read", SEEK_HINT.format(*key)]
    assert "Traceback" not in result.stderr and "stopped paging" not in result.stderr
    assert "pick  skipped (its input 'read' did not complete)" in result.stdout
    assert "write  skipped" in result.stdout
    assert (proj.root / "out.csv").read_bytes() == b"an earlier run's rows\n"
    assert sorted(p.name for p in proj.root.iterdir() if not p.name.startswith(".")) == ["out.csv", path.name]
    assert len(standin.queries()) == (2 if fault == "ignore_seek" else 1)  # no page after the one that cannot lead on


def test_a_wrong_key_is_oml506_with_exit_6_and_the_key_shown_nowhere(proj: RunProject, standin: PostHogStandIn) -> None:
    path = proj.pipeline(to_csv(posthog_step("events"), "SELECT uuid FROM input_df"))
    result = proj.run(str(path), env={"POSTHOG_API_KEY": WRONG_KEY}, process=True)
    assert result.returncode == 6
    assert result.stderr.splitlines()[:2] == [
        f"{path} OML506 step 'read': authentication failed: POST {query_url(standin)} answered 401 Unauthorized",
        "    hint: Check the api_key of the step's posthog connection: the query API wants a personal API key "
        "(phx_...), not the project API key (phc_...)."]
    assert "pick  skipped (its input 'read' did not complete)" in result.stdout
    assert len(standin.requests) == 1  # a 401 is not retried
    assert standin.requests[0].headers["authorization"] == f"Bearer {WRONG_KEY}"


def test_a_key_without_the_query_scope_is_oml507_and_an_unknown_project_oml508(proj: RunProject,
                                                                              standin: PostHogStandIn) -> None:
    path = proj.pipeline([posthog_step("events")])
    result = proj.run(str(path), env={"POSTHOG_API_KEY": NO_SCOPE_KEY})
    assert result.returncode == 6
    assert result.stderr.splitlines()[:2] == [
        f"{path} OML507 step 'read': permission denied: POST {query_url(standin)} answered 403 Forbidden",
        f"    hint: The key was accepted but may not run queries in project {ph.PROJECT_ID}: give it the "
        "query:read scope and access to that project."]
    connect(proj, standin, project_id="999")
    result = proj.run(str(path))
    assert result.returncode == 6
    assert result.stderr.splitlines()[:2] == [
        f"{path} OML508 step 'read': HTTP 404 Not Found from POST {query_url(standin, '999')}",
        "    hint: Check project_id (999) and region (self_hosted): no such project there."]


def test_429_is_retried_after_the_retry_after_pause_capped_at_60_seconds(proj: RunProject, standin: PostHogStandIn,
                                                                         waits: list[float]) -> None:
    standin.fail_next(429, times=2, retry_after="3")
    standin.fail_next(429, times=1, retry_after="300")
    path = proj.pipeline([posthog_step("persons")])
    result = proj.run(str(path))
    assert result.returncode == 0, result.stderr
    assert waits == [3.0, 3.0, 60.0]
    assert f"read  ok  {ph.N_PERSONS} rows  " in result.stdout
    assert len(standin.queries()) == 3 + 2  # three 429s, then the two pages
    assert (f"{path} OML513 warning: step 'read': the server asked to wait 300 s before retrying; "
            "waited 60 s (the cap)") in result.stderr


def test_a_server_failing_beyond_the_retries_is_oml508(proj: RunProject, standin: PostHogStandIn,
                                                       waits: list[float]) -> None:
    standin.fail_next(502, times=6)
    path = proj.pipeline([posthog_step("events")])
    result = proj.run(str(path))
    assert result.returncode == 6
    assert f"{path} OML508 step 'read': HTTP 502 Bad Gateway from POST {query_url(standin)} after 5 retries" \
        in result.stderr
    assert waits == [1.0, 2.0, 4.0, 8.0, 16.0]


def test_a_self_hosted_connection_without_its_url_is_one_line(proj: RunProject, standin: PostHogStandIn) -> None:
    """An empty custom_base_url is caught by validation (the spec's constraint); a missing one here."""
    connect(proj, standin)
    settings = (proj.root / ".osiris.yaml").read_text()
    (proj.root / ".osiris.yaml").write_text(settings.replace(f"custom_base_url: {standin.url}", ""))
    path = proj.pipeline([posthog_step("events")])
    result = proj.run(str(path))
    assert result.returncode == 6
    assert f"{path} OML521 step 'read': a self-hosted PostHog needs custom_base_url, and the step has none" \
        in result.stderr
    assert not standin.requests


def test_an_unreadable_initial_since_is_one_line(proj: RunProject, standin: PostHogStandIn) -> None:
    path = proj.pipeline([posthog_step("events", initial_since="last tuesday")])
    result = proj.run(str(path))
    assert result.returncode == 6
    assert result.stderr.splitlines()[:2] == [
        f"{path} OML504 step 'read': initial_since 'last tuesday' is not an ISO 8601 date and time",
        "    hint: write it like 2024-01-01T00:00:00Z (a time without a zone is taken as UTC)"]
    assert not standin.requests


def discover(proj: RunProject, *args: str) -> subprocess.CompletedProcess[str]:
    result = run_inprocess("discover", *args, cwd=proj.root, env=clean_env(**proj.env))
    proj.assert_no_secrets(result.stdout + result.stderr)
    return result


def test_discover_reads_each_data_types_columns_into_the_catalog(proj: RunProject, standin: PostHogStandIn) -> None:
    result = discover(proj, "@posthog.ph")
    assert result.returncode == 0, result.stderr
    catalog = json.loads((proj.root / ".osiris" / "catalog" / "posthog.ph.json").read_text())
    tables = catalog["tables"]
    assert sorted(tables) == ["events", "person_distinct_ids", "persons", "sessions"]
    assert tables["events"]["columns"][:3] == [
        {"name": "uuid", "type": "UUID", "nullable": True}, {"name": "event", "type": "String", "nullable": True},
        {"name": "timestamp", "type": "DateTime64(6, 'UTC')", "nullable": True}]
    assert [c["name"] for c in tables["sessions"]["columns"]][:2] == ["session_id", "$start_timestamp"]
    assert tables["persons"]["primary_key"] == ["id"]
    assert all(q.endswith(" LIMIT 0") for q in standin.queries())
    result = discover(proj, "@posthog.ph", "evnts")
    assert result.returncode == 6
    assert "unknown PostHog data type 'evnts'" in result.stderr and "(did you mean 'events'?)" in result.stderr
    proj.env["POSTHOG_API_KEY"] = WRONG_KEY
    result = discover(proj, "@posthog.ph", "--refresh")
    assert result.returncode == 6
    assert result.stderr.startswith(f"osiris: error: cannot discover @posthog.ph: authentication failed: POST "
                                    f"{query_url(standin)} answered 401 Unauthorized (Check the api_key")


NO_DRIVER_SPEC = """
name: {name}
version: 1.0.0
title: A component with a spec and no driver
modes: [extract]
capabilities: {{discover: false}}
configSchema:
  type: object
  properties:
    host: {{type: string}}
    table: {{type: string, minLength: 1}}
  required: [host, table]
  additionalProperties: false
x-connection-fields: [host]
"""


@pytest.mark.parametrize("component", ["acme.extractor", "rest.cdc_extractor"])
def test_a_component_with_a_spec_but_no_driver_fails_its_step_with_oml516(tmp_path: Path, component: str) -> None:
    """`acme` has no driver at all (it was a KeyError, OML503); `rest.cdc_extractor` is in a family
    that has one, which would have run it as rest.extractor."""
    proj = RunProject(tmp_path / "project")
    family = component.split(".")[0]
    spec = proj.root / "more" / component / "spec.yaml"
    spec.parent.mkdir(parents=True)
    spec.write_text(NO_DRIVER_SPEC.format(name=component))
    (proj.root / ".osiris.yaml").write_text(yaml.safe_dump({
        "components": {"paths": ["more"]}, "connections": {family: {"main": {"host": "127.0.0.1"}}}}))
    step = {"id": "read-crm", "component": component, "mode": "read",
            "config": {"connection": f"@{family}.main", "table": "t"}}
    path = proj.pipeline([step, csv_step("write", "write", "out.csv")])
    result = proj.run(str(path))
    assert result.returncode == 6
    lines = result.stderr.splitlines()
    assert lines[0] == f"{path} OML516 step 'read-crm': no runtime driver for the component {component}"
    assert lines[1].startswith("    hint: its spec validates, but osiris run can run only: duckdb.processor, ")
    assert "posthog.extractor" in lines[1] and "Error" not in result.stderr
    assert "write  skipped (its input 'read-crm' did not complete)" in result.stdout


def test_the_dry_run_in_chat_and_generate_is_skipped_only_for_components_without_a_driver(tmp_path: Path) -> None:
    """Before the sample tier runs anything, it asks the same registry: a posthog step can be
    sampled; a spec in a family that has a driver (rest) but no driver of its own cannot."""
    from osiris.sample.sample_run import SampleOptions, not_runnable

    connections = {"posthog": {"ph": {"api_key": "${POSTHOG_API_KEY}", "project_id": "1"}},
                   "rest": {"main": {"host": "h"}}}
    options = SampleOptions(rows=10, connections=connections, env={"POSTHOG_API_KEY": API_KEY}, base_dir=tmp_path)
    steps = [posthog_step("events")]
    assert not_runnable({"steps": steps}, options) is None
    other = {"id": "read-crm", "component": "rest.cdc_extractor", "mode": "read",
             "config": {"connection": "@rest.main", "table": "t"}}
    assert not_runnable({"steps": [*steps, other]}, options) == (
        "step 'read-crm': no runtime for the component rest.cdc_extractor")
