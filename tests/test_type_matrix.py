"""Every value arrives exactly (docs/types.md). A table per database, a column per type, rows of edge
values (NULL and '', emoji and CJK, CR/LF, quotes and delimiters in text, integer limits, unsigned
max, wide decimals, NaN and infinities, the first and last dates, microseconds, DST edges, TIME
extremes, binary, bit, JSON, UUID, arrays, enums), copied along each path on the real servers
(MariaDB's global time zone is +09:00: tests/servers/mariadb.py), one run per path. Each cell is
compared with its source under the documented rule: the same value (`exact`), a documented
representation (`SAME_TEXT`: the source's own text in a text column), or a refusal (OML504 naming
the column; nothing written).

Every path runs on both engines (the module fixture `engine`: DuckDB, then Spark on `local[1]`, whose
session starts once for all its runs), with the same expectations per cell, created column types
included (docs/types.md, "The matrix on Spark").

The CSV -> PostgreSQL cells run twice, with the direct route (osiris/run/drivers/csv_postgres.py, ADR
0203) offered and switched off, and must give the same values and tables; the route is taken for the
columns whose every value it carries (tm_plain_src) and declines for the file of every type.

Values are compared as each database prints them (PostgreSQL `::text` in UTC, MariaDB `CAST(... AS
CHAR)` in UTC, binary as hex), through `norm` where the two print one value differently."""

from __future__ import annotations

import json
import re
import struct
from decimal import Decimal
from typing import Any

import psycopg
import pytest

from osiris.run import direct
from tests.api_fixtures import api_server  # noqa: F401 (a fixture)
from tests.run_helpers import ENGINES, RunProject, csv_step, mysql_step, on_engine, pg_step, sql_step
from tests.servers.http_apis import NUMBERS_BODY
from tests.support import shows_number

PG_SOURCE = r"""
DROP TABLE IF EXISTS tm_src, tm_pg_copy, tm_pg_back, tm_pg_made, tm_from_maria, tm_pg_bad, tm_from_api, tm_pg_back_engine,
  tm_pg_plain, tm_pg_plain_engine CASCADE;
DROP TYPE IF EXISTS tm_mood;
CREATE TYPE tm_mood AS ENUM ('happy', 'sad');
CREATE TABLE tm_src (id int PRIMARY KEY, t text, sm smallint, i int, b bigint, wide numeric, nnan numeric,
  dec numeric(38,10), f8 double precision, f8n double precision, f4 real, d date, dn date, ts timestamp,
  tstz timestamptz, tm time, iv interval, ivt interval, by bytea, bo boolean, js jsonb, u uuid, arr int[],
  tarr text[], bits varbit, mood tm_mood, tz timetz);
INSERT INTO tm_src VALUES
 (1, NULL, -32768, -2147483648, -9223372036854775808, '12345678901234567890.123456789', 'NaN',
  '1234567890123456789012345678.0123456789', 'NaN', 0.1, 'NaN', '0001-01-01', '0001-01-01', '0001-01-01 00:00:00',
  '2024-03-31 00:59:59.999999+00', '00:00:00', '-1 years -2 mons +3 days -04:05:06.5', '838:59:59', '\x00ff10',
  true, '{"a": [1, "x"], "b": null}', 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11', '{1,2,NULL}', '{"a,b",c}', '0101',
  'happy', '12:00:00+02'),
 (2, '', 32767, 2147483647, 9223372036854775807, '-0.000000000000000000000000000001', NULL, '-0.0000000001',
  'Infinity', 1.7976931348623157e308, '3.4028235e38', '9999-12-31', '9999-12-31', '9999-12-31 23:59:59.999999',
  '2024-10-27 00:30:00+00', '23:59:59.999999', '1 day', '-12:30:00.5', '\x', false, '[]', NULL, '{}', '{}', '',
  'sad', '23:59:59.999999-12'),
 (3, E'emoji 😀 CJK 漢字 CR\r\nLF\n, "q" ;|\t \\N', 0, 0, 0, '99999999999999999999999999999999999999999.5', NULL,
  NULL, '-Infinity', 2.2250738585072014e-308, '-1.5', 'infinity', NULL, '2024-06-01 12:07:00.123456',
  '2024-06-01 12:07:00+09', '24:00:00', '00:00:00.000001', '00:00:00.000001', NULL, NULL, 'null', NULL, NULL, NULL,
  NULL, NULL, NULL),
 (4, 'plain', NULL, NULL, NULL, NULL, NULL, NULL, 0.1, NULL, 0.1, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
  NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL);
CREATE TABLE tm_pg_copy (LIKE tm_src);
CREATE TABLE tm_pg_back (LIKE tm_src);
CREATE TABLE tm_pg_back_engine (LIKE tm_src);
CREATE VIEW tm_plain_src AS SELECT id, replace(t, '"', '') AS t, sm, i, b, dn, ts, tm FROM tm_src;
CREATE TABLE tm_pg_plain (id int PRIMARY KEY, t text, sm smallint, i int, b bigint, dn date, ts timestamp, tm time);
CREATE TABLE tm_pg_plain_engine (LIKE tm_pg_plain);
CREATE TABLE tm_pg_bad (id int, nan_dec numeric(10,2), bc date);
INSERT INTO tm_pg_bad VALUES (1, 'NaN', '2024-01-01'), (2, 1.5, '0044-03-15 BC');
"""
MARIA_SOURCE = ["""CREATE TABLE tm_src (id INT PRIMARY KEY, t TEXT, ti TINYINT, ub BIGINT UNSIGNED, b BIGINT,
  dec65 DECIMAL(65,30), d10 DECIMAL(10,2), fl FLOAT, db DOUBLE, dt DATE, dtm DATETIME(6), ts TIMESTAMP(6) NULL,
  tm TIME(6), bl BLOB, bt1 BIT(1), bt10 BIT(10), js JSON, en ENUM('s','m'), yr YEAR, vb VARBINARY(8), u UUID,
  f24 FLOAT)
  DEFAULT CHARSET=utf8mb4""",
                r"""INSERT INTO tm_src VALUES
  (1, NULL, -128, 18446744073709551615, -9223372036854775808,
   '12345678901234567890123456789012345.123456789012345678901234567890', -12345678.99, 3.40282e38,
   1.7976931348623157e308, '0001-01-01', '0001-01-01 00:00:00', '1970-01-01 00:00:01', '-838:59:59', x'00FF10',
   b'1', b'1010101010', '{"a": [1, "x"]}', 's', 1901, x'00', 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11', 16777216),
  (2, '', 127, 0, 9223372036854775807, '-0.000000000000000000000000000001', 0.10, -1.5, 0.1, '9999-12-31',
   '9999-12-31 23:59:59.999999', '2038-01-19 03:14:07.999999', '838:59:59', x'', b'0', b'0000000000', '[]', 'm',
   2155, x'', NULL, 0.1),
  (3, 'emoji 😀 CJK 漢字 CR\r\nLF\n, "q" ;|\t \\N', 0, 1, 0, NULL, NULL, NULL, NULL, NULL,
   '2024-03-31 01:59:59.999999', '2024-06-01 12:07:00.123456', '-12:30:00.5', NULL, NULL, NULL, NULL, NULL, NULL,
   NULL, NULL, 1.17549e-38)""",
                "CREATE TABLE tm_back LIKE tm_src",
                "CREATE TABLE tm_zero (id INT PRIMARY KEY, d DATE)",
                "INSERT INTO tm_zero VALUES (1, '0000-00-00'), (2, '2024-01-02'), (3, '2024-00-15')",
                "CREATE TABLE tm_instants (id INT PRIMARY KEY, ts TIMESTAMP(6) NULL)"]
PG_COLUMNS = ("id", "t", "sm", "i", "b", "wide", "nnan", "dec", "f8", "f8n", "f4", "dn", "ts", "tstz", "tm", "iv", "ivt",
              "by", "bo", "js", "u", "arr", "tarr", "bits", "mood", "tz", "d")  # tm_src's; `d` last
REFUSED_ON_SPARK = {  # a PostgreSQL column -> the Spark engine's own refusal of it when read (docs/types.md)
    "d": "holds infinite dates (infinity, -infinity) in 1 row, which the Spark engine's DATE cannot hold"}
REFUSED_BY_MARIADB = {  # PostgreSQL column -> what MySQL cannot store of it (docs/types.md)
    "f8": "holds NaN or infinite values in 3 rows, which MySQL cannot store",
    "f4": "holds NaN or infinite values in 1 row, which MySQL cannot store",
    "d": "holds infinite dates (infinity, -infinity) in 1 row, which MySQL cannot store",
    "iv": "holds intervals of months or years, or longer than 838:59:59 in 1 row, which MySQL cannot store"}

# --- how each database prints a value, and the rules that make two prints one value ---------------

_FRACTION_ZEROS = re.compile(r"(\.\d*?)0+(?=$|[+-]\d\d$)")


def norm(kind: str, text: str | None) -> Any:
    """One printed value -> what two databases agree on for the same value of `kind`."""
    if text is None:
        return None
    if kind == "time":  # '00:00:00.000000' and '00:00:00'; a UTC instant with or without '+00'
        return _FRACTION_ZEROS.sub(r"\1", text).rstrip(".").removesuffix("+00")
    if kind == "bool":
        return text in ("t", "true", "1")
    if kind == "bytes":
        return text.removeprefix("\\x").lower()
    if kind == "json":
        return json.loads(text)
    if kind == "number":
        return Decimal(text)
    if kind == "float":
        return float(text)
    if kind == "single":  # a FLOAT: the same single-precision value, whichever digits print it
        return struct.unpack("f", struct.pack("f", float(text)))[0]
    return text


def pg_rows(dsn: str, table: str) -> tuple[list[str], list[tuple[Any, ...]]]:
    with psycopg.connect(dsn, options="-c TimeZone=UTC") as con:
        names = [r[0] for r in con.execute("SELECT column_name FROM information_schema.columns WHERE table_name = %s "
                                           "ORDER BY ordinal_position", (table,))]
        return names, con.execute("SELECT " + ", ".join(f'"{n}"::text' for n in names)
                                  + f" FROM {table} ORDER BY id").fetchall()


def maria_rows(server: Any, table: str) -> tuple[list[str], list[tuple[Any, ...]]]:
    con = server.connect(init_command="SET time_zone = '+00:00'")
    try:
        with con.cursor() as cursor:
            cursor.execute("SELECT column_name, data_type FROM information_schema.columns WHERE table_schema = 'shop' "
                           "AND table_name = %s ORDER BY ordinal_position", (table,))
            columns = cursor.fetchall()
            shown = [f"LOWER(HEX(`{n}`))" if t in ("blob", "longblob", "varbinary") else
                     f"CAST(CAST(`{n}` AS DOUBLE) AS CHAR)" if t == "float" else  # its value, not 6 digits
                     f"CAST(`{n}` + 0 AS CHAR)" if t == "bit" else f"CAST(`{n}` AS CHAR)" for n, t in columns]
            cursor.execute(f"SELECT {', '.join(shown)} FROM {table} ORDER BY id")
            return [n for n, _ in columns], list(cursor.fetchall())
    finally:
        con.close()


def assert_cells(source: tuple[list[str], list[tuple[Any, ...]]], target: tuple[list[str], list[tuple[Any, ...]]],
                 kinds: dict[str, str], skip: tuple[str, ...] = ()) -> None:
    """Every cell of `target` is its `source` cell under `norm`; a failure names the column and row."""
    names, rows = source
    target_names, target_rows = target
    assert len(target_rows) == len(rows)
    for column in names:
        if column in skip:
            continue
        at, to = names.index(column), target_names.index(column)
        for row, copied in zip(rows, target_rows, strict=True):
            kind = kinds.get(column, "text")
            assert norm(kind, copied[to]) == norm(kind, row[at]), (column, row[0], row[at], copied[to])


PG_KINDS = {"f8": "float", "f8n": "float", "f4": "float", "dec": "number", "ts": "time", "tstz": "time", "tm": "time",
            "ivt": "time", "by": "bytes", "bo": "bool", "js": "json"}
MARIA_KINDS = {"dtm": "time", "ts": "time", "tm": "time", "bl": "bytes", "vb": "bytes", "dec65": "number",
               "d10": "number", "fl": "single", "db": "float", "js": "json", "f24": "single"}


@pytest.fixture(scope="module", params=sorted(ENGINES))
def engine(request) -> str:
    """Each cell on both engines (docs/spark.md): the Spark session starts once for the module's runs."""
    return str(request.param)


@pytest.fixture(scope="module")
def copied(tmp_path_factory, postgres_server, mariadb_server, api_server, engine) -> dict[str, Any]:  # noqa: F811
    """Both sources, and one run per path: PostgreSQL -> PostgreSQL (existing and created), -> CSV
    -> PostgreSQL, -> MariaDB; MariaDB -> PostgreSQL, -> CSV -> MariaDB; then the refusals. Every run
    of the module's project (these and the tests' own) is on `engine`."""
    with psycopg.connect(postgres_server.dsn(), autocommit=True) as con:
        con.execute(PG_SOURCE)
    maria = mariadb_server.connect(autocommit=True, init_command="SET time_zone = '+00:00'")
    with maria.cursor() as cursor:
        for table in ("tm_src", "tm_back", "tm_from_pg", "tm_zero", "tm_instants", "tm_api_maria", "tm_wide",
                      *(f"tm_refused_{column}" for column in REFUSED_BY_MARIADB)):
            cursor.execute(f"DROP TABLE IF EXISTS {table}")
        for statement in MARIA_SOURCE:
            cursor.execute(statement)
    maria.close()
    proj = on_engine(RunProject(tmp_path_factory.mktemp(f"matrix-{engine}") / "project", postgres=postgres_server,
                                mariadb=mariadb_server), engine)
    runs = {}
    runs["from_pg"] = proj.run(str(proj.pipeline([
        pg_step("read", "read", table="tm_src") if engine == "duckdb" else
        pg_step("read", "read", query=f"SELECT {', '.join(PG_COLUMNS[:-1])} FROM tm_src"),
        pg_step("copy", "write", table="tm_pg_copy"),
        {**pg_step("made", "write", table="tm_pg_made", create_if_missing=True), "needs": ["read"]},
        {**csv_step("csv", "write", "pg.csv"), "needs": ["read"]},
        sql_step("storable", f"SELECT * EXCLUDE (f8, f4, {'d, ' if engine == 'duckdb' else ''}iv) FROM df_read",
                 needs=["read"]),
        mysql_step("maria", "write", table="tm_from_pg", create_table=True),
        sql_step("plain", PLAIN_COLUMNS, needs=["read"]), csv_step("plain_csv", "write", "plain.csv")], name="from-pg")))
    for route, suffix in (("direct", ""), ("engine", "_engine")):  # CSV -> PostgreSQL, the direct route on and off
        for name, source in (("back", "pg.csv"), ("plain", "plain.csv")):
            runs[f"pg_{name}{suffix}"] = csv_into_postgres(proj, source, f"tm_pg_{name}{suffix}", route)
    runs["from_maria"] = proj.run(str(proj.pipeline([
        mysql_step("read", "read", table="tm_src"), csv_step("csv", "write", "maria.csv"),
        {**pg_step("pg", "write", table="tm_from_maria", create_if_missing=True), "needs": ["read"]}],
        name="from-maria")))
    runs["maria_back"] = proj.run(str(proj.pipeline([csv_step("read", "read", "maria.csv"),
                                                     mysql_step("write", "write", table="tm_back")], name="maria-back")))
    api = {"id": "read", "component": "rest.extractor", "mode": "read",
           "config": {"base_url": api_server.url, "endpoint": "/numbers", "data_path": "items"}}
    runs["from_api"] = proj.run(str(proj.pipeline([
        api, {**csv_step("csv", "write", "api.csv"), "needs": ["read"]},
        {**pg_step("pg", "write", table="tm_from_api", create_if_missing=True), "needs": ["read"]},
        sql_step("flat", "SELECT * EXCLUDE (owner) FROM df_read", needs=["read"]),
        mysql_step("maria", "write", table="tm_api_maria", create_table=True)], name="from-api")))
    for column in REFUSED_BY_MARIADB:
        path = proj.pipeline([pg_step("read", "read", query=f"SELECT id, {column} FROM tm_src"),
                              mysql_step("write", "write", table=f"tm_refused_{column}", create_table=True)],
                             name=f"refuse-{column}")
        runs[f"refuse_{column}"] = (path, proj.run(str(path)))
    return {"proj": proj, "runs": runs, "pg": postgres_server, "maria": mariadb_server, "engine": engine}


CSV_TO_POSTGRES = ("filesystem.csv_extractor", "postgres.writer")
# The columns of tm_src whose every value the direct CSV -> PostgreSQL route carries (osiris/run/drivers/csv_postgres.py):
# its text without the double quote (a `"` in a text value sends the copy to the engine's route), and tm_plain_src's.
PLAIN_COLUMNS = "SELECT id, replace(t, '\"', '') AS t, sm, i, b, dn, ts, tm FROM df_read"


def csv_into_postgres(proj: RunProject, csv_name: str, table: str, route: str) -> tuple[Any, list[str]]:
    """`csv_name` into `table`, a plain copy: with the direct route offered (`direct`), or switched off
    (`engine`: osiris.run.direct.ROUTES without it). The run's result, and what each direct route
    it tried gave (`Copied`, or `NoneType` when it declined)."""
    taken: list[str] = []
    real = direct.copy

    def spy(reader: Any, writer: Any) -> Any:
        taken.append(type(result := real(reader, writer)).__name__)
        return result

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(direct, "copy", spy)
        if route == "engine":
            patch.delitem(direct.ROUTES, CSV_TO_POSTGRES)
        result = proj.run(str(proj.pipeline([csv_step("read", "read", csv_name), pg_step("write", "write", table=table)],
                                            name=f"csv-to-{table}")))
    return result, taken


def refused_when_read(copied: dict[str, Any]) -> tuple[str, ...]:
    """The PostgreSQL columns the run's engine refuses when read (on Spark: infinite dates)."""
    return tuple(REFUSED_ON_SPARK) if copied["engine"] == "spark" else ()


def test_every_path_runs(copied):
    failed = {name: copied["runs"][name].stderr for name in ("from_pg", "from_maria", "maria_back", "from_api")
              if copied["runs"][name].returncode != 0}
    failed.update({name: copied["runs"][name][0].stderr for name in ("pg_back", "pg_back_engine", "pg_plain",
                                                                     "pg_plain_engine")
                   if copied["runs"][name][0].returncode != 0})
    assert failed == {}


def test_postgres_to_postgres_keeps_every_value(copied):
    dsn = copied["pg"].dsn()
    assert_cells(pg_rows(dsn, "tm_src"), pg_rows(dsn, "tm_pg_copy"), {}, skip=refused_when_read(copied))  # same text


def test_postgres_to_a_created_postgres_table_keeps_every_value(copied):
    dsn = copied["pg"].dsn()
    assert_cells(pg_rows(dsn, "tm_src"), pg_rows(dsn, "tm_pg_made"), {}, skip=refused_when_read(copied))


def test_postgres_to_a_created_postgres_table_gets_a_faithful_type(copied):
    dsn = copied["pg"].dsn()
    with psycopg.connect(dsn) as con:
        types = dict(con.execute("SELECT column_name, format_type(atttypid, atttypmod) FROM information_schema.columns "
                                 "JOIN pg_attribute ON attrelid = 'tm_pg_made'::regclass AND attname = column_name "
                                 "WHERE table_name = 'tm_pg_made'").fetchall())
    assert {k: types[k] for k in ("wide", "nnan", "dec", "by", "iv", "js", "tz", "arr", "mood", "u")} == {
        "wide": "numeric", "nnan": "numeric", "dec": "numeric(38,10)", "by": "bytea", "iv": "interval",
        "js": "jsonb", "tz": "time with time zone", "arr": "text", "mood": "text", "u": "uuid"}


def test_postgres_to_csv_and_back_keeps_every_value(copied):
    dsn = copied["pg"].dsn()
    assert_cells(pg_rows(dsn, "tm_src"), pg_rows(dsn, "tm_pg_back"), {}, skip=refused_when_read(copied))
    text = (copied["proj"].root / "pg.csv").read_text(encoding="utf-8")
    assert '\n2,"",' in text and "\n1,," in text  # '' is "", NULL an empty field
    assert ",\\x00ff10," in text and ",12345678901234567890.123456789," in text and ",nan," in text
    assert ",2024-06-01 03:07:00+00," in text  # an instant, in UTC


@pytest.mark.parametrize("route", ["direct", "engine"])
def test_csv_to_postgres_keeps_every_value_on_both_routes(copied, route):
    """The CSV -> PostgreSQL cells with the direct route offered and switched off: the same value in every
    cell, and the same tables; the route is taken where it can prove its bytes the engine's (the
    plain columns, on DuckDB) and declines elsewhere (the file with every type)."""
    dsn, suffix = copied["pg"].dsn(), "" if route == "direct" else "_engine"
    assert_cells(pg_rows(dsn, "tm_src"), pg_rows(dsn, f"tm_pg_back{suffix}"), {}, skip=refused_when_read(copied))
    assert_cells(pg_rows(dsn, "tm_plain_src"), pg_rows(dsn, f"tm_pg_plain{suffix}"), {})
    assert pg_rows(dsn, f"tm_pg_plain{suffix}") == pg_rows(dsn, "tm_pg_plain")
    assert pg_rows(dsn, f"tm_pg_back{suffix}") == pg_rows(dsn, "tm_pg_back")
    offered = route == "direct" and copied["engine"] == "duckdb"  # the Spark engine has no direct routes
    assert copied["runs"][f"pg_plain{suffix}"][1] == (["Copied"] if offered else [])
    assert copied["runs"][f"pg_back{suffix}"][1] == (["NoneType"] if offered else [])


@pytest.mark.parametrize("name", ["pg.csv", "plain.csv", "maria.csv", "api.csv"])
def test_a_csv_file_sniffed_once_reads_the_columns_and_values_a_sniffing_read_does(copied, name):
    """ADR 0205: the one-pass read names the dialect and columns `sniff_csv` found instead of sniffing at
    each bind. On each CSV file of the matrix it gives the columns and every value (as text, NaN
    included) of the two passes that sniff as they always did (ADR 0166's reference); the fused
    read's view gives the same, or refuses a number no double holds (INEXACT) where the two passes
    chose a DECIMAL or the text."""
    import duckdb

    from osiris.run.csv_input import INEXACT, exact_number_types, exact_view, read_exactly
    from osiris.run.csv_output import literal
    from osiris.run.drivers.filesystem import _read_options

    config = {"delimiter": ",", "header": True, "encoding": "utf-8", "skip_rows": 0, "compression": "infer"}

    def options(types, sniffed=None):
        return _read_options(config, types, sniffed)

    def rows(table):
        columns = [(str(r[0]), str(r[1])) for r in con.execute(f'DESCRIBE "{table}"').fetchall()]
        texts = ", ".join(f'CAST("{column}" AS VARCHAR)' for column, _ in columns)
        return columns, con.execute(f'SELECT {texts} FROM "{table}" ORDER BY ALL').fetchall()

    source = literal(str(copied["proj"].root / name))
    con = duckdb.connect()
    described = con.execute(f"DESCRIBE SELECT * FROM read_csv({source}{options({})})").fetchall()
    doubles = [str(row[0]) for row in described if row[1] == "DOUBLE"]
    found = exact_number_types(con, source, options({}), doubles)
    con.execute(f"CREATE TABLE reference AS SELECT * FROM read_csv({source}{options(found)})")
    read_exactly(con, '"once"', source, options, "", ())
    assert rows("once") == rows("reference")
    try:
        exact_view(con, '"fused"', source, options, ())
        assert rows("fused") == rows("reference")
    except duckdb.Error as error:
        assert INEXACT in str(error) and found  # the fused read then runs apart, as the reference
    assert len(rows("reference")[1]) >= 3


def test_postgres_to_mariadb_keeps_every_value_it_can_store(copied):
    source = pg_rows(copied["pg"].dsn(), "tm_src")
    target = maria_rows(copied["maria"], "tm_from_pg")
    assert_cells(source, target, {**PG_KINDS, "tz": "text"}, skip=tuple(REFUSED_BY_MARIADB))


@pytest.mark.parametrize("column", sorted(REFUSED_BY_MARIADB))
def test_postgres_values_mariadb_cannot_store_are_refused_before_writing(copied, column):
    path, result = copied["runs"][f"refuse_{column}"]
    assert result.returncode == 6
    step, line = "write", REFUSED_BY_MARIADB[column]
    if column in refused_when_read(copied):  # the read already refuses it (docs/types.md, "On the Spark engine")
        step, line = "read", REFUSED_ON_SPARK[column]
    assert f"{path} OML504 step '{step}': column '{column}' {line}\n" in result.stderr
    assert "nothing was written (docs/types.md)" in result.stderr
    con = copied["maria"].connect()
    with con.cursor() as cursor:
        assert cursor.execute(f"SHOW TABLES LIKE 'tm_refused_{column}'") == 0  # not even created
    con.close()


def test_mariadb_to_postgres_keeps_every_value(copied):
    source = maria_rows(copied["maria"], "tm_src")
    target = pg_rows(copied["pg"].dsn(), "tm_from_maria")
    assert_cells(source, target, MARIA_KINDS)
    with psycopg.connect(copied["pg"].dsn()) as con:  # MariaDB FLOAT 16777216: not 1.67772e+07 (six digits)
        assert con.execute("SELECT f24 = 16777216 FROM tm_from_maria WHERE id = 1").fetchone() == (True,)


def test_mariadb_to_a_created_postgres_table_gets_a_faithful_type(copied):
    with psycopg.connect(copied["pg"].dsn()) as con:
        types = dict(con.execute("SELECT attname, format_type(atttypid, atttypmod) FROM pg_attribute "
                                 "WHERE attrelid = 'tm_from_maria'::regclass AND attnum > 0").fetchall())
    assert {k: types[k] for k in ("ub", "dec65", "tm", "bl", "ts", "bt10", "f24")} == {
        "ub": "numeric(20,0)", "dec65": "numeric", "tm": "interval", "bl": "bytea",
        "ts": "timestamp with time zone", "bt10": "numeric(20,0)", "f24": "real"}


def test_mariadb_to_csv_and_back_keeps_every_value(copied):
    maria = copied["maria"]
    assert_cells(maria_rows(maria, "tm_src"), maria_rows(maria, "tm_back"), {})  # the very same text
    text = (copied["proj"].root / "maria.csv").read_text(encoding="utf-8")
    assert ",18446744073709551615," in text and ",-838:59:59," in text and ",\\x00ff10," in text
    assert ",12345678901234567890123456789012345.123456789012345678901234567890," in text
    assert ",1970-01-01 00:00:01+00," in text  # TIMESTAMP is an instant: read in UTC, whatever the server's zone
    rows = text.splitlines()
    assert rows[1].endswith(",16777216.0") and rows[2].endswith(",0.1")  # FLOAT: its value, not six digits


def test_a_postgres_instant_lands_in_a_mariadb_timestamp_column_as_the_same_instant(copied):
    """Issue 23, item 1: the server's zone is +09:00; the session is UTC, so 12:07 UTC stays 12:07 UTC."""
    proj = copied["proj"]
    path = proj.pipeline([pg_step("read", "read", query="SELECT 1 AS id, timestamptz '2024-06-01 12:07:00+00' AS ts"),
                          mysql_step("write", "write", table="tm_instants", mode="replace")], name="instant")
    assert proj.run(str(path)).returncode == 0
    con = copied["maria"].connect()  # the server's own zone, +09:00
    with con.cursor() as cursor:
        cursor.execute("SELECT UNIX_TIMESTAMP(ts), CAST(ts AS CHAR) FROM tm_instants")
        assert cursor.fetchall() == ((Decimal("1717243620.000000"), "2024-06-01 21:07:00.000000"),)
    con.close()


def test_mariadb_zero_dates_are_refused_with_their_row_count(copied):
    proj = copied["proj"]
    path, stderr = proj.run_failing([mysql_step("read", "read", table="tm_zero"), csv_step("out", "write", "zero.csv")])
    assert (f"{path} OML504 step 'read': column 'd' holds a zero or partial date (0000-00-00, 2024-00-15) in 2 rows, "
            "which no date type outside MySQL has\n"
            "    hint: read them as NULL with NULLIF(d, '0000-00-00') in the step's query (or as text with "
            "CAST(d AS CHAR)); nothing was written (docs/types.md)\n") in stderr
    assert not (proj.root / "zero.csv").exists()
    asked = proj.pipeline([mysql_step("read", "read", query="SELECT id, NULLIF(d, '0000-00-00') AS d FROM tm_zero "
                                                           "WHERE id < 3"), csv_step("out", "write", "zero.csv")],
                          name="as-null")
    assert proj.run(str(asked)).returncode == 0
    assert (proj.root / "zero.csv").read_text() == "id,d\n1,\n2,2024-01-02\n"


@pytest.mark.parametrize("column, line", [
    ("nan_dec", "column 'nan_dec' holds NaN or an infinite number, which DECIMAL(10,2) cannot hold"),
    ("bc", "column 'bc' holds a date before the year 1 (BC), which the engine's DATE cannot hold")])
def test_postgres_values_the_engine_cannot_hold_are_refused_when_read(copied, column, line):
    proj = copied["proj"]
    path, stderr = proj.run_failing([pg_step("read", "read", query=f"SELECT id, {column} FROM tm_pg_bad"),
                                     csv_step("out", "write", f"{column}.csv")], name=f"bad-{column}")
    assert f"{path} OML504 step 'read': {line}\n" in stderr
    assert "NaN" not in stderr.replace("holds NaN", "")  # the value itself is never shown
    assert not shows_number(stderr, "0044")  # 0044-03-15 BC; a session id made at 00:44 holds 0044 too
    assert not (proj.root / f"{column}.csv").exists()


# --- JSON numbers from an API (issue 35): every size arrives exactly, to a CSV file and to both databases ---

API_NUMBERS = {  # column -> its values in rows 1 and 2 as the API wrote them (tests/servers/http_apis.py)
    "big": ("9223372036854775807", "1"), "neg": ("-9223372036854775808", "0"),
    "huge": ("12345678901234567890123", "-5"), "dec": ("1234567890.123456789", "1.5"),
    "wide": ("99999999999999999999.99", "0"), "small": ("0.1", "2.5"), "sci": ("1e300", "1.5"),
    "long": ("123456789012345678901234567890123456789012.5", "1")}


def test_the_api_body_holds_the_numbers_the_matrix_compares():
    text = NUMBERS_BODY.decode()
    for first, second in API_NUMBERS.values():
        assert f": {first}," in text and f": {second}," in text


def test_json_numbers_of_every_size_arrive_exactly_in_a_csv_file(copied):
    text = (copied["proj"].root / "api.csv").read_text(encoding="utf-8")
    assert text.splitlines() == [
        "id,big,neg,huge,dec,wide,small,sci,long,owner",
        '1,9223372036854775807,-9223372036854775808,12345678901234567890123,1234567890.123456789,'
        '99999999999999999999.99,0.1,1e+300,123456789012345678901234567890123456789012.5,'
        '"{""rank"":""1234567890.123456789""}"',
        '2,1,0,-5,1.500000000,0.00,2.5,1.5,1,"{""rank"":1}"',
        "3,,,,,,,,,"]


def test_json_numbers_of_every_size_arrive_exactly_in_postgres(copied):
    names, rows = pg_rows(copied["pg"].dsn(), "tm_from_api")
    for column, values in API_NUMBERS.items():
        cells = [row[names.index(column)] for row in rows]
        assert [Decimal(cell) for cell in cells[:2]] == [Decimal(value) for value in values], column
        assert cells[2] is None
    with psycopg.connect(copied["pg"].dsn()) as con:
        types = dict(con.execute("SELECT attname, format_type(atttypid, atttypmod) FROM pg_attribute "
                                 "WHERE attrelid = 'tm_from_api'::regclass AND attnum > 0").fetchall())
    assert {k: types[k] for k in ("big", "huge", "dec", "wide", "long")} == {
        "big": "bigint", "huge": "numeric(39,0)", "dec": "numeric(19,9)", "wide": "numeric(22,2)",
        "long": "numeric"}


def test_json_numbers_of_every_size_arrive_exactly_in_mariadb(copied):
    names, rows = maria_rows(copied["maria"], "tm_api_maria")
    for column, values in API_NUMBERS.items():
        cells = [row[names.index(column)] for row in rows]
        assert [Decimal(cell) for cell in cells[:2]] == [Decimal(value) for value in values], column
    con = copied["maria"].connect()
    with con.cursor() as cursor:  # the created types (after a transform: `long`, wider than 38 digits, is text)
        cursor.execute("SELECT column_name, column_type FROM information_schema.columns WHERE table_schema = 'shop' "
                       "AND table_name = 'tm_api_maria'")
        types = dict(cursor.fetchall())
    con.close()
    assert {k: types[k] for k in ("big", "huge", "dec", "wide", "long")} == {
        "big": "bigint(20)", "huge": "decimal(39,0)", "dec": "decimal(19,9)", "wide": "decimal(22,2)",
        "long": "text"}


def test_a_wide_numeric_gets_the_mariadb_decimal_its_values_need(copied):
    """A PostgreSQL numeric wider than 38 digits (kept as text, noted numeric) straight into a created
    MariaDB table gets the DECIMAL its widest value needs, on Spark too, where the rows wait in MariaDB."""
    proj = copied["proj"]
    path = proj.pipeline([pg_step("read", "read", query="SELECT id, wide FROM tm_src WHERE id IN (1, 2, 4)"),
                          mysql_step("write", "write", table="tm_wide", create_table=True)], name="wide")
    result = proj.run(str(path))
    assert result.returncode == 0, result.stderr
    con = copied["maria"].connect()
    with con.cursor() as cursor:
        cursor.execute("SELECT column_type FROM information_schema.columns WHERE table_schema = 'shop' "
                       "AND table_name = 'tm_wide' AND column_name = 'wide'")
        assert cursor.fetchall() == (("decimal(50,30)",),)
        cursor.execute("SELECT CAST(wide AS CHAR) FROM tm_wide ORDER BY id")
        assert cursor.fetchall() == (("12345678901234567890.123456789000000000000000000000",),
                                     ("-0.000000000000000000000000000001",), (None,))
    con.close()
