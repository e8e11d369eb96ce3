"""An incremental read of posthog.extractor (docs/run-again.md), end to end through `osiris run`
against the local STAND-IN for PostHog's HogQL query API (tests/servers/posthog_api.py; PostHog
cannot run here): the cursor's value goes in the query's `values` and the HogQL holds only the
placeholder, a second run reads exactly the events added since the first, a failed run leaves the
state, and a cursor that is not the data type's time column fails naming the right one."""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path

import pytest

from tests.run_helpers import RunProject
from tests.servers import posthog_api as ph
from tests.servers.posthog_api import PostHogStandIn, start_posthog
from tests.test_incremental import rows_read
from tests.test_run_http_drivers import waits  # noqa: F401  (the fixture recording retry waits)
from tests.test_run_posthog import connect, posthog_step, to_csv

STATE = Path(".osiris") / "state" / "events-sync.json"
LAST = max(e["timestamp"] for e in ph.EVENTS)


@pytest.fixture(scope="module")
def server() -> Iterator[PostHogStandIn]:
    standin = start_posthog()  # this module's own: the test adds an event to it
    yield standin
    standin.stop()


@pytest.fixture
def proj(tmp_path: Path, server: PostHogStandIn) -> RunProject:
    server.reset()
    project = RunProject(tmp_path / "project")
    project.env["POSTHOG_API_KEY"] = ph.API_KEY
    project.secrets.append(ph.API_KEY)
    connect(project, server)
    return project


def test_a_second_run_reads_the_new_events_after_a_bound_cursor(proj: RunProject, server: PostHogStandIn) -> None:
    steps = to_csv(posthog_step("events", incremental={"cursor": "timestamp"}), "SELECT uuid FROM input_df")
    path = proj.pipeline(steps, name="events-sync")
    result = proj.run(str(path))
    assert result.returncode == 0, result.stderr
    assert rows_read(proj) == len(ph.EVENTS)  # the first run: from initial_since, the twin dropped
    state = json.loads((proj.root / STATE).read_text())
    assert state == {"steps": {"read": {"cursor": "timestamp", "value": LAST.isoformat()}}}

    server.reset()
    result = proj.run(str(path))  # nothing new
    assert result.returncode == 0, result.stderr
    assert rows_read(proj) == 0 and json.loads((proj.root / STATE).read_text()) == state
    [request] = [r for r in server.requests if r.method == "POST"]
    query = request.body["query"]
    assert "timestamp > toDateTime({osiris_after})" in query["query"] and LAST.isoformat() not in query["query"]
    assert ">= toDateTime('2024-03-01" not in query["query"]  # the state, not initial_since, starts it
    assert query["values"] == {"osiris_after": LAST.isoformat()}

    new = LAST + timedelta(seconds=1)
    with server.db.lock:
        server.db.con.execute("INSERT INTO events VALUES (?, 'signup', ?, 'user-1', ?, '{}')",
                              ["00000000-0000-4000-8000-00000000ffff", new, ph.EVENTS[0]["person_id"]])
    server.fail_next(404)  # the run fails: the state stays
    assert proj.run(str(path)).returncode == 6
    assert json.loads((proj.root / STATE).read_text()) == state
    result = proj.run(str(path))
    assert result.returncode == 0, result.stderr
    assert rows_read(proj) == 1 and (proj.root / "out.csv").read_text() == "uuid\n00000000-0000-4000-8000-00000000ffff\n"
    assert json.loads((proj.root / STATE).read_text())["steps"]["read"]["value"] == new.isoformat()


def test_a_cursor_other_than_the_time_column_is_refused_by_name(proj: RunProject, server: PostHogStandIn) -> None:
    steps = to_csv(posthog_step("persons", incremental={"cursor": "timestamp", "initial": "2024-03-02T00:00:00Z"}),
                   "SELECT id FROM input_df")
    result = proj.run(str(proj.pipeline(steps, name="events-sync")))
    assert result.returncode == 6
    assert ("step 'read': posthog.extractor reads persons incrementally only by created_at, not by 'timestamp'"
            in result.stderr)
    assert not [r for r in server.requests if r.method == "POST"]  # refused before any query
