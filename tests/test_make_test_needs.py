"""`make test` on a machine without PostgreSQL 15 or MariaDB says in one line how to get them
(tests/servers/needs.py), before any test runs; where they are installed it says nothing."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from tests.servers import needs
from tests.support import REPO


def test_where_both_servers_are_installed_the_check_is_silent():
    done = subprocess.run([sys.executable, "-m", "tests.servers.needs"], cwd=REPO,
                          capture_output=True, text=True, timeout=60)
    assert (done.returncode, done.stdout, done.stderr) == (0, "", "")


def test_without_mariadb_one_line_says_how_to_install_it(monkeypatch, tmp_path: Path, capsys):
    for program in ("mariadbd", "mariadb-install-db"):  # planted: places under tmp_path that do not exist
        monkeypatch.setitem(needs.PROGRAMS, program, ("MariaDB", (str(tmp_path / program),)))
    real_which = needs.shutil.which
    monkeypatch.setattr(needs.shutil, "which", lambda name: None if name.startswith("mariadb") else real_which(name))

    assert needs.main() == 2
    assert capsys.readouterr().err == (
        "make test: the tests run real servers, and MariaDB is not installed here; install it as .ci/run does "
        "(sudo apt-get install -y mariadb-server), then run make test again\n")


def test_without_either_both_are_named_once():
    assert needs.missing(exists=lambda path: False, which=lambda name: None) == ["PostgreSQL 15", "MariaDB"]
    assert needs.advice(["PostgreSQL 15", "MariaDB"]).endswith(
        "PostgreSQL 15 and MariaDB are not installed here; install them as .ci/run does "
        "(sudo apt-get install -y postgresql-15 mariadb-server), then run make test again")


def test_make_test_checks_first():
    env = {k: v for k, v in os.environ.items() if not k.startswith(("MAKE", "MFLAGS"))}  # also under `make test`
    done = subprocess.run(["make", "--no-print-directory", "-n", "test"], cwd=REPO, env=env, capture_output=True,
                          text=True, timeout=60)
    commands = [line for line in done.stdout.splitlines() if line.strip()]  # maybe the install first
    check = next(n for n, line in enumerate(commands) if line.endswith("-m tests.servers.needs"))
    assert "-m pytest" in commands[check + 1]
