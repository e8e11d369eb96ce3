"""A real MariaDB (installed by .ci/run from apt), initialised in a temp dir on a loopback port, with a
global time zone that is not UTC."""

from __future__ import annotations

import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

from tests.servers.needs import candidates
from tests.servers.process import (DatabaseServer, ServerStartError, find_binary, free_port,
                                   hand_over, run_as, wait_until)

PASSWORD = "maria-test-Secret-73"  # planted: tests scan output for it
USER = "osiris"
DATABASE = "shop"
READER, READER_PASSWORD = "reader", "maria-reader-Secret-19"  # a user that may only read `shop`
TIME_ZONE = "+09:00"  # the server's global time zone, as on a machine in Tokyo (issue 23)


@dataclass
class MariaDBServer(DatabaseServer):
    socket: Path

    def home(self) -> Path:
        return self.socket.parent

    def connect(self, **extra: object):  # type: ignore[no-untyped-def]
        import pymysql

        return pymysql.connect(host=self.host, port=self.port, user=self.user,
                               password=self.password, database=self.database, **extra)

    def execute(self, *statements: str) -> None:
        """Run `statements` in order, each committed (a test's tables and rows)."""
        con = self.connect(autocommit=True)
        try:
            with con.cursor() as cursor:
                for statement in statements:
                    cursor.execute(statement)
        finally:
            con.close()


def start_mariadb() -> MariaDBServer:
    install = find_binary("mariadb-install-db", *candidates("mariadb-install-db"))
    server_bin = find_binary("mariadbd", *candidates("mariadbd"))
    root = Path(tempfile.mkdtemp(prefix="osiris-maria-"))
    data, log, sock = root / "data", root / "server.log", root / "mysqld.sock"
    hand_over(root)
    init = subprocess.run(
        [install, "--no-defaults", f"--datadir={data}", "--auth-root-authentication-method=socket",
         "--skip-test-db", "--skip-name-resolve"],
        capture_output=True, **run_as(),  # type: ignore[call-overload]
    )
    if init.returncode != 0:
        raise ServerStartError(f"mariadb-install-db failed: {init.stderr.decode(errors='replace')[-800:]}")
    port = free_port()
    init_sql = root / "init.sql"
    init_sql.write_text(
        f"CREATE DATABASE IF NOT EXISTS {DATABASE};\n"
        f"CREATE USER IF NOT EXISTS '{USER}'@'127.0.0.1' IDENTIFIED BY '{PASSWORD}';\n"
        f"CREATE USER IF NOT EXISTS '{USER}'@'localhost' IDENTIFIED BY '{PASSWORD}';\n"
        f"GRANT ALL ON *.* TO '{USER}'@'127.0.0.1';\nGRANT ALL ON *.* TO '{USER}'@'localhost';\n"
        f"CREATE USER IF NOT EXISTS '{READER}'@'127.0.0.1' IDENTIFIED BY '{READER_PASSWORD}';\n"
        f"GRANT SELECT ON {DATABASE}.* TO '{READER}'@'127.0.0.1';\n"
    )
    hand_over(root)
    with open(log, "wb") as out:
        process = subprocess.Popen(
            [server_bin, "--no-defaults", f"--datadir={data}", f"--socket={sock}", f"--port={port}",
             "--bind-address=127.0.0.1", "--skip-name-resolve", f"--init-file={init_sql}",
             f"--pid-file={root / 'mysqld.pid'}", "--innodb-flush-log-at-trx-commit=0",
             "--skip-log-bin", "--innodb-buffer-pool-size=64M",
             f"--default-time-zone={TIME_ZONE}"],  # not UTC: Osiris's sessions must set their own
            stdout=out, stderr=subprocess.STDOUT, **run_as(),  # type: ignore[call-overload]
        )
    server = MariaDBServer("127.0.0.1", port, USER, PASSWORD, DATABASE, process, sock)
    wait_until(lambda: _accepts(server), process, log, "MariaDB")
    return server


def _accepts(server: MariaDBServer) -> bool:
    import pymysql

    try:
        server.connect(connect_timeout=2).close()
        return True
    except pymysql.err.OperationalError:
        return False
