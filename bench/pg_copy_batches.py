"""A COPY statement per batch against one COPY fed batch by batch (ADR 0125).

    .venv/bin/python bench/pg_copy_batches.py --rows 1000000 --batch 1000 --rounds 4

Starts the test PostgreSQL 15, then sends ROWS CSV rows from memory into a table with a primary
key, both ways, interleaved; the table is truncated, vacuumed and checkpointed before each copy.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tests.servers.postgres import start_postgres  # noqa: E402

COPY = "COPY dst (id, name, amount, at) FROM STDIN (FORMAT CSV)"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--batch", type=int, default=1000)
    parser.add_argument("--rounds", type=int, default=4)
    args = parser.parse_args()
    import psycopg

    pg = start_postgres()
    try:
        with psycopg.connect(pg.dsn(), autocommit=True) as conn:
            conn.execute("DROP TABLE IF EXISTS dst")
            conn.execute("CREATE TABLE dst (id bigint PRIMARY KEY, name text, amount numeric(10,2), at timestamp)")
        lines = [f"{i},name-{i},{i % 1000}.25,2024-01-01 00:00:00\n".encode() for i in range(1, args.rows + 1)]
        batches = [b"".join(lines[s:s + args.batch]) for s in range(0, len(lines), args.batch)]
        for round_ in range(1, args.rounds + 1):
            for name, one_statement in (("a COPY per batch", False), ("one COPY", True)):
                print(f"round {round_}  {name:18} {copy(pg, batches, one_statement):6.2f} s", flush=True)
    finally:
        pg.stop()


def copy(pg, batches: list[bytes], one_statement: bool) -> float:
    import psycopg

    with psycopg.connect(pg.dsn(), autocommit=True) as conn:
        conn.execute("TRUNCATE dst")
        conn.execute("VACUUM dst")
        conn.execute("CHECKPOINT")
    with psycopg.connect(pg.dsn()) as conn, conn.cursor() as cursor:
        started = time.perf_counter()
        if one_statement:
            with cursor.copy(COPY) as stream:
                for batch in batches:
                    stream.write(batch)
        else:
            for batch in batches:
                with cursor.copy(COPY) as stream:
                    stream.write(batch)
        seconds = time.perf_counter() - started
        conn.commit()
    return seconds


if __name__ == "__main__":
    main()
