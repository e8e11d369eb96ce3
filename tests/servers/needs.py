"""What `make test` needs besides Python packages: PostgreSQL 15 and MariaDB on this machine
(README, docs/testing.md). `make test` asks here first, so that a fresh machine without them gets
one line saying how to install them (as `.ci/run` does) instead of hundreds of failing tests. The
test servers (postgres.py, mariadb.py) look for the same programs in the same places.

    .venv/bin/python -m tests.servers.needs     # exit 0, or 2 and one line on stderr
"""

from __future__ import annotations

import shutil
import sys
from collections.abc import Callable
from pathlib import Path

PG_BIN = Path("/usr/lib/postgresql/15/bin")
# program -> (what provides it, the places to look before PATH)
PROGRAMS: dict[str, tuple[str, tuple[str, ...]]] = {
    "initdb": ("PostgreSQL 15", (str(PG_BIN / "initdb"),)),
    "postgres": ("PostgreSQL 15", (str(PG_BIN / "postgres"),)),
    "mariadb-install-db": ("MariaDB", ("/usr/bin/mariadb-install-db", "/usr/bin/mysql_install_db")),
    "mariadbd": ("MariaDB", ("/usr/sbin/mariadbd", "/usr/sbin/mysqld")),
}
PACKAGES = {"PostgreSQL 15": "postgresql-15", "MariaDB": "mariadb-server"}


def candidates(program: str) -> tuple[str, ...]:
    return PROGRAMS[program][1]


def missing(exists: Callable[[str], bool] = lambda path: Path(path).exists(),
            which: Callable[[str], str | None] | None = None) -> list[str]:
    """The servers (PostgreSQL 15, MariaDB) with a program not found here, in a stable order."""
    which = which or shutil.which
    absent = [provider for name, (provider, places) in PROGRAMS.items()
              if not any(exists(place) for place in places) and which(name) is None]
    return list(dict.fromkeys(absent))


def advice(absent: list[str]) -> str:
    """One line: what is missing and the command that installs it."""
    packages = " ".join(PACKAGES[server] for server in absent)
    return (f"make test: the tests run real servers, and {' and '.join(absent)} "
            f"{'is' if len(absent) == 1 else 'are'} not installed here; install "
            f"{'it' if len(absent) == 1 else 'them'} as .ci/run does (sudo apt-get install -y {packages}), "
            "then run make test again")


def main() -> int:
    absent = missing()
    if absent:
        print(advice(absent), file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
