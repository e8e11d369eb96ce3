"""Hostile but tiny answers (issue 9, items 3 and 12): never an exception, never NaN in JSON.

Each case was exit 5 (internal error) or a hang before the fix; each now gets the code and line
the user sees.
"""

from __future__ import annotations

import json
import re
from types import SimpleNamespace

import pytest
import yaml

from osiris.validate.coerce import coerce_value
from osiris.validate.findings import Findings
from tests.inprocess import run_inprocess
from tests.validate_helpers import CONNECTIONS, oml, run_cli, validator

HEAD = 'oml_version: "0.1.0"\nname: customers-to-csv\n'
STEP = ("steps:\n  - id: extract-customers\n    component: mysql.extractor\n    mode: read\n"
        "    config:\n      connection: \"@mysql.default\"\n      table: customers\n")


def strict_json(value) -> str:
    """What the session writers do: json.dumps with allow_nan=False (raises on NaN and Infinity)."""
    return json.dumps(value, allow_nan=False)


def report_json(text: str) -> tuple[list[str], str]:
    report = validator().validate(text)
    return [issue.code for issue in report.issues], strict_json(
        {"issues": [issue.to_dict() for issue in report.issues], "pipeline": report.pipeline})


@pytest.fixture
def project(tmp_path):
    (tmp_path / ".osiris.yaml").write_text(yaml.safe_dump({"connections": CONNECTIONS}))
    return tmp_path


def validate_file(project, text: str, *args: str):
    (project / "p.yaml").write_text(text)
    return run_cli("validate", *args, "p.yaml", cwd=project)


@pytest.mark.parametrize("text, line", [
    (HEAD + "steps: []\necho: !!bool maybe\n", "p.yaml:4:7 OML101 'maybe' is not a valid !!bool"),
    (HEAD + STEP + "      query: !!timestamp x\n", "p.yaml:10:14 OML101 'x' is not a valid !!timestamp"),
])
def test_values_safe_load_refuses_are_oml101_with_their_line(project, text, line):
    result = validate_file(project, text)
    assert result.returncode == 1, result.stderr
    assert result.stdout.splitlines()[0] == line


def test_a_huge_hex_number_is_oml105_not_a_crash(project):
    result = validate_file(project, HEAD + STEP + "      port: 0x" + "f" * 4000 + "\n")
    assert result.returncode == 1, result.stderr
    assert result.stdout.splitlines()[0] == (
        "p.yaml:10:13 OML105 the number 0xfffffffffffffffffffffffffffffffffff... has 4,002 characters; "
        "numbers must be smaller than 2^64")


def test_numbers_beyond_64_bits_are_oml105():
    codes, _ = report_json(HEAD + STEP + "      port: " + "9" * 30 + "\n")
    assert codes == ["OML105"]


# These used `port`, which since issue 22 is also OML314 in a step with a connection (it says where
# the connection goes); `offset` is a plain whole-number field, so the type error stands alone.
def test_a_5000_digit_string_is_not_coerced_but_a_type_error(project):
    result = validate_file(project, HEAD + STEP + "      offset: \"" + "9" * 5000 + "\"\n", "--json")
    assert result.returncode == 1, result.stderr
    issues = json.loads(result.stdout)["files"][0]["issues"]
    assert [(i["code"], i["path"]) for i in issues] == [("OML305", "/steps/0/config/offset")]
    assert issues[0]["message"] == "offset must be a whole number, not '" + "9" * 57 + "...'"


@pytest.mark.parametrize("written", [".nan", ".inf", "-.Inf", "1e999"])
def test_nan_and_infinity_are_type_errors_and_never_reach_json(project, written):
    result = validate_file(project, HEAD + STEP + f"      offset: {written}\n      batch_size: {written}\n", "--json")
    assert result.returncode == 1, result.stderr
    data = json.loads(result.stdout, parse_constant=lambda name: pytest.fail(f"{name} in --json output"))
    issues = data["files"][0]["issues"]
    assert [(i["code"], i["path"], i["value"]) for i in issues] == [
        ("OML305", "/steps/0/config/offset", written), ("OML305", "/steps/0/config/batch_size", written)]
    assert issues[0]["message"] == f"offset must be a whole number, not '{written}'"


def test_nan_in_free_text_keeps_the_report_strict_json():
    codes, dumped = report_json(HEAD + STEP + "description: .nan\nx-limit: .inf\n")
    assert "OML101" not in codes and "NaN" not in dumped and "Infinity" not in dumped


@pytest.mark.parametrize("text", ["1e999", "9" * 5000, "-" + "9" * 400])
def test_string_numbers_beyond_limits_are_not_coerced(text):
    assert coerce_value(text, {"type": "number"}) == text
    assert coerce_value(text, {"type": "integer"}) == text


def test_a_non_finite_value_an_issue_carries_is_rendered_as_text():
    findings = Findings()
    findings.add("OML305", "/steps/0/config/port", "bad", value=float("nan"))
    findings.add("OML305", "/steps/0/config/port", "bad", value=10**5000)
    assert [issue.value for issue in findings.issues] == ["nan", "<a number of 16610 bits>"]
    strict_json([issue.to_dict() for issue in findings.issues])


@pytest.mark.parametrize("text, line", [
    (HEAD + "steps: !!python/object/apply:os.system\n  - echo pwned\n",
     "p.yaml:3:8 OML101 the tag !!python/object/apply:os.system is not allowed here: OML is plain YAML"),
    ('oml_version: "0.1.0"\n!!python/name:os.system name: x\nsteps: []\n',
     "p.yaml:2:1 OML101 the tag !!python/name:os.system is not allowed: OML is plain YAML"),
])
def test_tags_on_collections_and_keys_are_oml101(project, text, line):
    with pytest.raises(yaml.YAMLError):
        yaml.safe_load(text)  # what Osiris refuses, safe_load refuses too
    result = validate_file(project, text)
    assert result.returncode == 1, result.stderr
    assert result.stdout.splitlines()[0] == line


def test_collection_tags_safe_load_reads_are_refused_too(project):
    """OML has no sets or ordered maps: a tagged collection is never what an author meant."""
    result = validate_file(project, HEAD + "metadata: !!set {a, b}\nsteps: []\n")
    assert result.stdout.splitlines()[0] == "p.yaml:3:11 OML101 the tag !!set is not allowed here: OML is plain YAML"


def test_merge_and_value_keys_stay_text():
    codes, _ = report_json(HEAD + STEP + "      delimiter: =\n")
    assert "OML101" not in codes


@pytest.mark.parametrize("path", ["steps/0/config/port", "x", "no-slash"])
def test_position_of_a_path_without_leading_slash_ends(path):
    findings = Findings({"": (1, 1)})
    assert findings.position_of(path) == (1, 1)


@pytest.mark.parametrize("expr", ["not " * 3000 + "step", "[" * 60 + "]" * 60, "step" + ".a" * 3000])
def test_a_deeply_nested_rule_is_a_settings_error_exit_2(project, expr):
    (project / ".osiris.yaml").write_text(yaml.safe_dump({"validation": {"rules": [{"name": "deep", "expr": expr}]}}))
    result = validate_file(project, oml())
    assert result.returncode == 2, result.stderr
    assert result.stderr.splitlines() == [
        f"osiris: error: {project / '.osiris.yaml'}: validation.rules 'deep' expr: the expression nests deeper "
        "than 50 levels; split it into simpler rules"]


def test_a_lone_surrogate_is_oml101_at_its_position():
    report = validator().validate(HEAD + STEP + "      query: \"SELECT \ud800 FROM t\"\n")
    assert [(i.code, i.line, i.column, i.message) for i in report.issues] == [
        ("OML101", 10, 22, "the text holds a lone surrogate (U+D800), which is not valid Unicode")]


# Found by tests/test_fuzz.py: steps the SQL checks met half-built.
@pytest.mark.parametrize("step_text, expected", [
    ("  - component: mysql.extractor\n    mode: read\n    config: {connection: \"@mysql.default\", query: \"SELEC x\"}\n",
     [("OML208", "step 0 has no 'id'"),
      ("OML405", "SQL syntax error in step 'steps[0]' (MySQL): 'SELEC' does not start a query")]),
    ("  - id: a\n    component: duckdb.processor\n    mode: transform\n    needs: 5\n    config: {query: \"SELECT 1\"}\n",
     [("OML205", "needs must be a list of step ids, not a number")]),
])
def test_sql_checks_of_half_built_steps_are_issues_not_crashes(step_text, expected):
    report = validator().validate(HEAD + "steps:\n" + step_text)
    assert [(issue.code, issue.message) for issue in report.issues] == expected


# A check that fails unexpectedly (issue 9 item 3: "Validator.validate promises never to raise").
# The fault is planted by monkeypatching one check to raise; nothing else is mocked.
SECRET_IN_ERROR = "live-secret-9"  # the exception's text, as a KeyError on a pipeline value would carry it
INTERNAL = re.compile(r"^the checks stopped at an internal error \(KeyError in osiris/validate/[a-z_]+\.py:\d+\)$")
TIERS = ["parse_answer", "check_structure", "check_free_form_secrets", "check_step_config", "check_graph",
         "check_sql", "check_rules", "canonical_text"]


def plant_fault(monkeypatch, name: str) -> None:
    def fault(*args, **kwargs):
        raise KeyError(SECRET_IN_ERROR)

    monkeypatch.setattr(f"osiris.validate.validator.{name}", fault)


@pytest.mark.parametrize("check", TIERS)
def test_a_check_that_raises_becomes_one_oml105_and_no_pipeline(monkeypatch, check):
    plant_fault(monkeypatch, check)

    rule = SimpleNamespace(name="r", expr="len(steps) > 0", when=None, level="error", message=None)
    report = validator([rule]).validate(oml(name="Customers To CSV"))

    [stop] = [issue for issue in report.issues if issue.message.startswith("the checks stopped")]
    assert (stop.code, stop.tier, stop.severity, stop.path, stop.line) == ("OML105", 1, "error", "", None)
    assert INTERNAL.match(stop.message), stop.message
    assert stop.hint.startswith("this is a bug in Osiris, not in the pipeline")
    assert report.issues[0] is stop and not report.valid and report.pipeline is None
    assert SECRET_IN_ERROR not in strict_json([issue.to_dict() for issue in report.issues])


def test_what_was_found_before_the_fault_is_kept(monkeypatch):
    plant_fault(monkeypatch, "check_graph")

    report = validator().validate(oml(name="Customers To CSV"))

    assert [issue.code for issue in report.issues] == ["OML105", "OML211"]  # the tier-2 warning stays


def test_the_location_is_the_last_line_of_osiris_the_fault_passed(monkeypatch):
    """A fault deep in a check names that module, not the validator."""
    import osiris.validate.dependencies as graph

    def fault(*args, **kwargs):
        raise ValueError(SECRET_IN_ERROR)

    monkeypatch.setattr(graph, "_cycles", fault)
    report = validator().validate(oml())

    [stop] = [issue for issue in report.issues if issue.code == "OML105"]
    assert re.match(r"^the checks stopped at an internal error \(ValueError in osiris/validate/dependencies\.py:\d+\)$",
                    stop.message), stop.message


def test_osiris_validate_prints_one_line_and_exits_1(monkeypatch, project):
    plant_fault(monkeypatch, "check_sql")
    (project / "p.yaml").write_text(oml())

    done = run_inprocess("validate", "p.yaml", cwd=project)
    as_json = run_inprocess("validate", "--json", "p.yaml", cwd=project)

    assert done.returncode == 1, done.stderr
    lines = done.stdout.splitlines()
    assert re.match(r"^p\.yaml OML105 the checks stopped at an internal error "
                    r"\(KeyError in osiris/validate/validator\.py:\d+\)$", lines[0]), lines
    assert lines[1:] == ["    hint: this is a bug in Osiris, not in the pipeline: please report it with this line; "
                         "a pipeline that was not checked to the end is never accepted", "p.yaml: invalid (1 error)"]
    assert done.stderr == ""
    assert as_json.returncode == 1
    [issue] = json.loads(as_json.stdout)["files"][0]["issues"]
    assert (issue["code"], issue["path"], issue["line"]) == ("OML105", "", None)
    assert SECRET_IN_ERROR not in done.stdout + as_json.stdout


def test_generate_retries_records_and_exits_1_without_writing(monkeypatch, project, fake_api):
    """The session keeps working: each attempt is an invalid answer, the retries run, exit 1."""
    from tests.conftest import osiris_here, session_dirs, write_settings
    from tests.engine_samples import VALID, fenced
    from tests.fake_anthropic import Reply

    plant_fault(monkeypatch, "check_graph")
    write_settings(project, {"llm": {"base_url": fake_api.url, "timeout_seconds": 5},
                             "validation": {"retry": {"max_attempts": 1}}})
    fake_api.add(Reply(fenced(VALID)))

    done = osiris_here("generate", "copy the customers CSV to a new CSV", "-o", "out.yaml", cwd=project)

    assert done.returncode == 1, done.stderr
    assert "Traceback" not in done.stderr and SECRET_IN_ERROR not in done.stderr
    assert not (project / "out.yaml").exists()
    [session] = session_dirs(project)
    events = [json.loads(line) for line in (session / "events.jsonl").read_text().splitlines()]
    attempts = [e for e in events if e["event_type"] == "validation_attempt_complete"]
    assert [(e["valid"], e["error_codes"]) for e in attempts] == [(False, ["OML105"])] * len(attempts)
    assert len(attempts) >= 1 and len(fake_api.requests) == len(attempts)
    assert SECRET_IN_ERROR not in "".join(p.read_text() for p in session.rglob("*") if p.is_file())
