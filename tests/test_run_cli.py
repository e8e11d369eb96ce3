"""`osiris run` end to end with files and real databases: exit codes, what a person sees for each
OML5xx problem, the run trail, and no planted secret anywhere."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from pathlib import Path

import psycopg
import pytest

from tests.run_helpers import PG_ENV, RunProject, csv_step, pg_step, sql_step
from tests.support import REPO, clean_env

PEOPLE = "id,name,city\n1,Ann,Oslo\n2,Bob,Rome\n3,Cid,Oslo\n"


@pytest.fixture
def files(tmp_path: Path) -> RunProject:
    proj = RunProject(tmp_path / "project")
    (proj.root / "data").mkdir()
    (proj.root / "data" / "people.csv").write_text(PEOPLE)
    return proj


def test_csv_to_csv_through_a_transform_writes_exact_bytes_and_a_trail(files):
    path = files.pipeline([csv_step("read-people", "read", "data/people.csv"),
                           sql_step("count-cities", "SELECT city, count(*) AS people FROM input_df GROUP BY city ORDER BY city"),
                           csv_step("write-cities", "write", "out/cities.csv")])
    result = files.run(str(path))
    assert result.returncode == 0, result.stderr
    assert (files.root / "out" / "cities.csv").read_bytes() == b"city,people\nOslo,2\nRome,1\n"
    events = [e["event_type"] for e in files.events()]
    assert events == ["session_start", "run_start", "step_start", "step_complete", "step_start", "step_complete",
                      "step_start", "step_complete", "run_end", "session_end"]
    run = json.loads((files.last_session() / "artifacts" / "run.json").read_text())
    assert run["steps"][1]["columns"] == [{"name": "city", "type": "VARCHAR"}, {"name": "people", "type": "BIGINT"}]
    assert [s["rows_out"] for s in run["steps"]] == [3, 2, 2]


def test_sample_writes_csv_under_the_session_only_and_keeps_rows_only_when_asked(files):
    path = files.pipeline([csv_step("read-people", "read", "data/people.csv"),
                           csv_step("write-people", "write", "out/people.csv")])
    result = files.run(str(path), "--sample", "2")
    assert result.returncode == 0, result.stderr
    assert not (files.root / "out").exists()
    session = files.last_session()
    # sessions.save_samples is false: the sample's file is not kept either, and the run says so (issue 22)
    assert not (session / "artifacts" / "sample-output").exists()
    assert "Ann" not in "".join(p.read_text() for p in session.rglob("*") if p.is_file())
    assert "sample output: the files written were not kept (sessions.save_samples: false)\n" in result.stderr
    settings = (files.root / ".osiris.yaml").read_text() + "sessions: {save_samples: true}\n"
    (files.root / ".osiris.yaml").write_text(settings)
    result = files.run(str(path), "--sample", "2")
    assert result.returncode == 0
    session = files.last_session()
    kept = session / "artifacts" / "sample-output"
    assert (kept / "write-people" / "people.csv").read_text() == "id,name,city\n1,Ann,Oslo\n2,Bob,Rome\n"
    assert f"sample output: the files written are kept in {kept} (sessions.save_samples: true)\n" in result.stderr
    saved = json.loads((session / "artifacts" / "dry_run.json").read_text())
    assert saved["steps"][0]["sample_rows"] == [{"id": 1, "name": "Ann", "city": "Oslo"},
                                                {"id": 2, "name": "Bob", "city": "Rome"}]


def test_json_output_on_stdout(files):
    path = files.pipeline([csv_step("read-people", "read", "data/people.csv")])
    result = files.run(str(path), "--json")
    assert result.returncode == 0
    data = json.loads(result.stdout)
    assert data["status"] == "succeeded"
    assert data["steps"][0]["rows_out"] == 3 and data["steps"][0]["problem"] is None


def test_file_not_found_is_oml510_and_lists_the_files_there(files):
    path = files.pipeline([csv_step("read-people", "read", "data/peple.csv")])
    result = files.run(str(path), process=True)  # exit 6 from the real entry point
    assert result.returncode == 6
    assert result.stderr.splitlines()[:2] == [
        f"{path} OML510 step 'read-people': file not found: data/peple.csv",
        "    hint: files in data: people.csv (did you mean 'people.csv'?)"]
    failed = [e for e in files.events() if e["event_type"] == "step_failed"]
    assert failed[0]["code"] == "OML510" and failed[0]["step_id"] == "read-people"


def test_sql_errors_in_a_transform_blame_the_transform(files):
    cases = {
        "SELECT nme FROM input_df": ("OML502", 'column "nme" does not exist'),
        "SELECT CAST(name AS INTEGER) FROM input_df": ("OML504", "a value does not fit its column's type: "),
    }
    for n, (query, (code, message)) in enumerate(cases.items()):
        path = files.pipeline([csv_step("read-people", "read", "data/people.csv"), sql_step("shape", query)],
                              name=f"case-{n}")
        result = files.run(str(path))
        assert result.returncode == 6
        assert f"{path} {code} step 'shape': {message}" in result.stderr, result.stderr


def test_sql_the_validator_can_see_is_stopped_before_anything_runs(files):
    """Issue 13's SQL checks catch a misspelt input table and a syntax error before the run."""
    cases = {"SELECT * FROM df_read_peple": "OML407", "SELEC 1": "OML405"}
    for n, (query, code) in enumerate(cases.items()):
        path = files.pipeline([csv_step("read-people", "read", "data/people.csv"), sql_step("shape", query)],
                              name=f"static-{n}")
        result = files.run(str(path))
        assert result.returncode == 1, result.stderr
        assert f" {code} " in result.stderr, result.stderr
        assert "invalid: fix it before running" in result.stderr  # nothing ran


def test_empty_join_on_sample_is_a_warning_not_a_failure(files):
    (files.root / "data" / "orders.csv").write_text("order_id,person\n10,3\n11,3\n")
    path = files.pipeline([
        csv_step("read-people", "read", "data/people.csv"), csv_step("read-orders", "read", "data/orders.csv"),
        sql_step("join", "SELECT * FROM df_read_people p JOIN df_read_orders o ON o.person = p.id",
                 needs=["read-people", "read-orders"])])
    result = files.run(str(path), "--sample", "1")
    assert result.returncode == 0
    assert (f"{path} OML513 warning: step 'join': the transform returned no rows from sampled inputs "
            "(read-people: 1 row, read-orders: 1 row); the samples may share no keys") in result.stderr


def test_a_filter_without_a_join_that_keeps_no_sampled_rows_is_not_called_a_join(files):
    (files.root / "data" / "orders.csv").write_text("order_id,person\n10,3\n11,3\n")
    path = files.pipeline([
        csv_step("read-people", "read", "data/people.csv"), csv_step("read-orders", "read", "data/orders.csv"),
        sql_step("buyers", "SELECT * FROM df_read_people WHERE id IN (SELECT person FROM df_read_orders)",
                 needs=["read-people", "read-orders"])])
    result = files.run(str(path), "--sample", "1")
    assert result.returncode == 0, result.stderr
    assert (f"{path} OML513 warning: step 'buyers': the transform returned no rows from sampled inputs "
            "(read-people: 1 row, read-orders: 1 row); none of the sampled rows met its conditions\n"
            "    hint: sample more rows (--sample 1000); if the full run should keep rows, check the values its "
            "conditions compare with") in result.stderr
    said = result.stderr.replace(str(files.root.parent), "")  # the temporary path holds this test's name
    assert "join" not in said.lower() and "keys" not in said


def test_invalid_pipeline_exits_1_and_runs_nothing(files):
    path = files.pipeline([{"id": "x", "component": "filesystem.csv_extractor", "mode": "read", "config": {}}])
    result = files.run(str(path))
    assert result.returncode == 1
    assert "OML303" in result.stderr and not (files.root / ".osiris" / "sessions").exists()


def test_usage_errors_exit_2(files):
    assert files.run("--sample", "0", "x.yaml").returncode == 2
    assert files.run("missing.yaml", process=True).returncode == 2


def test_unset_password_variable_is_oml511(tmp_path, postgres_server):
    proj = RunProject(tmp_path / "project", postgres=postgres_server)
    path = proj.pipeline([pg_step("read", "read", table="t")])
    env = clean_env()
    env.pop(PG_ENV, None)
    # a process: the hint depends on the keyring backend, which keyring picks once a process
    result = subprocess.run([sys.executable, "-m", "osiris", "run", str(path)], cwd=proj.root, env=env,
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 6
    assert result.stderr.splitlines()[:2] == [
        f"{path} OML511 step 'read': connections.postgres.default.password refers to ${{{PG_ENV}}}, which is not set",
        f"    hint: set the environment variable {PG_ENV} in the shell that runs osiris (its value is never "
        "written anywhere); this machine has no usable system keyring to store it in"]  # none here (issue 30)


def test_wrong_password_refused_port_and_constraint_violation(tmp_path, postgres_server):
    proj = RunProject(tmp_path / "project", postgres=postgres_server)
    path = proj.pipeline([pg_step("read", "read", table="t")])
    result = proj.run(str(path), env={PG_ENV: "not-the-Password-9"})
    assert result.returncode == 6
    assert f"{path} OML506 step 'read': postgres rejected the user 'osiris': password authentication failed" \
        in result.stderr
    assert "not-the-Password-9" not in result.stderr
    settings = (proj.root / ".osiris.yaml").read_text().replace(f"port: {postgres_server.port}", "port: 9")
    (proj.root / ".osiris.yaml").write_text(settings)
    result = proj.run(str(path))
    assert f"{path} OML505 step 'read': cannot connect to postgres at 127.0.0.1:9: connection refused" \
        in result.stderr


def test_duplicate_key_append_is_oml514_and_keeps_nothing(tmp_path, postgres_server):
    proj = RunProject(tmp_path / "project", postgres=postgres_server)
    with psycopg.connect(postgres_server.dsn(), autocommit=True) as pg:
        pg.execute("DROP TABLE IF EXISTS uniq")
        pg.execute("CREATE TABLE uniq (id int PRIMARY KEY, name text)")
        pg.execute("INSERT INTO uniq VALUES (3, 'kept')")
        (proj.root / "people.csv").write_text(PEOPLE)
        path = proj.pipeline([csv_step("read", "read", "people.csv"),
                              sql_step("pick", "SELECT id, name FROM input_df"),
                              pg_step("write", "write", table="uniq")])
        result = proj.run(str(path))
        assert result.returncode == 6
        assert f"{path} OML514 step 'write': the target rejected the rows: duplicate key value violates " \
               'unique constraint "uniq_pkey"' in result.stderr
        assert pg.execute("SELECT * FROM uniq").fetchall() == [(3, "kept")]


def start_a_big_write(proj: RunProject, pg, route: str = "direct") -> subprocess.Popen:
    """`osiris run` writing a 3M-row CSV into PostgreSQL, returned once COPY is streaming: a plain copy
    (its direct route, ADR 0203), or on `route` "engine" with a second writer of the rows, which makes
    it no plain copy."""
    pg.execute("DROP TABLE IF EXISTS big")
    pg.execute("CREATE TABLE big (id bigint PRIMARY KEY, payload text)")
    pg.execute("INSERT INTO big VALUES (-1, 'before')")
    with open(proj.root / "big.csv", "w") as out:
        out.write("id,payload\n")
        for start in range(0, 3_000_000, 100_000):
            out.write("".join(f"{i},{'x' * 40}\n" for i in range(start, start + 100_000)))
    also = [{**pg_step("also", "write", table="big_also", create_if_missing=True), "needs": ["read"]}]
    path = proj.pipeline([csv_step("read", "read", "big.csv"), pg_step("write", "write", table="big"),
                          *(also if route == "engine" else [])])
    env = clean_env(**proj.env)
    process = subprocess.Popen([sys.executable, "-m", "osiris", "run", str(path)], cwd=proj.root, env=env,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 120  # a wait for an event, not a measurement: fail rather than hang
    while time.monotonic() < deadline:  # wait until the writer has begun sending rows
        busy = pg.execute("SELECT count(*) FROM pg_stat_activity WHERE application_name = 'osiris' "
                          "AND query LIKE 'COPY%'").fetchone()[0]
        if busy or process.poll() is not None:
            break
        time.sleep(0.05)
    else:
        process.kill()
        raise AssertionError("the writer never began its COPY within 120 s")
    assert process.poll() is None, "the run ended before the write could be interrupted"
    return process


@pytest.mark.parametrize("route", ["direct", "engine"])
@pytest.mark.parametrize("number", [signal.SIGINT, signal.SIGTERM])
def test_ctrl_c_in_the_middle_of_a_write_leaves_the_target_unchanged(tmp_path, postgres_server, number, route):
    """A large CSV is written to PostgreSQL; SIGINT (or SIGTERM, handled alike: docs/run.md, "Stopping
    a run") arrives while COPY is streaming. No scratch directory (spill, partial files) is left. On
    the direct route the copy is reported as its read step, as every direct route reports it."""
    proj = RunProject(tmp_path / "project", postgres=postgres_server)
    with psycopg.connect(postgres_server.dsn(), autocommit=True) as pg:
        pg.execute("DROP TABLE IF EXISTS big_also")
        process = start_a_big_write(proj, pg, route)
        process.send_signal(number)
        stdout, stderr = process.communicate(timeout=60)
        assert process.returncode == 130, stderr
        assert ("read  interrupted" if route == "direct" else "write  interrupted") in stdout
        assert pg.execute("SELECT * FROM big").fetchall() == [(-1, "before")]
        events = [json.loads(line) for line in (proj.last_session() / "events.jsonl").read_text().splitlines()]
        assert events[-2]["event_type"] == "run_end" and events[-2]["status"] == "interrupted"
    assert not list(proj.root.glob(".osiris/tmp/run-*"))


def test_kill_9_in_the_middle_of_a_write_leaves_the_target_unchanged(tmp_path, postgres_server):
    """SIGKILL: no handler runs at all; PostgreSQL rolls the open transaction back when the
    connection drops."""
    proj = RunProject(tmp_path / "project", postgres=postgres_server)
    with psycopg.connect(postgres_server.dsn(), autocommit=True) as pg:
        process = start_a_big_write(proj, pg)
        process.kill()
        process.communicate(timeout=60)
        assert process.returncode == -signal.SIGKILL
        deadline = time.monotonic() + 60
        while pg.execute("SELECT count(*) FROM pg_stat_activity WHERE application_name = 'osiris'").fetchone()[0]:
            assert time.monotonic() < deadline, "the server kept the killed run's connection for 60 s"
            time.sleep(0.05)  # the server notices the dropped connection and rolls back
        assert pg.execute("SELECT * FROM big").fetchall() == [(-1, "before")]


def test_run_is_listed_in_help():
    result = subprocess.run([sys.executable, "-m", "osiris", "--help"], capture_output=True, text=True,
                            env=clean_env(), cwd=REPO)
    assert "    run          run a pipeline on an embedded DuckDB engine; --sample N\n" in result.stdout


def test_a_user_without_rights_gets_oml507(tmp_path, postgres_server):
    with psycopg.connect(postgres_server.dsn(), autocommit=True) as pg:
        pg.execute("DROP TABLE IF EXISTS secret_stuff")
        pg.execute("CREATE TABLE secret_stuff (id int)")
        pg.execute("DROP ROLE IF EXISTS reader")
        pg.execute("CREATE ROLE reader LOGIN PASSWORD 'reader-Pass-5521'")
    proj = RunProject(tmp_path / "project", postgres=postgres_server)
    settings = (proj.root / ".osiris.yaml").read_text().replace("user: osiris", "user: reader")
    (proj.root / ".osiris.yaml").write_text(settings)
    proj.env[PG_ENV] = "reader-Pass-5521"
    proj.secrets.append("reader-Pass-5521")
    path = proj.pipeline([pg_step("read", "read", table="secret_stuff")])
    result = proj.run(str(path))
    assert result.returncode == 6
    assert f"{path} OML507 step 'read': permission denied: permission denied for table secret_stuff\n" \
        in result.stderr


def test_csv_discover_reads_columns_and_types(files):
    from osiris.run.drivers import driver_for

    found = driver_for("filesystem.csv_extractor").discover({"base_dir": str(files.root)}, ["data/people.csv"])
    assert [(c.name, c.type) for c in found[0].columns] == [("id", "BIGINT"), ("name", "VARCHAR"),
                                                            ("city", "VARCHAR")]


def test_a_valid_pipeline_s_warnings_are_printed_redacted(tmp_path):
    """`osiris run` prints a valid pipeline's warnings as `osiris validate` does: through the redactor,
    so a connection's secret the pipeline's text repeats (here as an unknown top-level key, OML204)
    is masked on the terminal too, and reaches no file."""
    secret = "Zq9-not-a-word-77"
    proj = RunProject(tmp_path / "project")
    (proj.root / ".osiris.yaml").write_text(
        "connections:\n  mysql:\n    default:\n      host: 127.0.0.1\n      database: shop\n      user: osiris\n"
        "      password: ${WARN_TEST_PASSWORD}\n", encoding="utf-8")
    (proj.root / "in.csv").write_text("id,name\n1,a\n", encoding="utf-8")
    path = proj.root / "p.yaml"
    path.write_text(f'oml_version: "0.1.0"\nname: p\n{secret}: 1\nsteps:\n'
                    "  - id: read\n    component: filesystem.csv_extractor\n    mode: read\n    config:\n      path: in.csv\n"
                    "  - id: write\n    component: filesystem.csv_writer\n    mode: write\n    needs: [read]\n"
                    "    config:\n      path: out.csv\n", encoding="utf-8")
    result = proj.run(str(path), env={"WARN_TEST_PASSWORD": secret})
    assert result.returncode == 0, result.stderr
    assert result.stderr.splitlines()[0] == f"{path}:3:1 OML204 warning: unknown top-level key '***' is ignored"
    assert secret not in result.stdout + result.stderr
    assert not [p for p in proj.root.rglob("*") if p.is_file() and secret.encode() in p.read_bytes()
                and p.name != "p.yaml"]
