"""The MCP tools in this process: the SDK's client connected to the server object itself (no stdio),
for what a process adds nothing to: the full `run` of --allow-run, a discovery that times out,
an internal error, the settings that change a result, and the command's own start-up checks.
The stdio server is tested in tests/test_mcp_server.py."""

from __future__ import annotations

import json
import re
import socket
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

from osiris.mcp.project import Project
from osiris.mcp.server import build_server, open_trail
from tests.inprocess import run_inprocess
from tests.mcp_client import McpServer

PIPELINE = """\
oml_version: "0.1.0"
name: copy-people
steps:
  - id: read-people
    component: filesystem.csv_extractor
    mode: read
    config:
      path: people.csv
  - id: write-people
    component: filesystem.csv_writer
    mode: write
    config:
      path: out/people.csv
"""


def make_project(root: Path, settings: dict[str, Any] | None = None) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    (root / "people.csv").write_text("name,city\nAda Planted-Value-31,London\nGrace,New York\n")
    (root / ".osiris.yaml").write_text(yaml.safe_dump(settings or {}), encoding="utf-8")
    return root


@pytest.fixture
def connect(monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    opened: list[McpServer] = []

    def start(root: Path, *, allow_run: bool = False) -> McpServer:
        monkeypatch.chdir(root)
        project = Project.load()
        server = McpServer.inprocess(build_server(project, open_trail(project), allow_run=allow_run))
        opened.append(server)
        return server

    yield start
    for server in opened:
        server.close()


def server_events(root: Path) -> list[dict[str, Any]]:
    [session] = [p for p in (root / ".osiris" / "sessions").iterdir()
                 if json.loads((p / "session.json").read_text())["command"] == "mcp"]
    return [json.loads(line) for line in (session / "events.jsonl").read_text().splitlines()]


def test_the_run_tool_is_offered_only_with_allow_run_and_marked_destructive(tmp_path: Path, connect) -> None:
    root = make_project(tmp_path / "p")
    assert "run" not in connect(root).tools()
    server = connect(root, allow_run=True)
    tool = server.tools()["run"]
    assert (tool.annotations.destructive_hint, tool.annotations.read_only_hint) == (True, False)
    done = server.call("run", {"oml": PIPELINE})
    assert (done.data["status"], done.data["sample"]) == ("succeeded", None)
    assert (root / "out" / "people.csv").read_text() == (root / "people.csv").read_text()  # kept: a real run
    assert [value for value, _, _ in done.progress] == [0, 0.5, 1, 1.5, 2]


def test_every_tool_publishes_a_json_object_result_so_the_server_redacts_it(tmp_path: Path, connect) -> None:
    """The SDK derives a tool's output schema from its return annotation, and a type pydantic cannot
    build (the recursive `Value`) drops it without a word: the result then has no structured content,
    and `OsirisMCP.call_tool` passes it on as it came, unredacted and unrecorded."""
    tools = connect(make_project(tmp_path / "p"), allow_run=True).tools()
    assert sorted(tools) == ["components_list", "components_show", "connections_list", "discovery_request",
                             "oml_save", "oml_schema_get", "oml_validate", "run", "run_sample"]
    for name, tool in tools.items():
        assert tool.output_schema == {"type": "object", "additionalProperties": True,
                                      "title": f"{name}DictOutput"}, name


def test_sample_rows_are_returned_only_when_the_project_keeps_samples(tmp_path: Path, connect) -> None:
    quiet = connect(make_project(tmp_path / "quiet")).call("run_sample", {"oml": PIPELINE, "rows": 1})
    assert "Planted-Value-31" not in quiet.text
    root = make_project(tmp_path / "keeps", {"sessions": {"save_samples": True}})
    kept = connect(root).call("run_sample", {"oml": PIPELINE, "rows": 1}).data
    assert kept["steps"][0]["sample_rows"] == [{"name": "Ada Planted-Value-31", "city": "London"}]


def test_an_invalid_pipeline_is_not_kept_when_save_failed_oml_is_off(tmp_path: Path, connect) -> None:
    root = make_project(tmp_path / "p", {"sessions": {"save_failed_oml": False}})
    server = connect(root)
    assert server.call("oml_validate", {"oml": "oml_version: 1\n"}).data["valid"] is False
    assert server.call("oml_validate", {"oml": PIPELINE}).data["valid"] is True
    [session] = [p for p in (root / ".osiris" / "sessions").iterdir()]
    assert sorted(p.name for p in (session / "artifacts" / "calls").iterdir()) == ["0002-oml_validate.yaml"]


def test_an_oversized_pipeline_is_an_issue_and_is_not_kept_in_the_trail(tmp_path: Path, connect) -> None:
    root = make_project(tmp_path / "p")
    huge = PIPELINE + "# " + "x" * 1_000_000 + "\n"
    data = connect(root).call("oml_validate", {"oml": huge}).data
    assert (data["valid"], data["error_codes"], data["pipeline"]) == (False, ["OML105"], None)
    [call] = [e for e in server_events(root) if e["event_type"] == "mcp_tool_call"]
    assert call["arguments"]["oml"]["chars"] == len(huge)
    [session] = list((root / ".osiris" / "sessions").iterdir())
    assert not (session / "artifacts").exists()


def test_oml_save_replaces_a_pipeline_but_not_a_directory(tmp_path: Path, connect) -> None:
    root = make_project(tmp_path / "p")
    (root / "old.yaml").write_text('oml_version: "0.1.0"\nname: old\nsteps: []\n')
    (root / "folder.yaml").mkdir()
    server = connect(root)
    assert server.call("oml_save", {"oml": PIPELINE, "path": "old.yaml"}).data["saved"] is True
    assert (root / "old.yaml").read_text() == PIPELINE
    refused = server.call("oml_save", {"oml": PIPELINE, "path": "folder.yaml"})
    assert refused.text.startswith("oml_save: cannot save to 'folder.yaml': it is a directory")
    missing = server.call("run_sample", {"path": "nowhere.yaml"})
    assert missing.text == "run_sample: 'nowhere.yaml' is not a file in the project (no such file)"


def test_a_discovery_that_gets_no_answer_times_out_and_the_server_goes_on(tmp_path: Path, connect, monkeypatch) -> None:
    monkeypatch.setenv("SLOW_PW", "slow-Secret-8812")
    with socket.socket() as silent:  # accepts connections into its backlog, never answers
        silent.bind(("127.0.0.1", 0))
        silent.listen(4)
        port = silent.getsockname()[1]
        root = make_project(tmp_path / "p", {"connections": {"postgres": {"slow": {
            "host": "127.0.0.1", "port": port, "database": "d", "user": "u", "password": "${SLOW_PW}"}}}})
        server = connect(root)
        done = server.call("discovery_request", {"connection": "@postgres.slow", "timeout_seconds": 1})
        assert done.text == ("discovery_request: reading the tables of @postgres.slow took longer than 1 s; "
                             "name fewer tables, or give a longer timeout_seconds")
        assert done.progress[0] == (0, None, "reading the tables of @postgres.slow")
        assert server.call("connections_list").data["count"] == 1
    assert not (root / ".osiris" / "catalog").exists()


def test_an_internal_error_names_its_place_never_its_text(tmp_path: Path, connect, monkeypatch) -> None:
    import osiris.mcp.shapes

    def broken(report: Any) -> dict[str, Any]:
        raise KeyError("sk-ant-api03-planted-Secret-0001")

    monkeypatch.setattr(osiris.mcp.shapes, "report_json", broken)
    root = make_project(tmp_path / "p")
    server = connect(root)
    done = server.call("oml_validate", {"oml": PIPELINE})
    assert done.error
    assert re.fullmatch(r"oml_validate: internal error: KeyError in osiris/mcp/pipeline_tools\.py:\d+ "
                        r"\(a bug in Osiris; the server goes on\)", done.text), done.text
    assert server.call("oml_schema_get").data["oml_version"] == "0.1.0"
    [call, _] = [e for e in server_events(root) if e["event_type"] == "mcp_tool_call"]
    assert (call["status"], call["message"]) == ("error", done.text)


def test_bad_settings_stop_the_command_with_one_line_and_exit_2(tmp_path: Path) -> None:
    root = tmp_path / "p"
    root.mkdir()
    (root / ".osiris.yaml").write_text("sessions:\n  save_samples: maybe\n")
    done = run_inprocess("mcp", cwd=root)
    assert done.returncode == 2
    assert done.stderr.startswith("osiris: error: ") and len(done.stderr.splitlines()) == 1
    assert done.stdout == ""


def test_without_a_settings_file_the_server_does_not_start(tmp_path: Path) -> None:
    done = run_inprocess("mcp", cwd=tmp_path)
    assert done.returncode == 2
    assert done.stderr == ("osiris: error: osiris mcp serves one project and found no .osiris.yaml here or above; "
                           "run it in the project folder (osiris init writes one), or pass --config "
                           "PATH/.osiris.yaml\n")
    assert not (tmp_path / ".osiris").exists()


def test_help_names_allow_run(tmp_path: Path) -> None:
    done = run_inprocess("mcp", "--help", cwd=tmp_path)
    assert done.returncode == 0 and "--allow-run" in done.stdout


def test_run_sample_counts_the_checks_and_names_a_failure(tmp_path: Path, connect) -> None:
    root = make_project(tmp_path / "p")
    checked = PIPELINE.replace("      path: people.csv\n", "      path: people.csv\n    checks: [{row_count: {max: 0}}]\n")
    done = connect(root).call("run_sample", {"oml": checked, "rows": 1}).data
    assert done["status"] == "failed"
    [problem] = done["problems"]
    assert (problem["step"], problem["code"], problem["message"]) == (
        "read-people", "OML537", "check failed: row_count: 1 row, at most 0 expected")
    assert [s["status"] for s in done["steps"]] == ["failed", "skipped"]
