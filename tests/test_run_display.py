"""`osiris run` on a real terminal (a pseudo-terminal driven by pexpect): the live line of a running
step counts its time and shows its rows, each finished step is a coloured line with its rows and
time; with NO_COLOR the same lines are plain, without a single escape code.

The step that takes time is a rest.extractor against the local API of tests/servers/http_apis.py,
which answers 429 with `retry-after: 1` once: the run really waits a second.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pexpect
import pytest

from tests.run_helpers import RunProject, csv_step
from tests.api_fixtures import api, api_server  # noqa: F401 (fixtures)
from tests.servers.http_apis import ApiServer
from tests.support import clean_env


@pytest.fixture
def slow_api(api: ApiServer) -> ApiServer:
    """The first call to /busy is answered 429 with retry-after: 1; the second gives 3 records."""
    api.busy_failures, api.busy_retry_after = 1, "1"
    return api


def on_terminal(proj: RunProject, path: Path, *args: str, **env: str) -> tuple[int, str]:
    """`osiris run PATH ARGS` in a pty 160 columns wide; its exit status and everything it showed."""
    environment = clean_env(TERM="xterm-256color", COLUMNS="160", **env)
    if "NO_COLOR" not in env:
        environment.pop("NO_COLOR")
    child = pexpect.spawn(sys.executable, ["-m", "osiris", "run", str(path), *args], cwd=str(proj.root),
                          env=environment, encoding="utf-8", timeout=60, dimensions=(40, 160))
    try:
        child.expect(pexpect.EOF)
        screen = child.before or ""
    finally:
        child.close(force=True)
    assert child.exitstatus is not None, child.signalstatus
    return child.exitstatus, screen


def busy_pipeline(proj: RunProject, api: ApiServer) -> Path:
    return proj.pipeline([
        {"id": "get", "component": "rest.extractor", "mode": "read",
         "config": {"base_url": api.url, "endpoint": "/busy", "data_path": "items"}},
        csv_step("write", "write", "out.csv")])


def test_live_line_counts_time_and_rows_then_each_step_is_a_coloured_line(tmp_path: Path,
                                                                         slow_api: ApiServer) -> None:
    proj = RunProject(tmp_path / "project")
    status, screen = on_terminal(proj, busy_pipeline(proj, slow_api))
    assert status == 0, screen
    waiting = re.findall(r"get  running \(rest\.extractor\)  (\d+\.\d) s", screen)
    assert len(set(waiting)) >= 3, screen  # the time counts up while the step waits for the API
    assert float(max(waiting, key=float)) >= 0.5
    assert re.search(r"get  3 rows  \d+\.\d s", screen), screen  # rows so far, when the driver reports them
    got = re.search(r"\x1b\[32mget  ok  3 rows  (\d+\.\d) s\x1b\[0m", screen)  # green, with rows and time
    assert got and float(got[1]) >= 1.0, screen  # the second the API made it wait is counted
    assert re.search(r"\x1b\[32mwrite  ok  3 rows  \d+\.\d s\x1b\[0m", screen), screen
    assert (proj.root / "out.csv").read_text().splitlines()[:2] == [
        "id,name,meta", '1,item-1,"{""rank"":1,""tags"":[""t1""]}"']  # nested values are JSON text (docs/types.md)


def test_a_failed_step_is_red_and_a_skipped_one_yellow(tmp_path: Path, slow_api: ApiServer) -> None:
    proj = RunProject(tmp_path / "project")
    path = proj.pipeline([
        {"id": "get", "component": "rest.extractor", "mode": "read",
         "config": {"base_url": slow_api.url, "endpoint": "/nowhere"}},
        csv_step("write", "write", "out.csv")])
    status, screen = on_terminal(proj, path)
    assert status == 6, screen
    assert re.search(r"\x1b\[31mget  failed \(OML508\)  \d+\.\d s\x1b\[0m", screen), screen
    assert "\x1b[33mwrite  skipped (its input 'get' did not complete)\x1b[0m" in screen, screen
    assert f"{path} OML508 step 'get': HTTP 404 Not Found from GET {slow_api.url}/nowhere\r\n" in screen


def test_no_color_shows_the_same_lines_without_any_escape_code(tmp_path: Path, slow_api: ApiServer) -> None:
    proj = RunProject(tmp_path / "project")
    status, screen = on_terminal(proj, busy_pipeline(proj, slow_api), NO_COLOR="1")
    assert status == 0, screen
    assert "\x1b" not in screen
    # The times are the machine's (a loaded one takes longer): their form is the promise, and the
    # second the API made the read wait.
    shown = re.fullmatch(r"get  running \(rest\.extractor\)\r\nget  ok  3 rows  (\d+\.\d) s\r\n"
                         r"write  running \(filesystem\.csv_writer\)\r\nwrite  ok  3 rows  \d+\.\d s\r\n"
                         r"session: \S+\r\n", screen)
    assert shown and float(shown[1]) >= 1.0, screen
