"""Pipeline parameters (docs/run-again.md): `params:` and `${params.name}`, resolved from
`--param`, then `OSIRIS_PARAM_<NAME>`, then the default; validated after substitution; recorded in
the run's trail. End to end through `osiris validate` and `osiris run` on real files."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from osiris.registry import load_registry
from osiris.validate.validator import Validator
from tests.inprocess import run_inprocess
from tests.run_helpers import RunProject, csv_step, sql_step
from tests.support import clean_env

CONNECTIONS = {"mysql": {"main": {"host": "db", "user": "u", "password": "${MYSQL_PASSWORD}", "database": "shop"}},
               "supabase": {"main": {"url": "https://a.supabase.co", "key": "${SUPABASE_KEY}"}}}

# The form of public Osiris's pipelines with parameters (its tests/integration/test_compile_run.py).
PUBLIC_FORM = """\
oml_version: "0.1.0"
name: test-pipeline
params:
  table:
    default: test_table
steps:
  - id: extract
    component: mysql.extractor
    mode: read
    config:
      connection: "@mysql.main"
      query: "SELECT * FROM ${params.table}"
  - id: load
    component: supabase.writer
    mode: write
    config:
      connection: "@supabase.main"
      table: output_table
"""


def validator(env: dict[str, str] | None = None) -> Validator:
    return Validator(load_registry(), CONNECTIONS, env=env or {})


@pytest.mark.parametrize("declared", ["table:\n    default: test_table", "table: test_table",
                                      "table:\n    default: test_table\n    description: the table to copy"])
def test_the_public_form_validates_and_its_query_is_checked_with_the_value(declared):
    text = PUBLIC_FORM.replace("table:\n    default: test_table", declared)
    report = validator().validate(text)
    assert report.valid, [i.to_dict() for i in report.issues]
    assert [i.code for i in report.issues] == []
    assert report.step_configs["extract"].config["query"] == "SELECT * FROM test_table"
    assert report.params == {"table": {"value": "test_table", "source": "default"}}
    assert report.oml_text == text  # the saved pipeline keeps ${params.table}


def test_precedence_is_param_then_env_then_default():
    env = {"OSIRIS_PARAM_TABLE": "from_env"}
    assert validator(env).validate(PUBLIC_FORM).step_configs["extract"].config["query"] == "SELECT * FROM from_env"
    report = validator(env).validate(PUBLIC_FORM, params={"table": "from_cli"})
    assert report.step_configs["extract"].config["query"] == "SELECT * FROM from_cli"
    assert report.params == {"table": {"value": "from_cli", "source": "param"}}


def test_an_unresolved_parameter_names_itself_and_is_not_oml316():
    text = PUBLIC_FORM.replace("params:\n  table:\n    default: test_table\n", "")
    report = validator().validate(text)
    assert [(i.code, i.path, i.message) for i in report.errors] == [
        ("OML318", "/steps/0/config/query", "parameter 'table' has no value")]
    assert "--param table=VALUE" in report.errors[0].hint and "OSIRIS_PARAM_TABLE" in report.errors[0].hint
    assert validator({"OSIRIS_PARAM_TABLE": "t"}).validate(text).valid  # used without a declaration: public's rule


def test_an_environment_reference_in_a_step_stays_oml316_and_a_value_cannot_smuggle_one():
    text = PUBLIC_FORM.replace("${params.table}", "${HOME}")
    assert [i.code for i in validator().validate(text).errors] == ["OML316"]
    report = validator().validate(PUBLIC_FORM, params={"table": "${HOME}"})
    assert [i.code for i in report.errors] == ["OML316"]


def test_sql_is_checked_after_substitution():
    report = validator().validate(PUBLIC_FORM, params={"table": "t WHERE ("})
    assert [i.code for i in report.errors] == ["OML405"]


def test_a_whole_value_keeps_its_type_and_is_not_written_into_the_text():
    text = PUBLIC_FORM.replace("      query: \"SELECT * FROM ${params.table}\"",
                               "      query: \"SELECT * FROM t\"\n      batch_size: \"${params.batch}\"")
    text = text.replace("params:\n", "params:\n  batch: {default: 500}\n")
    report = validator().validate(text)
    assert report.valid, [i.to_dict() for i in report.errors]
    assert report.step_configs["extract"].config["batch_size"] == 500
    report = validator().validate(text, params={"batch": "700"})  # text from the command line: typed, silently
    assert report.valid and report.step_configs["extract"].config["batch_size"] == 700
    assert [i.code for i in report.issues] == [] and report.oml_text == text


@pytest.mark.parametrize("block, code", [
    ("params: [a, b]\n", "OML216"),
    ("params:\n  bad-name: {default: 1}\n", "OML216"),
    ("params:\n  table: {default: [1, 2]}\n", "OML216"),
    ("params:\n  table: {default: t, kind: text}\n", "OML216"),
    ("params:\n  api_token: {default: abc123}\n", "OML310"),
])
def test_a_malformed_params_block_is_an_error(block, code):
    text = PUBLIC_FORM.replace("params:\n  table:\n    default: test_table\n", block)
    text = text.replace("${params.table}", "t")
    assert code in [i.code for i in validator().validate(text).errors]


def test_a_parameter_in_a_secret_field_is_an_inline_secret():
    text = PUBLIC_FORM.replace('      connection: "@supabase.main"\n',
                               '      connection: "@supabase.main"\n      key: "${params.key}"\n')
    report = validator().validate(text, params={"key": "sekrit-value-1"})
    assert "OML310" in [i.code for i in report.errors]


# --- the commands -------------------------------------------------------------------------------

@pytest.fixture
def files(tmp_path: Path) -> RunProject:
    proj = RunProject(tmp_path / "project")
    (proj.root / "data").mkdir()
    (proj.root / "data" / "people.csv").write_text("id,name,city\n1,Ann,Oslo\n2,Bob,Rome\n3,Cid,Oslo\n")
    return proj


def parametrised(proj: RunProject) -> Path:
    path = proj.pipeline([csv_step("read-people", "read", "data/people.csv"),
                          sql_step("pick", "SELECT name FROM input_df WHERE city = '${params.city}' ORDER BY id"),
                          csv_step("write", "write", "out/${params.city}.csv")], name="people-by-city")
    document = yaml.safe_load(path.read_text())
    document["params"] = {"city": {"default": "Oslo", "description": "the city to keep"}}
    path.write_text(yaml.safe_dump(document, sort_keys=False))
    return path


def test_run_takes_the_default_the_environment_and_the_flag_and_records_them(files):
    path = parametrised(files)
    assert files.run(str(path)).returncode == 0
    assert (files.root / "out" / "Oslo.csv").read_text() == "name\nAnn\nCid\n"
    [start] = [e for e in files.events() if e["event_type"] == "run_start"]
    assert start["params"] == {"city": {"value": "Oslo", "source": "default"}}
    result = files.run(str(path), env={"OSIRIS_PARAM_CITY": "Rome"})
    assert result.returncode == 0, result.stderr
    assert (files.root / "out" / "Rome.csv").read_text() == "name\nBob\n"
    result = files.run(str(path), "--param", "city=Bergen", env={"OSIRIS_PARAM_CITY": "Rome"})
    assert result.returncode == 0, result.stderr
    assert (files.root / "out" / "Bergen.csv").read_text() == "name\n"
    run = json.loads((files.last_session() / "artifacts" / "run.json").read_text())
    assert run["params"] == {"city": {"value": "Bergen", "source": "param"}}


def test_run_without_a_value_exits_2_naming_the_parameter(files):
    path = parametrised(files)
    document = yaml.safe_load(path.read_text())
    del document["params"]
    path.write_text(yaml.safe_dump(document, sort_keys=False))
    result = files.run(str(path))
    assert result.returncode == 2
    assert "OML318" in result.stderr and "parameter 'city' has no value" in result.stderr
    assert not (files.root / ".osiris" / "sessions").exists()  # nothing ran
    checked = run_inprocess("validate", str(path), cwd=files.root, env=clean_env())
    assert checked.returncode == 1 and "parameter 'city' has no value" in checked.stdout + checked.stderr
    checked = run_inprocess("validate", str(path), "--param", "city=Oslo", cwd=files.root, env=clean_env())
    assert checked.returncode == 0, checked.stdout + checked.stderr


def test_an_unknown_or_malformed_flag_is_a_usage_error(files):
    path = parametrised(files)
    result = files.run(str(path), "--param", "cty=Rome")
    assert result.returncode == 2
    assert "--param cty: the pipeline has no parameter 'cty' (its parameters: city) (did you mean 'city'?)" in result.stderr
    result = files.run(str(path), "--param", "city")
    assert result.returncode == 2 and "expected name=value" in result.stderr
    assert not (files.root / "out").exists()


# The four forms public Osiris's own tests give pipelines with parameters (tests/integration/
# test_compile_run.py, tests/unit/test_compiler_v0.py, keboola/osiris), written again here.
@pytest.mark.parametrize("name, default, query, expected", [
    ("table", "test_table", "SELECT * FROM ${params.table}", "SELECT * FROM test_table"),
    ("env", "dev", "SELECT '${params.env}' as env", "SELECT 'dev' as env"),
    ("value", "42", "SELECT ${params.value} as value", "SELECT 42 as value"),
    ("db", "test_db", "SELECT * FROM ${params.db}", "SELECT * FROM test_db"),
])
def test_the_public_pipelines_with_parameters_validate(name, default, query, expected):
    document = {"oml_version": "0.1.0", "name": "public-form", "params": {name: {"default": default}},
                "steps": [{"id": "extract", "component": "mysql.extractor", "mode": "read",
                           "config": {"connection": "@mysql.main", "query": query}}]}
    report = validator().validate(yaml.safe_dump(document, sort_keys=False))
    assert report.valid and [i.code for i in report.issues] == [], [i.to_dict() for i in report.issues]
    assert report.step_configs["extract"].config["query"] == expected
