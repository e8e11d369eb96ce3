"""The direct route CSV -> PostgreSQL (osiris/run/drivers/csv_postgres.py, ADR 0203), on the real
PostgreSQL 15.

The rule the route lives by: the target holds exactly what the engine's route (read_csv into DuckDB,
then DuckDB's text into COPY) writes. Each test runs the same file twice, into two tables made
alike: as a plain copy, and with a second writer reading it, which makes it no plain copy and so
takes the engine's route; the two tables are compared row by row as PostgreSQL prints them. A spy on
`direct.copy` says which route a run took (it calls the real route)."""

from __future__ import annotations

import json
from typing import Any

import psycopg
import pytest

from osiris.run import direct
from tests.direct_routes import routes  # noqa: F401  (a fixture)
from tests.run_helpers import RunProject, csv_step, pg_step

COLUMNS = ("id bigint PRIMARY KEY, t text, v varchar(40), sm smallint, i integer, b bigint, d2 numeric(10,2), "
           "dec numeric(38,10), n numeric, d date, ts timestamp, tm time")
# Every value here is one the engine's text and the file's agree on: the route takes it.
PLAIN = ("id,t,v,sm,i,b,d2,dec,n,d,ts,tm\n"
         '1,"emoji 😀 CJK 漢字, comma","CR\r\nLF\nin quotes",-32768,-2147483648,-9223372036854775808,-0.01,'
         "123456789.0123,12345678901234.5,0001-01-01,0001-01-01 00:00:00,00:00:00\n"
         '2,"",,32767,2147483647,9223372036854775807,12345678.99,0.25,1.25,9999-12-31,'
         "9999-12-31 23:59:59.999999,23:59:59.999999\n"
         "3,,plain,,,,,,,,,\n"
         "4,back\\slash \\N ;|\t tab,NULL,0,0,0,0.5,-1.5,-0.5,2024-02-29,2024-06-01 12:07:00.123456,12:07:00.5\n")


@pytest.fixture(scope="module")
def proj(tmp_path_factory, postgres_server) -> RunProject:
    return RunProject(tmp_path_factory.mktemp("direct-csv-pg") / "project", postgres=postgres_server)


def targets(server: Any, columns: str = COLUMNS, rows: str = "") -> None:
    """dc_direct and dc_engine, made alike, each holding `rows` (an INSERT's VALUES) when given."""
    with psycopg.connect(server.dsn(), autocommit=True) as con:
        for name in ("dc_direct", "dc_engine"):
            con.execute(f"DROP TABLE IF EXISTS {name}")
            con.execute(f"CREATE TABLE {name} ({columns})")
            if rows:
                con.execute(f"INSERT INTO {name} VALUES {rows}")


def table_text(server: Any, table: str) -> list[tuple[Any, ...]] | None:
    """Every row as PostgreSQL prints it (`::text`, in UTC), in order; None when the table is gone."""
    with psycopg.connect(server.dsn(), options="-c TimeZone=UTC") as con:
        names = [r[0] for r in con.execute("SELECT column_name FROM information_schema.columns WHERE table_name = %s "
                                           "ORDER BY ordinal_position", (table,))]
        if not names:
            return None
        return con.execute("SELECT " + ", ".join(f'"{n}"::text' for n in names) + f' FROM {table} ORDER BY {table}."{names[0]}"').fetchall()


def both_routes(proj: RunProject, name: str, text: str | bytes, reader: dict[str, Any] | None = None,
                **writer: Any) -> tuple[Any, Any]:
    """The file `text` into dc_direct as a plain copy, and into dc_engine on the engine's route (a
    second writer, of a table that does not exist, makes it no plain copy): both runs' results."""
    path = proj.root / f"{name}.csv"
    path.write_bytes(text if isinstance(text, bytes) else text.encode())
    read = csv_step("read", "read", f"{name}.csv", **(reader or {}))
    plain = proj.run(str(proj.pipeline([read, pg_step("write", "write", table="dc_direct", **writer)],
                                       name=f"{name}-direct")))
    engine = proj.run(str(proj.pipeline([read, {**pg_step("write", "write", table="dc_engine", **writer),
                                                "needs": ["read"]},
                                         {**csv_step("also", "write", f"{name}-also.csv"), "needs": ["read"]}],
                                        name=f"{name}-engine")))
    return plain, engine


def run_record(proj: RunProject, name: str | None = None) -> dict[str, Any]:
    """run.json of the last run, or of the last run of the pipeline called `name`."""
    if name is None:
        return json.loads((proj.last_session() / "artifacts" / "run.json").read_text(encoding="utf-8"))
    records = [json.loads(path.read_text(encoding="utf-8"))
               for path in (proj.root / ".osiris" / "sessions").glob("*/artifacts/run.json")]
    [record] = [r for r in records if r["pipeline_name"] == name]
    return record


@pytest.mark.parametrize("mode", ["append", "replace"])
def test_a_plain_copy_stores_what_the_engines_route_stores(proj, postgres_server, routes, mode):
    targets(postgres_server, rows="(100, 'kept', NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL)")
    plain, engine = both_routes(proj, f"plain-{mode}", PLAIN, write_mode=mode)
    assert plain.returncode == 0 and engine.returncode == 0, plain.stderr + engine.stderr
    assert [type(taken) for taken in routes] == [direct.Copied]
    stored = table_text(postgres_server, "dc_direct")
    assert stored == table_text(postgres_server, "dc_engine")
    assert len(stored) == (4 if mode == "replace" else 5)
    assert stored[1][1:3] == ("", None) and stored[2][1:3] == (None, "plain")  # "" is '', an empty field NULL
    assert stored[0][2] == "CR\r\nLF\nin quotes" and stored[3][2] == "NULL"


def test_a_bom_is_skipped_as_the_engine_skips_it(proj, postgres_server, routes):
    targets(postgres_server)
    plain, engine = both_routes(proj, "bom", b"\xef\xbb\xbf" + PLAIN.encode())
    assert plain.returncode == 0 and engine.returncode == 0, plain.stderr + engine.stderr
    assert [type(taken) for taken in routes] == [direct.Copied]
    assert table_text(postgres_server, "dc_direct") == table_text(postgres_server, "dc_engine")


def test_a_plain_copy_records_its_steps_as_the_engines_route_does(proj, postgres_server, routes):
    targets(postgres_server)
    (proj.root / "recorded.csv").write_text(PLAIN, encoding="utf-8")
    read = csv_step("read", "read", "recorded.csv")
    proj.run(str(proj.pipeline([read, pg_step("write", "write", table="dc_direct")], name="recorded")))
    plain = {step["id"]: step for step in run_record(proj)["steps"]}
    proj.run(str(proj.pipeline([read, pg_step("write", "write", table="dc_engine"),
                                {**csv_step("b", "write", "b.csv"), "needs": ["read"]}], name="recorded-2")))
    engine = {step["id"]: step for step in run_record(proj)["steps"]}
    assert [type(taken) for taken in routes] == [direct.Copied]
    assert [(c["name"], c["type"]) for c in plain["read"]["columns"]] == [
        ("id", "BIGINT"), ("t", "VARCHAR"), ("v", "VARCHAR"), ("sm", "BIGINT"), ("i", "BIGINT"), ("b", "BIGINT"),
        ("d2", "DOUBLE"), ("dec", "DOUBLE"), ("n", "DOUBLE"), ("d", "DATE"), ("ts", "TIMESTAMP"), ("tm", "TIME")]
    assert "route" not in engine["read"] and "route" not in engine["write"]  # the engine's route (docs/run.md)
    assert plain["read"] == {**engine["read"], "duration_ms": plain["read"]["duration_ms"], "route": "direct"}
    assert plain["write"] == {**engine["write"], "duration_ms": plain["write"]["duration_ms"], "route": "direct",
                              "target": {**engine["write"]["target"], "name": "dc_direct"}}
    assert (plain["write"]["status"], plain["write"]["rows_in"], plain["write"]["target"]["rows"]) == ("ok", 4, 4)


LATE = "id,code\n" + "".join(f"{n},{n}\n" for n in range(1, 30001))  # a BIGINT to DuckDB's sniff


@pytest.mark.parametrize("name, text, reader, writer, columns", [
    # the engine sends DuckDB's text of the value it read, which is not the file's
    ("decimal-scale", "id,amount\n1,1.50\n2,2.25\n", {}, {}, "id bigint, amount numeric"),
    ("iso-t", "id,at\n1,2024-01-01T10:00:00\n", {}, {}, "id bigint, at timestamp"),
    ("late-value", LATE.replace("\n29999,29999\n", "\n29999,0029999\n"), {}, {}, "id bigint, code text"),
    ("late-fraction", LATE.replace("\n29999,29999\n", "\n29999,1.5\n"), {}, {}, "id bigint, code numeric(10,2)"),
    # PostgreSQL reads a quote inside an unquoted field as a quote, DuckDB as a character
    ("mid-field-quote", 'id,t\n1,"a,b"\n2,ab"c"\n', {}, {}, "id bigint, t text"),
    ("crlf", "id,t\r\n1,x\r\n2,y\r\n", {}, {}, "id bigint, t text"),
    ("quoted-header", '"id","t"\n1,x\n', {}, {}, "id bigint, t text"),
    ("semicolon", "id;t\n1;x\n", {"delimiter": ";"}, {}, "id bigint, t text"),
    ("latin-1", "id,t\n1,caf\xe9\n".encode("latin-1"), {"encoding": "latin-1"}, {}, "id bigint, t text"),
    ("na-values", "id,t\n1,-\n2,x\n", {"na_values": ["-"]}, {}, "id bigint, t text"),
    ("dtype", "id,t\n1,5\n", {"dtype": {"t": "VARCHAR"}}, {}, "id bigint, t text"),
    ("no-header", "1,x\n2,y\n", {"header": False}, {}, "column0 bigint, column1 text"),
    ("skip-rows", "junk\nid,t\n1,x\n", {"skip_rows": 1}, {}, "id bigint, t text"),
    ("boolean-target", "id,flag\n1,true\n2,false\n", {}, {}, "id bigint, flag boolean"),
    ("jsonb-target", 'id,j\n1,"{""a"": 1}"\n', {}, {}, "id bigint, j jsonb"),
    ("upsert", "id,t\n1,x\n", {}, {"write_mode": "upsert", "primary_key": "id"}, "id bigint PRIMARY KEY, t text"),
    # what the engine refuses, and what PostgreSQL refuses: each route says the same
    ("unknown-column", "id,nope\n1,x\n", {}, {}, "id bigint, t text"),
    ("too-long", "id,t\n1,abcdef\n", {}, {}, "id bigint, t varchar(3)"),
    ("not-a-number", LATE.replace("\n29999,29999\n", "\n29999,x\n"), {}, {}, "id bigint, code bigint"),
])
def test_what_the_route_cannot_prove_equal_takes_the_engines_route(proj, postgres_server, routes, name, text, reader,
                                                                    writer, columns):
    targets(postgres_server, columns)
    plain, engine = both_routes(proj, name, text, reader, **writer)
    assert routes == [None]  # declined, before anything was kept
    assert all("route" not in step for step in run_record(proj, f"{name}-direct")["steps"])  # the engine's route ran
    assert plain.returncode == engine.returncode
    assert plain.stderr.replace("dc_direct", "X").replace(f"{name}-direct", "Y").split("session:")[0] == \
        engine.stderr.replace("dc_engine", "X").replace(f"{name}-engine", "Y").split("session:")[0]
    assert table_text(postgres_server, "dc_direct") == table_text(postgres_server, "dc_engine")


def test_a_value_the_engine_reads_otherwise_late_in_the_file_rolls_the_replace_back(proj, postgres_server, routes):
    """The check finds `0029999` while PostgreSQL already holds the rows before it: the copy and
    `replace`'s DELETE are rolled back, and the engine's route writes `29999`."""
    targets(postgres_server, "id bigint, code text", rows="(0, 'old')")
    text = LATE.replace("\n29999,29999\n", "\n29999,0029999\n")
    plain, engine = both_routes(proj, "late-replace", text, write_mode="replace")
    assert routes == [None] and plain.returncode == 0 == engine.returncode, plain.stderr
    stored = table_text(postgres_server, "dc_direct")
    assert stored == table_text(postgres_server, "dc_engine") and len(stored) == 30000
    assert ("29999", "29999") in stored and ("0", "old") not in stored


def test_a_missing_target_is_created_by_the_engines_route(proj, postgres_server, routes):
    with psycopg.connect(postgres_server.dsn(), autocommit=True) as con:
        con.execute("DROP TABLE IF EXISTS dc_direct, dc_engine")
    plain, engine = both_routes(proj, "create", PLAIN, create_if_missing=True)
    assert routes == [None] and plain.returncode == 0 == engine.returncode, plain.stderr
    assert table_text(postgres_server, "dc_direct") == table_text(postgres_server, "dc_engine") is not None
