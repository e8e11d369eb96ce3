"""`osiris mcp` as an assistant meets it: a real `python -m osiris mcp` subprocess driven over stdio by
the MCP SDK's own client. One server serves the module; every result it sends is kept and, at the
end, scanned with the session directory and the server's stderr for the planted secrets."""

from __future__ import annotations

import json
import socket
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml

from osiris.mcp.oml_shape import EXAMPLE
from tests.mcp_client import Call, McpServer

ENV_SECRET = "mcp-env-Secret-7731"  # the value of ${PG_PW}, a connection's password
SETTINGS_SECRET = "settings-inline-Secret-5501"  # a password written into .osiris.yaml itself
OML_SECRET = "oml-inline-Secret-9931"  # a password a pipeline holds inline (OML310)
SECRETS = (ENV_SECRET, SETTINGS_SECRET, OML_SECRET)
TOOLS = ["oml_validate", "oml_schema_get", "oml_save", "components_list", "components_show", "connections_list",
         "discovery_request", "run_sample"]

CSV_PIPELINE = EXAMPLE  # the example oml_schema_get gives: it must run, too
WITH_PROBLEMS = f"""\
oml_version: "0.1.0"
name: Copy_Customers
steps:
  - id: read
    component: filesystem.csv_extractor
    mode: read
    config:
      path: data/orders.csv
  - id: write
    component: postgres.writer
    mode: write
    config:
      connection: "@postgres.default"
      table: customers
      batch_size: "500"
      password: {OML_SECRET}
"""

class Served:
    """The module's server, its project, and every call made to it."""

    def __init__(self, root: Path, server: McpServer) -> None:
        self.root, self.server, self.calls = root, server, []

    def call(self, name: str, arguments: dict | None = None) -> Call:
        done = self.server.call(name, arguments)
        self.calls.append(done)
        return done


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    root = tmp_path_factory.mktemp("mcp") / "project"
    (root / "data").mkdir(parents=True)
    (root / "data" / "orders.csv").write_text("id,customer_id,total\n1,7,4242.17\n2,8,99.50\n3,7,120.00\n")
    settings = {"connections": {
        "postgres": {"default": {"host": "127.0.0.1", "port": _closed_port(), "database": "shop", "user": "reader",
                                 "password": "${PG_PW}"}},
        "mysql": {"reports": {"host": "db.internal", "database": "reports", "user": "report",
                              "password": SETTINGS_SECRET}}}}
    (root / ".osiris.yaml").write_text(yaml.safe_dump(settings), encoding="utf-8")
    state = Served(root, McpServer.start(root, {"PG_PW": ENV_SECRET}))
    yield state
    state.server.close()


def _closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def test_the_tools_offered_and_their_annotations(served: Served) -> None:
    tools = served.server.tools()
    assert list(tools) == TOOLS  # no full `run` without --allow-run
    assert tools["oml_validate"].annotations.read_only_hint is True
    assert tools["run_sample"].annotations.destructive_hint is False
    assert tools["oml_save"].annotations.read_only_hint is False
    assert tools["oml_validate"].input_schema["required"] == ["oml"]
    assert all(len(tool.description or "") > 200 for tool in tools.values())


def test_oml_validate_gives_every_issue_and_the_canonical_pipeline(served: Served) -> None:
    data = served.call("oml_validate", {"oml": WITH_PROBLEMS}).data
    assert data["valid"] is False and (data["error_count"], data["warning_count"]) == (1, 2)
    assert [(i["code"], i["severity"], i["path"], i["line"], i["column"]) for i in data["issues"]] == [
        ("OML211", "warning", "/name", 2, 1),
        ("OML315", "warning", "/steps/1/config/batch_size", 15, 7),
        ("OML310", "error", "/steps/1/config/password", 16, 7)]
    assert data["issues"][2]["hint"] == "remove it from the step; the connection supplies it"
    assert data["issues"][2]["value"] == "***"
    assert data["pipeline"] == WITH_PROBLEMS.replace('"500"', "500").replace(OML_SECRET, '"***"')


def test_oml_schema_get_gives_a_shape_whose_example_is_valid(served: Served) -> None:
    shape = served.call("oml_schema_get").data
    assert shape["oml_version"] == "0.1.0"
    assert shape["schema"]["required"] == ["oml_version", "name", "steps"]
    assert shape["schema"]["properties"]["steps"]["items"]["properties"]["mode"] == {"enum": ["read", "write", "transform"]}
    assert any("needs: [extract-orders] -> df_extract_orders" in rule for rule in shape["rules"])
    assert served.call("oml_validate", {"oml": shape["example"]}).data["issues"] == []


def test_components_list_and_show(served: Served) -> None:
    listed = served.call("components_list").data
    by_name = {c["name"]: c for c in listed["components"]}
    assert by_name["postgres.extractor"] == {"name": "postgres.extractor", "family": "postgres", "modes": ["read"],
                                             "title": by_name["postgres.extractor"]["title"]}
    assert listed["count"] == len(listed["components"]) >= 12
    shown = served.call("components_show", {"name": "postgres.writer"}).data
    fields = {f["name"]: f for f in shown["fields"]}
    assert fields["password"]["marks"] == ["required", "secret", "from_connection"]
    assert fields["table"]["marks"] == ["required"]
    assert fields["batch_size"]["type"] == "integer" and fields["batch_size"]["default"] is not None
    assert shown["connection"] == "@postgres.<alias>"
    unknown = served.call("components_show", {"name": "postgres.extractr"})
    assert unknown.error
    assert unknown.text == ("components_show: unknown component 'postgres.extractr' (did you mean "
                            "'postgres.extractor'?); components_list gives every name")


def test_connections_list_shows_references_and_masks_what_the_settings_hold_inline(served: Served) -> None:
    data = served.call("connections_list").data
    assert data["count"] == 2
    mysql, postgres = data["connections"]
    assert mysql == {"reference": "@mysql.reports", "family": "mysql", "alias": "reports",
                     "fields": {"database": "reports", "host": "db.internal", "password": "***", "user": "report"}}
    assert postgres["reference"] == "@postgres.default"
    assert postgres["fields"]["password"] == "${PG_PW}"


def test_oml_save_writes_the_canonical_form_and_refuses_an_invalid_pipeline(served: Served) -> None:
    messy = CSV_PIPELINE.replace("name: large-orders-to-csv", "name: large-orders-to-csv\nx-note: kept  # a comment")
    saved = served.call("oml_save", {"oml": messy, "path": "pipelines/active.yaml"}).data
    written = (served.root / "pipelines" / "active.yaml").read_bytes()
    assert written == messy.encode()
    assert saved == {"saved": True, "path": "pipelines/active.yaml", "warnings": [],
                     "sha256": __import__("hashlib").sha256(written).hexdigest()}
    refused = served.call("oml_save", {"oml": WITH_PROBLEMS, "path": "pipelines/copy.yaml"})
    assert refused.error
    assert refused.text.splitlines() == [
        "oml_save: the pipeline is invalid; nothing was written to pipelines/copy.yaml. Fix these, then save again:",
        "OML211 (warning) /name: name 'Copy_Customers' is not lower-case kebab-case | fix: use name: copy-customers",
        "OML315 (warning) /steps/1/config/batch_size: batch_size: '500' was read as 500 | fix: write batch_size: 500 next time",
        "OML310 /steps/1/config/password: secret field 'password' is written inline in the pipeline | fix: remove it "
        "from the step; the connection supplies it"]
    assert not (served.root / "pipelines" / "copy.yaml").exists()


@pytest.mark.parametrize(("path", "reason"), [
    ("../escaped.yaml", "'../escaped.yaml' leaves the project ('..')"),
    (".osiris.yaml", "'.osiris.yaml' is hidden or inside a hidden folder"),
    (".osiris/sessions/x.yaml", "'.osiris/sessions/x.yaml' is hidden or inside a hidden folder"),
    ("pipelines/run.sh", "'pipelines/run.sh' is not a .yaml or .yml file"),
    ("linked/out.yaml", "'linked/out.yaml' passes through a symbolic link (linked)"),
    ("notes.yaml", "cannot save to 'notes.yaml': it exists and is not an OML pipeline"),
])
def test_oml_save_never_writes_outside_the_project_through_a_link_or_over_a_file_not_a_pipeline(
        served: Served, path: str, reason: str) -> None:
    outside = served.root.parent / "outside"
    outside.mkdir(exist_ok=True)
    if not (served.root / "linked").is_symlink():
        (served.root / "linked").symlink_to(outside, target_is_directory=True)
    (served.root / "notes.yaml").write_text("todo: buy milk\n")
    settings = (served.root / ".osiris.yaml").read_bytes()
    refused = served.call("oml_save", {"oml": CSV_PIPELINE, "path": path})
    assert refused.error and refused.text.startswith(f"oml_save: {reason}"), refused.text
    assert list(outside.iterdir()) == [] and not (served.root.parent / "escaped.yaml").exists()
    assert (served.root / "notes.yaml").read_text() == "todo: buy milk\n"
    assert (served.root / ".osiris.yaml").read_bytes() == settings


def test_an_absolute_path_is_refused(served: Served) -> None:
    target = served.root.parent / "absolute.yaml"
    refused = served.call("oml_save", {"oml": CSV_PIPELINE, "path": str(target)})
    assert refused.text == (f"oml_save: '{target}' is not a path inside the project; give one relative to the "
                            "project folder, e.g. pipelines/orders.yaml")
    assert not target.exists()


def test_run_sample_runs_as_osiris_run_sample_keeps_nothing_and_reports_each_step(served: Served) -> None:
    done = served.call("run_sample", {"oml": CSV_PIPELINE, "rows": 2})
    data = done.data
    assert (data["status"], data["sample"], data["problems"], data["issues"]) == ("succeeded", 2, [], [])
    assert [(s["id"], s["status"], s["rows_out"]) for s in data["steps"]] == [
        ("read-orders", "ok", 2), ("keep-large", "ok", 1), ("write-large", "ok", 1)]
    assert data["steps"][1]["columns"] == [{"name": "id", "type": "BIGINT"}, {"name": "customer_id", "type": "BIGINT"},
                                           {"name": "total", "type": "DOUBLE"}]
    assert "sample_rows" not in data["steps"][0]  # sessions.save_samples is off: no row values
    # A value no session id, timestamp or duration can hold (two decimals): a row value would show
    assert "4242.17" not in done.text
    assert not (served.root / "output").exists()  # the sample's write was undone
    run_session = Path(data["session"])
    assert run_session.parent == served.root / ".osiris" / "sessions"
    events = [json.loads(line)["event_type"] for line in (run_session / "events.jsonl").read_text().splitlines()]
    assert events[:2] == ["session_start", "run_start"] and events[-2:] == ["run_end", "session_end"]
    assert [(value, total) for value, total, _ in done.progress] == [
        (0, None), (0.5, 3), (1, 3), (1.5, 3), (2, 3), (2.5, 3), (3, 3)]
    messages = [message for _, _, message in done.progress]
    assert messages[0] == "running (oml from the assistant) on 2 rows a source"
    assert messages[1] == "step 'read-orders' running (filesystem.csv_extractor)"
    assert messages[2].startswith("read-orders  ok  2 rows  ")


def test_run_sample_of_a_project_file_and_of_an_invalid_pipeline(served: Served) -> None:
    (served.root / "pipelines").mkdir(exist_ok=True)
    (served.root / "pipelines" / "sample.yaml").write_text(CSV_PIPELINE)
    data = served.call("run_sample", {"path": "pipelines/sample.yaml"}).data
    assert (data["pipeline"], data["status"], data["sample"]) == ("pipelines/sample.yaml", "succeeded", 10)
    invalid = served.call("run_sample", {"oml": WITH_PROBLEMS}).data
    assert (invalid["status"], invalid["session"], invalid["steps"]) == ("invalid", None, [])
    assert [i["code"] for i in invalid["issues"]] == ["OML211", "OML315", "OML310"]
    both = served.call("run_sample", {"oml": CSV_PIPELINE, "path": "pipelines/sample.yaml"})
    assert both.text == ("run_sample: give the pipeline either as oml (its YAML text) or as path (a file of the "
                         "project), exactly one of them")


def test_a_bad_call_is_a_tool_error_and_the_server_keeps_serving(served: Served) -> None:
    missing = served.call("oml_validate", {})
    assert missing.error and missing.text == "oml_validate: 'oml' is missing; it takes oml (required)"
    bounds = served.call("run_sample", {"oml": CSV_PIPELINE, "rows": 0})
    assert bounds.text == ("run_sample: 'rows': Input should be greater than or equal to 1; it takes oml, path, rows")
    unknown = served.call("oml_validat", {"oml": CSV_PIPELINE})
    assert unknown.text == f"unknown tool 'oml_validat' (did you mean 'oml_validate'?); the tools are {', '.join(TOOLS)}"
    assert served.call("oml_validate", {"oml": CSV_PIPELINE}).data["valid"] is True


def test_discovery_of_a_server_that_refuses_is_one_clear_line(served: Served) -> None:
    port = yaml.safe_load((served.root / ".osiris.yaml").read_text())["connections"]["postgres"]["default"]["port"]
    done = served.call("discovery_request", {"connection": "@postgres.default"})
    assert done.error
    assert done.text.startswith(f"discovery_request: cannot discover @postgres.default: cannot connect to postgres "
                                f"at 127.0.0.1:{port}: connection refused")
    assert done.progress[0] == (0, None, "reading the tables of @postgres.default")
    unconfigured = served.call("discovery_request", {"connection": "@postgres.warehouse"})
    assert unconfigured.text == ("discovery_request: connection '@postgres.warehouse' is not configured "
                                 "(configured: @postgres.default (did you mean '@postgres.default'?))")


def test_no_secret_in_any_result_nor_in_the_session_trail(served: Served) -> None:
    """Every tool, each given what holds a planted secret, then every result the module's server has sent
    (this test's calls and those of any test that ran before it, in whatever order) and its whole
    session directory are scanned: the test sets up what it scans, so it passes alone too."""
    first = len(served.calls)
    served.call("oml_validate", {"oml": WITH_PROBLEMS})  # OML_SECRET inline
    served.call("connections_list")  # SETTINGS_SECRET inline in .osiris.yaml, ${PG_PW} from the environment
    served.call("components_show", {"name": "postgres.writer"})
    served.call("discovery_request", {"connection": "@postgres.default"})  # connects with ENV_SECRET: refused
    served.call("oml_save", {"oml": WITH_PROBLEMS, "path": "pipelines/secret.yaml"})  # refused: invalid
    served.call("run_sample", {"oml": WITH_PROBLEMS})  # invalid: not run
    served.call("run_sample", {"oml": CSV_PIPELINE, "rows": 2})
    served.call("oml_validate", {})  # a bad call
    assert [call.error for call in served.calls[first:]] == [False, False, False, True, True, False, False, True]

    sent = "\n".join(call.text + json.dumps(call.result.structured_content) for call in served.calls)
    files = [p for p in (served.root / ".osiris").rglob("*") if p.is_file()]
    trail = "\n".join(p.read_text(encoding="utf-8", errors="replace") for p in files)
    for secret in SECRETS:
        assert secret not in sent
        assert secret not in trail
    server_session = [p for p in (served.root / ".osiris" / "sessions").iterdir()
                      if json.loads((p / "session.json").read_text())["command"] == "mcp"]
    assert len(server_session) == 1
    calls = [json.loads(line) for line in (server_session[0] / "events.jsonl").read_text().splitlines()
             if '"mcp_tool_call"' in line]
    assert len(calls) == len(served.calls)
    validate = calls[first]
    assert validate["tool"] == "oml_validate" and validate["status"] == "ok"
    assert validate["arguments"]["oml"]["chars"] == len(WITH_PROBLEMS)
    assert validate["summary"] == {"valid": False, "error_codes": ["OML310"]}
    kept = server_session[0] / "artifacts" / "calls" / f"{first + 1:04d}-oml_validate.yaml"
    assert kept.read_text() == WITH_PROBLEMS.replace(OML_SECRET, '"***"')
    failed = calls[first:][3]
    assert (failed["tool"], failed["status"]) == ("discovery_request", "error") and failed["message"]
    assert [c["status"] for c in calls[first:]] == ["ok", "ok", "ok", "error", "error", "ok", "ok", "error"]


def test_the_server_ends_its_session_when_the_client_closes(tmp_path: Path) -> None:
    """A server of its own (closing the module's would end it for the tests that run after)."""
    root = tmp_path / "project"
    root.mkdir()
    (root / ".osiris.yaml").write_text(yaml.safe_dump({"connections": {"mysql": {"reports": {
        "host": "db.internal", "database": "reports", "user": "report", "password": SETTINGS_SECRET}}}}),
        encoding="utf-8")
    server = McpServer.start(root, {"PG_PW": ENV_SECRET})
    assert not server.call("oml_validate", {"oml": WITH_PROBLEMS}).error
    stderr = server.close()
    assert "Traceback" not in stderr and not any(secret in stderr for secret in SECRETS)
    [session] = [p for p in (root / ".osiris" / "sessions").iterdir()
                 if json.loads((p / "session.json").read_text())["command"] == "mcp"]
    assert stderr.splitlines()[0] == f"osiris mcp: serving {root} over stdio; session {session}"
    meta = json.loads((session / "session.json").read_text())
    assert meta["status"] == "ended" and meta["ended_at"]
