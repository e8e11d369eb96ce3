"""A real PostgreSQL 15, initialised in a temp dir and started on a loopback port."""

from __future__ import annotations

import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

from tests.servers.needs import candidates
from tests.servers.process import (DatabaseServer, ServerStartError, find_binary, free_port,
                                   hand_over, run_as, wait_until)

PASSWORD = "pg-test-Secret-41"  # planted: tests scan output for it


@dataclass
class PostgresServer(DatabaseServer):
    data_dir: Path

    def home(self) -> Path:
        return self.data_dir.parent

    def dsn(self, database: str | None = None) -> str:
        return (f"host={self.host} port={self.port} user={self.user} "
                f"password={self.password} dbname={database or self.database}")

    def fresh_database(self, name: str) -> str:
        """A new, empty database of this server, for tests that own a whole schema; its DSN."""
        import psycopg

        with psycopg.connect(self.dsn(), autocommit=True) as con:
            con.execute(f'DROP DATABASE IF EXISTS "{name}"')
            con.execute(f'CREATE DATABASE "{name}"')
        return self.dsn(name)


def start_postgres() -> PostgresServer:
    initdb = find_binary("initdb", *candidates("initdb"))
    postgres = find_binary("postgres", *candidates("postgres"))
    root = Path(tempfile.mkdtemp(prefix="osiris-pg-"))
    hand_over(root)
    data, log = root / "data", root / "server.log"
    pwfile = root / "pw"
    pwfile.write_text(PASSWORD + "\n")
    hand_over(root)
    init = subprocess.run(
        [initdb, "-D", str(data), "-U", "osiris", "--pwfile", str(pwfile), "-A", "scram-sha-256",
         "-E", "UTF8", "--no-sync"],
        capture_output=True, **run_as(),  # type: ignore[call-overload]
    )
    if init.returncode != 0:
        raise ServerStartError(f"initdb failed: {init.stderr.decode(errors='replace')[-800:]}")
    port = free_port()
    with open(log, "wb") as out:
        process = subprocess.Popen(
            [postgres, "-D", str(data), "-p", str(port), "-h", "127.0.0.1", "-k", str(root),
             "-c", "fsync=off", "-c", "synchronous_commit=off", "-c", "full_page_writes=off"],
            stdout=out, stderr=subprocess.STDOUT, **run_as(),  # type: ignore[call-overload]
        )
    server = PostgresServer("127.0.0.1", port, "osiris", PASSWORD, "postgres", process, data)
    wait_until(lambda: _accepts(server), process, log, "PostgreSQL")
    return server


def _accepts(server: PostgresServer) -> bool:
    import psycopg

    try:
        with psycopg.connect(server.dsn(), connect_timeout=2):
            return True
    except psycopg.OperationalError:
        return False
