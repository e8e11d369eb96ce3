"""Hostile specs and rules (issue 9, items 6 and 7): patterns run in linear time, `$ref` never leaves the spec.

Before the fix, `^(a+)+$` against forty a's and a '!' ran for minutes (Python's backtracking `re`),
and a `$ref` to http:// or file:// was fetched while validating. The subprocess tests would time out
or see a request on the local server. The tests of a pattern that must finish stay processes: their
timeout turns a hang into a failure, where an in-process hang would stop the suite.
"""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
import yaml

from osiris.registry import load_registry
from osiris.registry.patterns import PatternError, search
from osiris.validate import Validator
from tests.validate_helpers import CONNECTIONS, oml, run_cli, step

EVIL = "^(a+)+$"
HOSTILE_TEXT = "a" * 40 + "!"


def acme_spec(properties: dict, **schema) -> str:
    return yaml.safe_dump({
        "name": "acme.extractor", "version": "1.0.0", "title": "Acme", "modes": ["extract"],
        "capabilities": {}, "configSchema": {"type": "object", "properties": properties, **schema}})


@pytest.fixture
def project(tmp_path):
    (tmp_path / ".osiris.yaml").write_text(yaml.safe_dump({"connections": CONNECTIONS}))
    (tmp_path / "components" / "acme.extractor").mkdir(parents=True)
    return tmp_path


def write_spec(project, text: str):
    path = project / "components" / "acme.extractor" / "spec.yaml"
    path.write_text(text)
    return path.resolve()


def acme_pipeline(project, **config) -> None:
    (project / "p.yaml").write_text(oml(step("read-acme", "acme.extractor", "read", config)))


def test_a_backtracking_pattern_in_a_user_spec_finishes_with_oml308(project):
    write_spec(project, acme_spec({"table": {"type": "string", "pattern": EVIL}}))
    acme_pipeline(project, table=HOSTILE_TEXT)
    result = run_cli("validate", "--json", "p.yaml", cwd=project, process=True)
    assert result.returncode == 1, result.stderr
    issues = json.loads(result.stdout)["files"][0]["issues"]
    assert [(i["code"], i["path"]) for i in issues] == [("OML308", "/steps/0/config/table")]
    assert issues[0]["message"] == f"table is '{HOSTILE_TEXT}', which does not match the pattern {EVIL}"


def test_a_backtracking_pattern_property_finishes(project):
    write_spec(project, acme_spec({}, patternProperties={EVIL: {"type": "integer"}}, additionalProperties=False))
    (project / "p.yaml").write_text(oml(step("read-acme", "acme.extractor", "read", {HOSTILE_TEXT: 1, "aaaa": "x"})))
    result = run_cli("validate", "--json", "p.yaml", cwd=project, process=True)
    assert result.returncode == 1, result.stderr
    issues = json.loads(result.stdout)["files"][0]["issues"]
    assert [(i["code"], i["path"]) for i in issues] == [
        ("OML304", f"/steps/0/config/{HOSTILE_TEXT}"), ("OML305", "/steps/0/config/aaaa")]


def test_a_pattern_from_the_pipeline_in_a_rule_finishes(project):
    # The hostile text is the step's name: a step id must be a plain name (OML214), and tier-2 errors stop the rules.
    rule = {"name": "id-shape", "expr": "matches(step.name, step.description)", "message": "id has the wrong shape"}
    (project / ".osiris.yaml").write_text(yaml.safe_dump({"connections": CONNECTIONS, "validation": {"rules": [rule]}}))
    (project / "p.yaml").write_text(oml(step("read", "filesystem.csv_extractor", "read", {"path": "a.csv"},
                                             name=HOSTILE_TEXT, description=EVIL)))
    result = run_cli("validate", "p.yaml", cwd=project, process=True)
    assert result.returncode == 1, result.stderr
    assert any(line.endswith("OML404 id has the wrong shape (rule 'id-shape')") for line in result.stdout.splitlines())


def test_a_rule_pattern_re2_cannot_run_is_a_settings_error(project):
    rule = {"name": "look", "expr": 'matches(step.id, "(?=a)a")'}
    (project / ".osiris.yaml").write_text(yaml.safe_dump({"validation": {"rules": [rule]}}))
    (project / "p.yaml").write_text(oml())
    # a process: RE2 logs from C to file descriptor 2, which an in-process run does not capture
    result = run_cli("validate", "p.yaml", cwd=project, process=True)
    assert result.returncode == 2
    assert result.stderr.startswith(f"osiris: error: {project / '.osiris.yaml'}: validation.rules 'look' expr: "
                                    "matches() pattern '(?=a)a' is not a pattern Osiris can run (")
    assert result.stderr.count("\n") == 1  # one line: nothing from RE2's own logging


def test_a_spec_pattern_re2_cannot_run_is_a_spec_problem_naming_the_file(project):
    path = write_spec(project, acme_spec({"table": {"type": "string", "pattern": "(a)\\1"}}))
    result = run_cli("components", "validate", cwd=project)
    assert result.returncode == 1
    assert result.stderr.splitlines()[0] == (
        f"osiris: {path}: /configSchema/properties/table/pattern = '(a)\\\\1': not a pattern Osiris can run "
        "(invalid escape sequence: \\1); lookahead, lookbehind and backreferences are not supported")


def test_re2_search_behaves_like_re_search_on_ordinary_patterns():
    assert search("^[a-z][a-z0-9-]*$", "mysql-1") and not search("^[a-z]+$", "Mysql")
    assert search(r"\.supabase\.co$", "https://x.supabase.co")
    with pytest.raises(PatternError):
        search("(?<=a)b", "ab")


class Recorder(BaseHTTPRequestHandler):
    requests: list[str] = []

    def do_GET(self):  # noqa: N802 (http.server's name)
        Recorder.requests.append(self.path)
        body = b'{"type": "string"}'
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


@pytest.fixture
def server():
    Recorder.requests = []
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Recorder)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()
    httpd.server_close()


def dangling_line(path, pointer: str, reference: str) -> str:
    return (f"{path}: {pointer} = {reference!r} does not resolve inside the spec; Osiris resolves references "
            "only within the spec (#/... or an $anchor) and never fetches one")


@pytest.mark.parametrize("reference", ["REMOTE/x.json", "file:///etc/passwd", "#/$defs/missing", "other.json"])
def test_a_ref_outside_the_spec_is_a_spec_problem_and_nothing_is_fetched(project, server, reference):
    reference = reference.replace("REMOTE", server)
    path = write_spec(project, acme_spec({"table": {"$ref": reference}}))
    acme_pipeline(project, table="customers")
    line = dangling_line(path, "/configSchema/properties/table/$ref", reference)

    validated = run_cli("validate", "p.yaml", cwd=project)
    assert validated.returncode == 1, validated.stderr
    assert validated.stderr.splitlines() == [f"osiris: warning: component spec skipped: {line}"]
    assert "OML301 unknown component 'acme.extractor'" in validated.stdout

    checked = run_cli("components", "validate", cwd=project)
    assert checked.returncode == 1
    assert checked.stderr.splitlines() == [f"osiris: {line}"]
    assert Recorder.requests == []  # the server saw no request from either command


def test_refs_inside_the_spec_resolve_and_validate(tmp_path):
    spec = acme_spec({"table": {"$ref": "#/$defs/name"}, "view": {"$ref": "#view"}},
                     **{"$defs": {"name": {"type": "string", "minLength": 2}, "v": {"$anchor": "view", "type": "string"}}})
    (tmp_path / "acme.extractor").mkdir()
    (tmp_path / "acme.extractor" / "spec.yaml").write_text(spec)
    registry = load_registry([tmp_path])
    assert registry.problems == []
    report = Validator(registry).validate(oml(step("read-acme", "acme.extractor", "read", {"table": "x", "view": 5})))
    assert [(i.code, i.path) for i in report.issues] == [
        ("OML306", "/steps/0/config/table"), ("OML305", "/steps/0/config/view")]
