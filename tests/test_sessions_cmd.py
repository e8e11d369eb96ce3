"""`osiris sessions` over sessions written by a real `osiris generate --provider demo` run."""

from __future__ import annotations

import json

import pytest

from tests.conftest import cli_env, session_dirs
from tests.conftest import osiris_here as run_osiris  # in-process: tests/inprocess.py


@pytest.fixture(scope="module")
def demo_project(tmp_path_factory):
    root = tmp_path_factory.mktemp("sessions-cmd")
    done = run_osiris("generate", "active customers to CSV", "--provider", "demo", cwd=root, env=cli_env())
    assert done.returncode == 0, done.stderr
    return root


def osiris(root, *args):
    return run_osiris("sessions", *args, cwd=root, env=cli_env())


def test_list_shows_the_session_with_status_and_attempts(demo_project):
    [session] = session_dirs(demo_project)
    done = osiris(demo_project, "list")
    assert done.returncode == 0
    header, row = done.stdout.splitlines()
    assert header.split()[:4] == ["ID", "STARTED", "COMMAND", "STATUS"]
    assert row.startswith(session.name) and " valid " in row and " generate " in row

    listed = json.loads(osiris(demo_project, "list", "--json").stdout)
    assert listed[0]["id"] == session.name and listed[0]["attempts"] == 2 and listed[0]["status"] == "valid"


def test_attempts_table_has_one_row_per_attempt(demo_project):
    done = osiris(demo_project, "attempts", "last")
    assert done.returncode == 0
    lines = done.stdout.splitlines()
    assert "ERROR CODES" in lines[0] and "LLM MS" in lines[0] and "VALIDATE MS" in lines[0]
    assert len(lines) == 3
    assert "OML301,OML307" in lines[1] and " no " in lines[1] and " yes " in lines[2]

    rows = json.loads(osiris(demo_project, "attempts", "last", "--json").stdout)
    assert [r["valid"] for r in rows] == [False, True]
    assert rows[1]["token_usage"]["cache_read"] > 0


def test_show_and_events_by_id_prefix(demo_project):
    [session] = session_dirs(demo_project)
    shown = osiris(demo_project, "show", session.name[:17])
    assert shown.returncode == 0 and f"session   {session.name}" in shown.stdout and "cycle 1: valid" in shown.stdout

    events = json.loads(osiris(demo_project, "events", session.name, "--json").stdout)
    types = [e["event_type"] for e in events]
    assert types[0] == "session_start" and types[-1] == "session_end"
    assert [e["seq"] for e in events] == list(range(1, len(events) + 1))
    assert {"validation_retry", "llm_response", "pipeline_accepted"} <= set(types)


def test_unknown_session_is_one_line_and_exit_2(demo_project):
    done = osiris(demo_project, "show", "no-such-session")
    assert done.returncode == 2 and "no session 'no-such-session'" in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1


def test_list_with_no_sessions(tmp_path):
    done = osiris(tmp_path, "list")
    assert done.returncode == 0 and "no sessions" in done.stderr


@pytest.mark.parametrize("argv", [["--help"], ["generate", "--help"], ["sessions", "list"]])
def test_these_commands_do_not_import_the_sdk(tmp_path, argv):
    import subprocess
    import sys

    code = (
        "import sys, osiris.cli; code = osiris.cli.main(sys.argv[1:]); "
        "heavy = [m for m in ('anthropic', 'prompt_toolkit', 'rich') if m in sys.modules]; "
        "print('HEAVY', heavy, file=sys.stderr); sys.exit(code)"
    )
    done = subprocess.run(
        [sys.executable, "-c", code, *argv], cwd=tmp_path, env=cli_env(), capture_output=True, text=True
    )
    assert "HEAVY []" in done.stderr
