"""Issue 30 (and issue 22 item 6, issue 25's empty sample): what `osiris run`, `run --sample`,
`generate --dry-run` and `osiris sessions` show a person about a run. Each test drives the real
program (in-process, a child, or a pseudo-terminal) and asserts the lines a person sees."""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest
import yaml

from tests.conftest import TEST_API_KEY, osiris_here
from tests.fake_anthropic import Reply
from tests.run_helpers import RunProject, csv_step, pg_step, sql_step
from tests.sample_project import pipeline
from tests.servers.json_api import json_api
from tests.support import clean_env
from tests.test_run_cli import PEOPLE, files  # noqa: F401 (the fixture: a project with data/people.csv)
from tests.test_run_display import on_terminal


def _times(text: str) -> str:
    """Durations vary from run to run: `0.1 s` -> `#.# s`."""
    return re.sub(r"\b\d+\.\d s\b", "#.# s", text)


@pytest.fixture
def pg(tmp_path: Path, postgres_server) -> RunProject:
    proj = RunProject(tmp_path / "project", postgres=postgres_server)
    (proj.root / "data").mkdir()
    (proj.root / "data" / "people.csv").write_text(PEOPLE)
    with psycopg.connect(postgres_server.dsn(), autocommit=True) as conn:
        conn.execute("DROP TABLE IF EXISTS ux_people")
        conn.execute("CREATE TABLE ux_people (id integer PRIMARY KEY, name text, city text)")
    return proj


def pg_rows(postgres_server) -> list[tuple[object, ...]]:
    with psycopg.connect(postgres_server.dsn()) as conn:
        return conn.execute("SELECT id, name, city FROM ux_people ORDER BY id").fetchall()


# --- item 1: a run session says what the run did -------------------------------------------------

def test_sessions_show_of_a_run_names_the_pipeline_each_step_and_each_writers_target(pg, postgres_server):
    path = pg.pipeline([csv_step("read-people", "read", "data/people.csv"),
                        pg_step("load-people", "write", table="ux_people", write_mode="replace"),
                        {**csv_step("copy-people", "write", "out/people.csv"), "needs": ["read-people"]}],
                       name="people-to-pg")
    digest = hashlib.sha256(path.read_bytes()).hexdigest()
    assert pg.run(str(path)).returncode == 0
    assert pg_rows(postgres_server) == [(1, "Ann", "Oslo"), (2, "Bob", "Rome"), (3, "Cid", "Oslo")]
    session = pg.last_session()

    shown = osiris_here("sessions", "show", session.name, cwd=pg.root, env=clean_env())

    assert shown.returncode == 0, shown.stderr
    lines = _times(shown.stdout).splitlines()
    assert lines[2:4] == ["command   run", "status    succeeded"]
    assert not [line for line in lines if line.startswith(("provider", "totals"))]  # no LLM in a run
    assert lines[6:] == [
        f"pipeline  people-to-pg ({path}), sha256 {digest}",
        "STEP         COMPONENT                 STATUS  ROWS IN  ROWS OUT  TIME   WROTE",
        "read-people  filesystem.csv_extractor  ok      3        3         #.# s  -",
        "load-people  postgres.writer           ok      3        3         #.# s  "
        "table ux_people on @postgres.default (replace): 3 rows written",
        "copy-people  filesystem.csv_writer     ok      3        3         #.# s  "
        "file out/people.csv (replace): 3 rows written",
    ]
    attempts = osiris_here("sessions", "attempts", session.name, cwd=pg.root, env=clean_env())
    assert _times(attempts.stdout).splitlines() == lines[6:]

    load = {"kind": "table", "name": "ux_people", "write_mode": "replace", "connection": "@postgres.default",
            "rows": 3, "kept": True}
    copy = {"kind": "file", "name": "out/people.csv", "write_mode": "replace", "connection": None,
            "rows": 3, "kept": True}
    events = {e["event_type"]: e for e in pg.events()}  # the last of each type
    assert (events["run_start"]["pipeline_name"], events["run_start"]["pipeline_sha256"]) == ("people-to-pg", digest)
    assert events["step_complete"]["target"] == copy
    assert events["run_end"]["targets"] == [load, copy]
    run = json.loads((session / "artifacts" / "run.json").read_text())
    assert (run["pipeline"], run["pipeline_name"], run["pipeline_sha256"]) == (str(path), "people-to-pg", digest)
    assert [s.get("target") for s in run["steps"]] == [None, load, copy]
    as_json = json.loads(osiris_here("sessions", "attempts", session.name, "--json", cwd=pg.root,
                                     env=clean_env()).stdout)
    assert [s.get("target") for s in as_json] == [None, load, copy]

    listed = osiris_here("sessions", "events", session.name, cwd=pg.root, env=clean_env()).stdout
    assert ('targets=["table ux_people on @postgres.default (replace): 3 rows written", '
            '"file out/people.csv (replace): 3 rows written"]') in listed


# --- item 2: `run --sample` says the writes were undone -----------------------------------------

def test_run_sample_writer_lines_say_rolled_back_nothing_kept(pg, postgres_server):
    path = pg.pipeline([csv_step("read-people", "read", "data/people.csv"),
                        pg_step("load-people", "write", table="ux_people")])

    done = pg.run(str(path), "--sample", "2")

    assert done.returncode == 0, done.stderr
    assert _times(done.stdout).splitlines()[-1] == "load-people  ok  2 rows (rolled back, nothing kept)  #.# s"
    assert pg_rows(postgres_server) == []
    as_json = json.loads(pg.run(str(path), "--sample", "2", "--json").stdout)
    assert as_json["steps"][1]["target"] == {"kind": "table", "name": "ux_people", "write_mode": "append",
                                             "connection": "@postgres.default", "rows": 2, "kept": False}
    assert as_json["steps"][0]["target"] is None
    shown = osiris_here("sessions", "show", "last", cwd=pg.root, env=clean_env()).stdout
    assert "sample    2 rows a source; writes rolled back, nothing kept" in shown.splitlines()
    assert _times(shown).splitlines()[-1].endswith(
        "table ux_people on @postgres.default (append): 2 rows (rolled back, nothing kept)")


# --- item 5: previews align wide text ------------------------------------------------------------

def test_the_sample_preview_counts_terminal_cells_for_cjk_and_combining_marks(files):
    (files.root / "data" / "people.csv").write_text(
        "id,name,city\n1,李小龍 #3,Oslo\n2,Jose\u0301,Rome\n3," + "東京都" * 10 + ",Kyoto\n", encoding="utf-8")
    path = files.pipeline([csv_step("read-people", "read", "data/people.csv")])

    done = files.run(str(path), "--sample", "5")

    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[2:6] == [
        "  id  name                     city",
        "  1   李小龍 #3                Oslo",
        "  2   Jose\u0301                     Rome",
        "  3   " + ("東京都" * 4)[:11] + "…  Kyoto",  # 22 cells of text and the ellipsis: 23 of 24
    ]


# --- item 6: control characters in data never reach the terminal raw -----------------------------

HOSTILE = [{"id": 1, "name": "\x1b]0;PWNED\x07", "city": "\x1b[2J\x1b[H"}, {"id": 2, "name": "a\rb", "city": "ok"}]


@pytest.fixture
def hostile_api() -> Iterator[str]:
    """A JSON API whose records hold terminal escapes: set the window title, clear the screen, a CR."""
    with json_api({"items": HOSTILE}) as api:
        yield api.url


def test_run_sample_on_a_terminal_shows_escapes_from_an_api_escaped(tmp_path: Path, hostile_api: str):
    proj = RunProject(tmp_path / "project")
    path = proj.pipeline([{"id": "get", "component": "rest.extractor", "mode": "read",
                           "config": {"base_url": hostile_api, "endpoint": "/items", "data_path": "items"}},
                          csv_step("write", "write", "out.csv")])
    status, screen = on_terminal(proj, path, "--sample", "5")  # the rich display, on a real terminal

    assert status == 0, screen
    for raw in ("\x1b]0;", "\x07", "\x1b[2J", "\x1b[H", "a\rb"):
        assert raw not in screen
    assert re.search(r"1\s+\\x1b\]0;PWNED\\x07\s+\\x1b\[2J\\x1b\[H", screen), screen
    assert re.search(r"2\s+a\\rb\s+ok", screen), screen


def escape_csv(root: Path) -> None:
    (root / "data").mkdir(exist_ok=True)
    (root / "data" / "people.csv").write_text('id,name\n1,"\x1b]0;PWNED\x07"\n2,"\x1b[2J"\n', encoding="utf-8")


def generate_project(tmp_path: Path, fake_api) -> Path:
    root = tmp_path / "gen"
    root.mkdir()
    (root / ".osiris.yaml").write_text(yaml.safe_dump({"llm": {"base_url": fake_api.url, "timeout_seconds": 10}}))
    return root


def test_generate_dry_run_preview_escapes_control_characters(tmp_path: Path, fake_api):
    root = generate_project(tmp_path, fake_api)
    escape_csv(root)
    fake_api.add(Reply(pipeline(csv_step("read-people", "read", "data/people.csv"),
                                csv_step("write-people", "write", "out/people.csv"))))

    done = osiris_here("generate", "copy people", "--dry-run", cwd=root, env=clean_env(ANTHROPIC_API_KEY=TEST_API_KEY))

    assert done.returncode == 0, done.stderr
    assert "\x1b" not in done.stderr and "\x07" not in done.stderr
    assert done.stderr.splitlines()[-6:-1] == [
        "  read-people: 2 rows",
        "    id  name",
        "    1   \\x1b]0;PWNED\\x07",
        "    2   \\x1b[2J",
        "  write-people: wrote 2 rows (rolled back, nothing kept)",
    ]


# --- item 7: a sampled step with no rows is a preview line, never a crash -------------------------

NONE_MATCH = "SELECT id, name FROM input_df WHERE city = 'Atlantis'"


def test_generate_dry_run_with_a_filter_that_matches_no_sample_row(tmp_path: Path, fake_api):
    root = generate_project(tmp_path, fake_api)
    (root / "data").mkdir()
    (root / "data" / "people.csv").write_text(PEOPLE)
    fake_api.add(Reply(pipeline(csv_step("read-people", "read", "data/people.csv"), sql_step("pick", NONE_MATCH),
                                csv_step("write-people", "write", "out/people.csv"))))

    done = osiris_here("generate", "copy people from atlantis", "--dry-run", "-o", "p.yaml", "--json",
                       cwd=root, env=clean_env(ANTHROPIC_API_KEY=TEST_API_KEY))

    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr and "IndexError" not in done.stderr
    assert "  pick: 0 rows (no rows matched on the sample)" in done.stderr.splitlines()
    assert json.loads(done.stdout)["valid"] is True
    assert yaml.safe_load((root / "p.yaml").read_text())["steps"][1]["id"] == "pick"
    [session] = (root / ".osiris" / "sessions").iterdir()
    assert json.loads((session / "session.json").read_text())["status"] == "valid"


def test_run_sample_with_a_filter_that_matches_no_sample_row(files):
    path = files.pipeline([csv_step("read-people", "read", "data/people.csv"), sql_step("pick", NONE_MATCH)])

    done = files.run(str(path), "--sample", "2")

    assert done.returncode == 0, done.stderr
    assert _times(done.stdout).splitlines()[-2:] == ["pick  ok  0 rows  #.# s", "  (no rows matched on the sample)"]


# --- item 9: docs/run.md says what minimal quoting quotes ----------------------------------------

def test_minimal_quoting_quotes_delimiter_quote_line_break_hash_and_empty_text_only(files):
    (files.root / "data" / "q.csv").write_text(
        'id,v\n1,"a#b"\n2," lead"\n3,"trail "\n4,"a,b"\n5,"say ""hi"""\n6,"x\ry"\n7,\n8,plain\n9,x;y\n')
    path = files.pipeline([csv_step("read", "read", "data/q.csv"),
                           sql_step("with-empty", "SELECT id, v FROM input_df UNION ALL SELECT 10, '' ORDER BY id"),
                           csv_step("write", "write", "out/q.csv")])

    assert files.run(str(path)).returncode == 0
    assert (files.root / "out" / "q.csv").read_bytes() == (
        b'id,v\n1,"a#b"\n2, lead\n3,trail \n4,"a,b"\n5,"say ""hi"""\n6,"x\ry"\n7,\n8,plain\n9,x;y\n10,""\n')


def test_a_run_problem_that_quotes_a_value_never_sends_its_escapes_to_the_terminal(files):
    escape_csv(files.root)
    path = files.pipeline([csv_step("read-people", "read", "data/people.csv"),
                           sql_step("as-number", "SELECT CAST(name AS INTEGER) AS n FROM input_df")])

    done = files.run(str(path))

    assert done.returncode == 6, done.stderr
    assert "OML5" in done.stderr and "step 'as-number'" in done.stderr
    assert "\x1b" not in done.stderr + done.stdout and "\x07" not in done.stderr + done.stdout
