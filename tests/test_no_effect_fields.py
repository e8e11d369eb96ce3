"""Fields a spec accepts and Osiris does not use (`x-no-effect`, docs/components.md) are said, never
ignored in silence: a step that sets one validates and runs, with the warning OML321 naming the step
and the field, in `osiris validate`, in `osiris run` (stderr and `--json`), in the report of
`osiris generate` (the real SDK against tests/fake_anthropic.py) and in MCP's `oml_validate`.

The runs are real: the CSV cells copy a file, the MySQL cells read from and write to the suite's
real MariaDB. PostHog and Supabase cannot run here; their steps' connections name a key that is not
set, so the run stops at OML511 before any request, after the warning was printed.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from osiris.registry import load_registry
from tests.conftest import osiris_here
from tests.engine_samples import VALID, fenced
from tests.fake_anthropic import Reply
from tests.inprocess import run_inprocess
from tests.run_helpers import RunProject, csv_step, mysql_step

PEOPLE_CSV = "id,name,signup\n1,Ann,2024-01-05\n2,Bob,2024-02-06\n"
POOL = "each step opens a connection of its own and closes it when done; there is no pool"
FIELDS: dict[tuple[str, str], tuple[Any, str]] = {  # (component, field): (a value a pipeline sets, why)
    ("filesystem.csv_extractor", "chunk_size"): (500, "the engine reads the file in blocks of its own"),
    ("filesystem.csv_extractor", "parse_dates"): (["signup"], "the engine detects dates from the text either way; "
                                                              "dtype sets a column's type, e.g. {signup: DATE}"),
    ("filesystem.csv_writer", "chunk_size"): (10, "DuckDB's COPY writes in blocks of its own"),
    ("mysql.extractor", "pool_size"): (10, POOL),
    ("mysql.extractor", "pool_recycle"): (600, POOL),
    ("mysql.extractor", "echo"): (True, "the SQL a step sends is not logged"),
    ("mysql.writer", "pool_size"): (10, POOL),
    ("mysql.writer", "pool_recycle"): (600, POOL),
    ("mysql.writer", "echo"): (True, "the SQL a step sends is not logged"),
    ("posthog.extractor", "lookback_window_minutes"): (
        30, "a run reads from where the last one stopped and re-reads nothing, so no event is written twice"),
    ("supabase.writer", "returning"): ("representation", "the writer asks for return=minimal and reads no rows back"),
}
CELLS = sorted(FIELDS)
UNSET_KEY = "NO_EFFECT_UNSET_KEY"  # never set: a PostHog or Supabase run stops at OML511, before any request


def test_the_specs_mark_exactly_these_fields() -> None:
    """The list above is the specs' list: a field newly marked (or unmarked) gets its cells here."""
    marked = {(spec.name, field) for spec in load_registry([]).components.values() for field in spec.no_effect}
    assert marked == set(FIELDS)


def cell_table(component: str, field: str) -> str:
    """The MariaDB table of one cell, its own: `no_effect_writer_echo`."""
    return f"no_effect_{component.split('.')[1]}_{field}"


def steps_setting(component: str, field: str, value: Any) -> list[dict[str, Any]]:
    """A pipeline whose step `with-field` (a `component` step) sets `field`, and what it needs to run."""
    if component == "filesystem.csv_extractor":
        return [{**csv_step("with-field", "read", "people.csv"), "config": {"path": "people.csv", field: value}},
                {**csv_step("write", "write", "out.csv"), "needs": ["with-field"]}]
    if component == "filesystem.csv_writer":
        return [csv_step("read", "read", "people.csv"),
                {**csv_step("with-field", "write", "out.csv", **{field: value}), "needs": ["read"]}]
    if component == "mysql.extractor":
        return [mysql_step("with-field", "read", table=cell_table(component, field), **{field: value}),
                {**csv_step("write", "write", "out.csv"), "needs": ["with-field"]}]
    if component == "mysql.writer":
        return [csv_step("read", "read", "people.csv"),
                {**mysql_step("with-field", "write", table=cell_table(component, field), mode="replace", **{field: value}),
                 "needs": ["read"]}]
    if component == "posthog.extractor":
        return [{"id": "with-field", "component": component, "mode": "read",
                 "config": {"connection": "@posthog.ph", "data_type": "events", field: value}},
                {**csv_step("write", "write", "out.csv"), "needs": ["with-field"]}]
    assert component == "supabase.writer"
    return [csv_step("read", "read", "people.csv"),
            {"id": "with-field", "component": component, "mode": "write", "needs": ["read"],
             "config": {"connection": "@supabase.sb", "table": "people", field: value}}]


def project_setting(root: Path, component: str, field: str, mariadb: Any = None) -> tuple[RunProject, Path]:
    """A project with the people file, the connections the pipeline names, and the pipeline."""
    proj = RunProject(root, mariadb=mariadb)
    settings = yaml.safe_load((root / ".osiris.yaml").read_text(encoding="utf-8"))
    settings["connections"].update({
        "posthog": {"ph": {"api_key": f"${{{UNSET_KEY}}}", "project_id": "1", "region": "self_hosted",
                           "custom_base_url": "http://127.0.0.1:9"}},
        "supabase": {"sb": {"url": "http://127.0.0.1:9", "key": f"${{{UNSET_KEY}}}"}}})
    settings["connections"].setdefault("mysql", {"default": {"host": "127.0.0.1", "database": "shop",
                                                             "user": "osiris", "password": f"${{{UNSET_KEY}}}"}})
    (root / ".osiris.yaml").write_text(yaml.safe_dump(settings), encoding="utf-8")
    (root / "people.csv").write_text(PEOPLE_CSV, encoding="utf-8")
    value, _ = FIELDS[(component, field)]
    return proj, proj.pipeline(steps_setting(component, field, value), name="no-effect")


def warning_lines(path: Path, field: str, why: str) -> list[str]:
    """What `osiris validate` prints for the field: its line and column in the file, then the hint."""
    [(line, text)] = [(n, text) for n, text in enumerate(path.read_text().splitlines(), 1)
                      if text.lstrip().startswith(f"{field}:")]
    column = len(text) - len(text.lstrip()) + 1
    return [f"{path.name}:{line}:{column} OML321 warning: step 'with-field': {field} has no effect in Osiris ({why})",
            f"    hint: remove {field} from the step"]


@pytest.mark.parametrize("component, field", CELLS)
def test_validate_prints_the_warning_and_exits_0(tmp_path: Path, component: str, field: str) -> None:
    proj, path = project_setting(tmp_path / "project", component, field)
    result = run_inprocess("validate", path.name, cwd=proj.root)
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.splitlines() == [*warning_lines(path, field, FIELDS[(component, field)][1]),
                                          "no-effect.yaml: valid (1 warning)"]


@pytest.mark.parametrize("component, field", CELLS)
def test_run_prints_the_same_warning_and_runs(tmp_path: Path, request: pytest.FixtureRequest,
                                              component: str, field: str) -> None:
    mariadb = request.getfixturevalue("mariadb_server") if component.startswith("mysql.") else None
    if mariadb is not None:
        table = cell_table(component, field)
        mariadb.execute(f"DROP TABLE IF EXISTS {table}",
                        f"CREATE TABLE {table} (id INT PRIMARY KEY, name VARCHAR(20))" if component == "mysql.extractor"
                        else f"CREATE TABLE {table} (id BIGINT, name VARCHAR(20), signup DATE)")
        if component == "mysql.extractor":
            mariadb.execute(f"INSERT INTO {table} VALUES (1, 'Ann'), (2, 'Bob')")
    proj, path = project_setting(tmp_path / "project", component, field, mariadb)
    result = proj.run(path.name)
    lines = warning_lines(path, field, FIELDS[(component, field)][1])
    shown = result.stderr.splitlines()
    assert shown[shown.index(lines[0]):shown.index(lines[0]) + 2] == lines, result.stderr
    assert "Traceback" not in result.stderr
    if component.startswith(("posthog.", "supabase.")):  # stopped for the key, not for the field
        assert result.returncode == 6, result.stdout + result.stderr
        key = "connections.posthog.ph.api_key" if component.startswith("posthog.") else "connections.supabase.sb.key"
        assert (f"no-effect.yaml OML511 step 'with-field': {key} refers to ${{{UNSET_KEY}}}, which is not set"
                in shown), result.stderr
        return
    assert result.returncode == 0, result.stdout + result.stderr
    if component == "mysql.writer":
        assert mariadb is not None
        con = mariadb.connect()
        try:
            with con.cursor() as cursor:
                cursor.execute(f"SELECT id, name, signup FROM {cell_table(component, field)} ORDER BY id")
                assert [(i, n, str(d)) for i, n, d in cursor.fetchall()] == [(1, "Ann", "2024-01-05"),
                                                                             (2, "Bob", "2024-02-06")]
        finally:
            con.close()
    else:
        expected = "id,name\n1,Ann\n2,Bob\n" if component == "mysql.extractor" else PEOPLE_CSV
        assert (proj.root / "out.csv").read_text() == expected


def test_run_json_lists_the_warning_in_issues(tmp_path: Path) -> None:
    proj, path = project_setting(tmp_path / "project", "filesystem.csv_writer", "chunk_size")
    result = proj.run(path.name, "--json")
    assert result.returncode == 0, result.stderr
    [issue] = json.loads(result.stdout)["issues"]
    assert (issue["code"], issue["severity"], issue["path"], issue["message"]) == (
        "OML321", "warning", "/steps/1/config/chunk_size",
        "step 'with-field': chunk_size has no effect in Osiris (DuckDB's COPY writes in blocks of its own)")


def test_a_sample_run_prints_the_warning_too(tmp_path: Path) -> None:
    proj, path = project_setting(tmp_path / "project", "filesystem.csv_extractor", "parse_dates")
    result = proj.run(path.name, "--sample", "1")
    assert result.returncode == 0, result.stderr
    lines = warning_lines(path, "parse_dates", FIELDS[("filesystem.csv_extractor", "parse_dates")][1])
    assert result.stderr.splitlines()[:2] == lines
    assert not (proj.root / "out.csv").exists()  # a sample keeps nothing


def test_the_generation_loop_shows_the_warning_and_asks_no_fix(project: Path, fake_api: Any) -> None:
    """A warning is no reason to ask the LLM again: one request, the pipeline handed over as answered."""
    answered = VALID.replace("      path: output/active_customers.csv\n",
                             "      path: output/active_customers.csv\n      chunk_size: 10\n")
    fake_api.add(Reply(fenced(answered)))
    done = osiris_here("generate", "copy the customers CSV to output/active_customers.csv", cwd=project)
    assert done.returncode == 0, done.stderr
    assert len(fake_api.requests) == 1 and done.stdout == answered
    shown = done.stderr.splitlines()
    at = shown.index("osiris: attempt 1: valid with 1 warning")
    assert shown[at + 1:at + 4] == [
        "  - warning OML321 in steps[1].config.chunk_size (line 15, column 7): config field has no effect",
        "      step 'write-active': chunk_size has no effect in Osiris (DuckDB's COPY writes in blocks of its own)",
        "      how to fix: remove chunk_size from the step"]


def test_mcp_validate_returns_the_warning(tmp_path: Path, mcp_in: Any) -> None:
    proj, path = project_setting(tmp_path / "project", "mysql.extractor", "echo")
    data = mcp_in(proj.root).call("oml_validate", {"oml": path.read_text()}).data
    assert data["valid"] is True
    assert [(i["code"], i["severity"], i["message"]) for i in data["issues"]] == [
        ("OML321", "warning", "step 'with-field': echo has no effect in Osiris (the SQL a step sends is not logged)")]


CONNECTED = [(component, field) for component, field in CELLS if not component.startswith("filesystem.")]
CONNECTION_OF = {"mysql": "mysql.default", "posthog": "posthog.ph", "supabase": "supabase.sb"}


@pytest.mark.parametrize("component, field", CONNECTED)
def test_a_field_without_effect_in_the_step_s_connection_is_said_too(tmp_path: Path, component: str,
                                                                      field: str) -> None:
    """A run merges the connection's fields under the step's config (osiris.run.connections): the same
    field set on the connection in .osiris.yaml is said at the step's `connection`, naming where it is."""
    proj, path = project_setting(tmp_path / "project", component, field)
    value, why = FIELDS[(component, field)]
    steps = steps_setting(component, field, value)
    next(step for step in steps if step["id"] == "with-field")["config"].pop(field)  # the step sets none
    path = proj.pipeline(steps, name="no-effect")
    connection = CONNECTION_OF[component.split(".")[0]]
    settings = yaml.safe_load((proj.root / ".osiris.yaml").read_text(encoding="utf-8"))
    family, alias = connection.split(".")
    settings["connections"][family][alias][field] = value
    (proj.root / ".osiris.yaml").write_text(yaml.safe_dump(settings), encoding="utf-8")
    [(line, text)] = [(n, text) for n, text in enumerate(path.read_text().splitlines(), 1)
                      if text.lstrip().startswith("connection:")]
    result = run_inprocess("validate", path.name, cwd=proj.root)
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.splitlines() == [
        f"{path.name}:{line}:{len(text) - len(text.lstrip()) + 1} OML321 warning: step 'with-field': {field}, "
        f"from the connection @{connection}, has no effect in Osiris ({why})",
        f"    hint: remove {field} from connections.{connection} in .osiris.yaml",
        "no-effect.yaml: valid (1 warning)"]
