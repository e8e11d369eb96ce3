"""Plain copies on a direct route (osiris/run/direct.py, ADR 0165): PostgreSQL -> CSV straight from
PostgreSQL's COPY into the file, on the real PostgreSQL 15.

The rule the route lives by: the file holds exactly the bytes the engine's route (PostgreSQL ->
DuckDB -> COPY) writes. Each test runs the same read twice: as a plain copy, and with a second writer
reading it, which makes it no plain copy and so takes the engine's route; the two files are compared
byte for byte. A spy on `direct.copy` says which route a run took (it calls the real route)."""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any

import psycopg
import pytest

from osiris.run import direct
from tests.direct_routes import routes  # noqa: F401  (a fixture)
from tests.run_helpers import RunProject, csv_step, pg_step
from tests.support import clean_env, interrupt_when

SOURCE = r"""
DROP TABLE IF EXISTS dr_src, dr_floats, dr_big;
CREATE TABLE dr_src (id int PRIMARY KEY, bo boolean, sm smallint, i int, b bigint, dec numeric(38,10),
  d2 numeric(10,2), d0 numeric(5,0), wide numeric, d date, ts timestamp, tstz timestamptz, tm time, tz timetz,
  u uuid, js json, jb jsonb, by bytea, t text, ch char(5), arr text[], money_ money);
INSERT INTO dr_src VALUES
 (1, true, -32768, -2147483648, -9223372036854775808, '-1234567890123456789012345678.0123456789', -0.01, -99999,
  '12345678901234567890.123456789', '0001-01-01', '0001-01-01 00:00:00', '0001-01-01 00:00:00+00', '00:00:00',
  '00:00:00+00', 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11', '{"a": 1,  "b":[1,2]}', '{"a": 1,  "b":[1,2]}',
  '\x00ff10', E'emoji 😀 CJK 漢字 CR\r\nLF\n, "q" ;|\t \\N', 'ab', '{"a,b",c,NULL}', 12.5),
 (2, false, 32767, 2147483647, 9223372036854775807, 0, 0, 0, '99999999999999999999999999999999999999999.5',
  '9999-12-31', '9999-12-31 23:59:59.999999',
  '9999-12-31 23:59:59.999999+00', '24:00:00', '12:34:56.789+05:30', NULL, '"s"', '"s"', '\x', '', 'a    ', '{}', 0),
 (3, NULL, 0, 0, 0, 1.5, 1.5, 5, '-Infinity', 'infinity', 'infinity', 'infinity', '12:34:56.5', NULL, NULL, '[]',
  '{"k": "v\"q"}', NULL, ' lead and trail ', NULL, NULL, NULL),
 (4, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, '-infinity', '-infinity', '2024-06-01 05:07:00.25+02',
  '00:00:00.000001', NULL, NULL, NULL, 'null', NULL, 'NULL', NULL, NULL, NULL),
 (5, NULL, NULL, NULL, NULL, 0.0000000001, 12345678.99, NULL, NULL, '10000-01-01', '2024-01-01 00:00:01.5',
  '10000-01-01 00:00:00+00', NULL, NULL, NULL, NULL, '{"b":2,"a":1,"é":"ü"}', NULL, 'x\.y \ back\slash', NULL,
  NULL, NULL);
CREATE TABLE dr_floats (id int, f8 float8, f4 real, iv interval);
INSERT INTO dr_floats VALUES (1, 0, -0, '1 year 2 mons'), (2, 'NaN', 'Infinity', '-04:05:06.5'), (3, 5, 0.1, NULL);
"""
DIRECT_COLUMNS = [  # what the engine's route records for dr_src (run.json); the direct route must say the same
    ("id", "INTEGER"), ("bo", "BOOLEAN"), ("sm", "SMALLINT"), ("i", "INTEGER"), ("b", "BIGINT"),
    ("dec", "DECIMAL(38,10)"), ("d2", "DECIMAL(10,2)"), ("d0", "DECIMAL(5,0)"), ("wide", "VARCHAR"), ("d", "DATE"),
    ("ts", "TIMESTAMP"), ("tstz", "TIMESTAMP WITH TIME ZONE"), ("tm", "TIME"), ("tz", "TIME WITH TIME ZONE"),
    ("u", "UUID"), ("js", "JSON"), ("jb", "JSON"), ("by", "BLOB"), ("t", "VARCHAR"), ("ch", "VARCHAR"),
    ("arr", "VARCHAR"), ("money_", "VARCHAR")]


@pytest.fixture(scope="module")
def proj(tmp_path_factory, postgres_server) -> RunProject:
    with psycopg.connect(postgres_server.dsn(), autocommit=True) as con:
        con.execute(SOURCE)
    return RunProject(tmp_path_factory.mktemp("direct") / "project", postgres=postgres_server)


def both_routes(proj: RunProject, name: str, read: dict[str, Any], **writer: Any) -> tuple[Any, Any]:
    """The same read as a plain copy (name-direct.csv) and on the engine's route (name-engine.csv,
    with a second writer that makes it no plain copy): both runs' results."""
    plain = proj.run(str(proj.pipeline([read, csv_step("write", "write", f"{name}-direct.csv", **writer)],
                                       name=f"{name}-direct")))
    engine = proj.run(str(proj.pipeline([
        read, {**csv_step("write", "write", f"{name}-engine.csv", **writer), "needs": ["read"]},
        {**csv_step("also", "write", f"{name}-also.csv", **writer), "needs": ["read"]}], name=f"{name}-engine")))
    return plain, engine


def file_bytes(proj: RunProject, name: str) -> bytes | None:
    path = proj.root / name
    return path.read_bytes() if path.exists() else None


def run_record(proj: RunProject) -> dict[str, Any]:
    return json.loads((proj.last_session() / "artifacts" / "run.json").read_text(encoding="utf-8"))


@pytest.mark.parametrize("header", [True, False])
def test_a_plain_copy_writes_the_bytes_of_the_engines_route(proj, routes, header):
    read = pg_step("read", "read", query="SELECT * FROM dr_src ORDER BY id")
    plain, engine = both_routes(proj, f"all-types-{header}", read, header=header)
    assert plain.returncode == 0 and engine.returncode == 0, plain.stderr + engine.stderr
    assert [type(taken) for taken in routes] == [direct.Copied]
    written = file_bytes(proj, f"all-types-{header}-direct.csv")
    assert written == file_bytes(proj, f"all-types-{header}-engine.csv")
    assert written.count(b"\n") == 5 + header + 2  # two values hold a line break
    assert b",true," in written and b',"a,b",' not in written  # booleans as the engine writes them


def test_a_plain_copy_records_its_steps_as_the_engines_route_does(proj, routes):
    read = pg_step("read", "read", query="SELECT * FROM dr_src ORDER BY id")
    proj.run(str(proj.pipeline([read, csv_step("write", "write", "recorded.csv")], name="recorded")))
    plain = {step["id"]: step for step in run_record(proj)["steps"]}
    kinds = [(e["event_type"], e.get("step_id")) for e in proj.events() if e["event_type"].startswith("step_")]
    proj.run(str(proj.pipeline([read, csv_step("write", "write", "recorded.csv"),
                                {**csv_step("b", "write", "b.csv"), "needs": ["read"]}], name="recorded-2")))
    engine = {step["id"]: step for step in run_record(proj)["steps"]}
    assert [type(taken) for taken in routes] == [direct.Copied]
    assert [(c["name"], c["type"]) for c in plain["read"]["columns"]] == DIRECT_COLUMNS
    for step in ("read", "write"):  # the same record, and the route that ran (docs/run.md)
        assert {**plain[step], "duration_ms": 0} == {**engine[step], "duration_ms": 0, "route": "direct"}
    assert (plain["write"]["status"], plain["write"]["rows_in"], plain["write"]["target"]["rows"]) == ("ok", 5, 5)
    assert kinds == [("step_start", "read"), ("step_complete", "read"), ("step_start", "write"),
                     ("step_complete", "write")]


@pytest.mark.parametrize("name, query, writer", [
    ("floats", "SELECT * FROM dr_floats ORDER BY id", {}),  # DuckDB writes 0.0, nan, 1 year
    ("hash", "SELECT 1 AS id, 'colour #ff0000' AS t UNION ALL SELECT 2, 'plain'", {}),  # DuckDB quotes '#'
    ("lone", "SELECT E'\\\\.' AS t", {}),  # PostgreSQL quotes a lone \. in a one-column result
    ("names", 'SELECT 1 AS "a#b", 2 AS "c d"', {}),
    ("same-names", 'SELECT 1 AS a, 2 AS "A"', {}),  # the engine refuses them: both runs must say the same
    ("nan", "SELECT 'NaN'::numeric(10,2) AS n", {}),
    ("nan-elsewhere", "SELECT 1.5::numeric(10,2) AS n, 'NaN'::numeric AS wide, 'BC' AS t", {}),  # looked like one
    ("bc-in-text", "SELECT date '2024-01-01' AS d, 'an AD BC era' AS t", {}),
    ("bc", "SELECT '0044-03-15 BC'::date AS d", {}),
    ("semicolon", "SELECT * FROM dr_src ORDER BY id", {"delimiter": ";"}),
    ("quote-all", "SELECT * FROM dr_src ORDER BY id", {"quoting": "all"}),
])
def test_what_only_the_engine_writes_right_takes_the_engines_route(proj, routes, name, query, writer):
    plain, engine = both_routes(proj, name, pg_step("read", "read", query=query), **writer)
    assert routes == [None]  # declined, before or during the copy
    assert file_bytes(proj, f"{name}-direct.csv") == file_bytes(proj, f"{name}-engine.csv")
    assert plain.returncode == engine.returncode
    assert plain.stderr.replace(f"{name}-direct", "X").split("session:")[0] == \
        engine.stderr.replace(f"{name}-engine", "X").split("session:")[0]
    assert not [p for p in proj.root.iterdir() if "osiris-partial" in p.name]


def test_a_value_met_half_way_sends_the_copy_back_and_nothing_half_written_stays(proj, routes):
    query = "SELECT g AS id, CASE WHEN g = 29000 THEN 'a # late' ELSE 'row ' || g END AS t FROM generate_series(1, 30000) g"
    plain, engine = both_routes(proj, "late", pg_step("read", "read", query=query, batch_size=1000))
    assert routes == [None] and plain.returncode == 0
    assert file_bytes(proj, "late-direct.csv") == file_bytes(proj, "late-engine.csv")
    assert b'\n29000,"a # late"\n' in file_bytes(proj, "late-direct.csv")


def test_a_failed_read_blames_the_read_step_and_writes_nothing(proj, routes):
    path = proj.pipeline([pg_step("read", "read", query="SELECT g, 1 / (g - 20000) AS r FROM generate_series(1, 30000) g"),
                          csv_step("write", "write", "failed.csv")], name="failed")
    result = proj.run(str(path))
    assert result.returncode == 6
    assert f"{path} OML504 step 'read': " in result.stderr and "division by zero" in result.stderr
    assert not (proj.root / "failed.csv").exists()
    assert not [p for p in proj.root.iterdir() if "osiris-partial" in p.name]
    steps = run_record(proj)["steps"]
    assert [(s["id"], s["status"]) for s in steps] == [("read", "failed"), ("write", "skipped")]


def test_a_missing_folder_is_the_writers_problem_after_the_read_as_on_the_engines_route(proj, routes):
    path = proj.pipeline([pg_step("read", "read", table="dr_src"),
                          csv_step("write", "write", "nowhere/out.csv", create_dirs=False)], name="nowhere")
    result = proj.run(str(path))
    assert routes == [None]
    assert result.returncode == 6
    assert f"{path} OML510 step 'write': the directory of nowhere/out.csv does not exist\n" in result.stderr
    assert [(s["id"], s["status"]) for s in run_record(proj)["steps"]] == [("read", "ok"), ("write", "failed")]


def test_a_sample_run_keeps_the_engines_route(proj, routes):
    result = proj.run("--sample", "2", str(proj.pipeline([pg_step("read", "read", table="dr_src"),
                                                          csv_step("write", "write", "sampled.csv")], name="sampled")))
    assert result.returncode == 0, result.stderr
    assert routes == []  # a sample's previews come from the engine's tables


def test_a_plain_copy_run_never_starts_duckdb(proj):
    """What the direct route saves a small run: DuckDB is neither imported nor started."""
    path = proj.pipeline([pg_step("read", "read", table="dr_src"), csv_step("write", "write", "no-duckdb.csv")],
                         name="no-duckdb")
    probe = ("import sys; from osiris.cli import main; print('exit', main(sys.argv[1:])); "
             "print(bool({'duckdb', '_duckdb'} & set(sys.modules)))")
    done = subprocess.run([sys.executable, "-c", probe, "run", str(path)], cwd=proj.root, env=clean_env(**proj.env),
                          capture_output=True, text=True, timeout=120)
    assert done.stdout.splitlines()[-2:] == ["exit 0", "False"], done.stdout + done.stderr
    # The engine's route for the same read, made here so the test holds alone and in any order.
    _, engine = both_routes(proj, "no-duckdb-reference", pg_step("read", "read", table="dr_src"))
    assert engine.returncode == 0, engine.stderr
    assert file_bytes(proj, "no-duckdb.csv") == file_bytes(proj, "no-duckdb-reference-engine.csv") is not None


def test_ctrl_c_during_a_direct_copy_leaves_no_file(proj, postgres_server):
    with psycopg.connect(postgres_server.dsn(), autocommit=True) as pg:
        pg.execute("CREATE TABLE dr_big AS SELECT g AS id, repeat('x', 40) AS payload FROM generate_series(1, 3000000) g")
        path = proj.pipeline([pg_step("read", "read", table="dr_big"), csv_step("write", "write", "big.csv")],
                             name="big")
        process = subprocess.Popen([sys.executable, "-m", "osiris", "run", str(path)], cwd=proj.root,
                                   env=clean_env(**proj.env), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        partial = ".osiris/tmp/run-*/.osiris-out-*-big.csv"  # the run's scratch directory (docs/security.md)
        stdout, stderr = interrupt_when(process, lambda: any(p.stat().st_size for p in proj.root.glob(partial)),
                                        "the copy never began writing")
    assert process.returncode == 130, stderr
    assert "read  interrupted" in stdout
    assert not (proj.root / "big.csv").exists()
    assert not list(proj.root.glob("*osiris-partial*")) and not list(proj.root.glob(partial))
