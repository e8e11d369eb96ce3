"""The real database servers the runtime's tests use start and answer on loopback."""

from __future__ import annotations

from typing import Any


def test_postgres_answers_on_loopback(postgres_server: Any) -> None:
    import psycopg

    with psycopg.connect(postgres_server.dsn()) as con:
        version = con.execute("SHOW server_version").fetchone()[0]
    assert version.startswith("15.")
    assert postgres_server.host == "127.0.0.1"


def test_mariadb_answers_on_loopback(mariadb_server: Any) -> None:
    con = mariadb_server.connect()
    try:
        with con.cursor() as cur:
            cur.execute("SELECT VERSION()")
            assert "MariaDB" in cur.fetchone()[0]
    finally:
        con.close()
