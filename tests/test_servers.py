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


def test_a_stopped_server_leaves_no_files_behind() -> None:
    """Each test session starts its own servers in temp directories; stopping one removes its
    directory, so runs do not fill the disk (a few hundred left behind filled this machine's)."""
    from tests.servers.postgres import start_postgres

    server = start_postgres()
    home = server.home()
    assert (home / "data" / "PG_VERSION").is_file()
    server.stop()
    assert server.process.poll() is not None
    assert not home.exists()
