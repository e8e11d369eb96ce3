"""The copies bench/run.py times `osiris run` against, each done without Osiris in a process of its own
(as `osiris run` is one): what a person would otherwise use, down to the database's own bulk path.

  psql \\copy        PostgreSQL's C client: COPY ... TO STDOUT into a file, COPY ... FROM STDIN from it
  psycopg script    the same COPY through psycopg, the driver Osiris uses, in a short Python script
  psql | mariadb    the C clients piped: psql \\copy TO STDOUT into MariaDB's LOAD DATA LOCAL INFILE
  psycopg+PyMySQL   a server-side psycopg cursor into PyMySQL executemany (5,000-row batches)
  DuckDB alone      one DuckDB statement over the file (read_csv, the query, COPY TO), in Python

DuckDB's postgres and mysql extensions would be a baseline for the database copies too, but they
are downloaded on first use and this machine has no internet (ADR 0127).
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path

from tests.servers.needs import PG_BIN
from tests.support import clean_env

# One statement for every route of CSV -> SQL -> CSV: a filter and an aggregate, as the issue asks.
AGGREGATE = "SELECT amount, count(*) AS n, sum(id) AS s FROM {source} WHERE id % 3 = 0 GROUP BY amount ORDER BY amount"

_PSYCOPG_OUT = """
import os, psycopg
with psycopg.connect(os.environ["BENCH_DSN"]) as conn, conn.cursor() as cursor, open(os.environ["BENCH_FILE"], "wb") as out:
    out.write(b"id,name,amount,at\\n")
    with cursor.copy("COPY src TO STDOUT (FORMAT CSV)") as copy:
        for chunk in copy:
            out.write(chunk)
"""
_PSYCOPG_IN = """
import os, psycopg
with psycopg.connect(os.environ["BENCH_DSN"]) as conn, conn.cursor() as cursor:
    cursor.execute("DELETE FROM dst")
    with open(os.environ["BENCH_FILE"], "rb") as source, cursor.copy("COPY dst FROM STDIN (FORMAT CSV, HEADER)") as copy:
        while chunk := source.read(1 << 20):
            copy.write(chunk)
"""
_PSYCOPG_PYMYSQL = """
import os, psycopg, pymysql
maria = pymysql.connect(host=os.environ["BENCH_MARIA_HOST"], port=int(os.environ["BENCH_MARIA_PORT"]),
                        user=os.environ["BENCH_MARIA_USER"], password=os.environ["BENCH_MARIA_PASSWORD"],
                        database=os.environ["BENCH_MARIA_DATABASE"])
with psycopg.connect(os.environ["BENCH_DSN"]) as source, source.cursor(name="bench") as read, maria.cursor() as write:
    write.execute("DELETE FROM dst")
    read.execute("SELECT * FROM src")
    while batch := read.fetchmany(5000):
        write.executemany("INSERT INTO dst (id, name, amount, at) VALUES (%s, %s, %s, %s)", batch)
maria.commit()
"""
_DUCKDB_ALONE = """
import os, duckdb
con = duckdb.connect()
query = os.environ["BENCH_QUERY"].format(source="read_csv('" + os.environ["BENCH_FILE"] + "')")
con.execute(f"COPY ({query}) TO '{os.environ['BENCH_OUT']}' (FORMAT csv, HEADER true)")
"""


@dataclass(frozen=True)
class Baseline:
    """A copy done without Osiris: its name and the command that does it (a shell line or argv)."""

    name: str
    command: list[str] | str
    env: dict[str, str]

    @property
    def shell(self) -> bool:
        return isinstance(self.command, str)


def baselines(copy: str, pg, maria, root: Path, table: str = "src",  # type: ignore[no-untyped-def]
              csv_name: str = "src.csv") -> list[Baseline]:
    """The baselines of one copy (its name as bench/run.py prints it), fastest kind first; PostgreSQL
    -> CSV reads `table`, CSV -> SQL -> CSV reads `csv_name` under `root`."""
    csv_path, out = root / csv_name, root / "baseline-out.csv"
    pg_env = {**clean_env(), "PGPASSWORD": pg.password, "BENCH_DSN": pg.dsn()}
    psql = [str(PG_BIN / "psql"), "-X", "-q", "-h", pg.host, "-p", str(pg.port), "-U", pg.user, "-d", pg.database]
    if copy == "PostgreSQL -> CSV":
        return [Baseline("psql \\copy", [*psql, "-c", f"\\copy {table} TO '{out}' (FORMAT CSV, HEADER)"], pg_env),
                Baseline("psycopg script", [sys.executable, "-c", _PSYCOPG_OUT], {**pg_env, "BENCH_FILE": str(out)})]
    if copy == "CSV -> PostgreSQL":
        return [Baseline("psql \\copy", [*psql, "-c", f"\\copy dst FROM '{csv_path}' (FORMAT CSV, HEADER)"], pg_env),
                Baseline("psycopg script", [sys.executable, "-c", _PSYCOPG_IN], {**pg_env, "BENCH_FILE": str(csv_path)})]
    if copy == "PostgreSQL -> MariaDB":
        maria_env = {"BENCH_MARIA_HOST": maria.host, "BENCH_MARIA_PORT": str(maria.port),
                     "BENCH_MARIA_USER": maria.user, "BENCH_MARIA_PASSWORD": maria.password,
                     "BENCH_MARIA_DATABASE": maria.database}
        pipe = (" ".join(psql) + " -c '\\copy src TO STDOUT' | mariadb --local-infile=1 -h " + maria.host +
                f" -P {maria.port} -u {maria.user} -p\"$BENCH_MARIA_PASSWORD\" {maria.database} -e "
                "\"DELETE FROM dst; LOAD DATA LOCAL INFILE '/dev/stdin' INTO TABLE dst (id, name, amount, at)\"")
        return [Baseline("psql | mariadb", pipe, {**pg_env, **maria_env}),
                Baseline("psycopg+PyMySQL", [sys.executable, "-c", _PSYCOPG_PYMYSQL], {**pg_env, **maria_env})]
    if copy == "CSV -> SQL -> CSV":
        return [Baseline("DuckDB alone", [sys.executable, "-c", _DUCKDB_ALONE],
                         {**clean_env(), "BENCH_FILE": str(csv_path), "BENCH_OUT": str(out), "BENCH_QUERY": AGGREGATE})]
    raise ValueError(copy)
