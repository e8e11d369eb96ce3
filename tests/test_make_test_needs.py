"""`make test` on a machine without PostgreSQL 15 or MariaDB says in one line how to get them
(tests/servers/needs.py), before any test runs; where they are installed it says nothing."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
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


# .ci/system-packages: the one script that `make test` and `.ci/run` use to get the system packages.
SCRIPT = REPO / ".ci" / "system-packages"


def _plant_machine(root: Path, *, have: tuple[str, ...]) -> None:
    """A planted machine under `root` holding only the files named in `have` (the real / is never touched)."""
    places = {"postgres": "usr/lib/postgresql/15/bin/postgres", "mariadbd": "usr/sbin/mariadbd",
              "pgjdbc": "usr/share/java/postgresql.jar", "mariadbjdbc": "usr/share/java/mariadb-java-client.jar"}
    for name in have:
        path = root / places[name]
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("planted")
        path.chmod(0o755)


def _fake_apt(bin_dir: Path, log: Path) -> None:
    bin_dir.mkdir()
    apt = bin_dir / "apt-get"
    apt.write_text(f'#!/bin/sh\necho "$@" >> {log}\n')
    apt.chmod(0o755)


def test_make_test_installs_system_packages_before_anything_runs():
    env = {k: v for k, v in os.environ.items() if not k.startswith(("MAKE", "MFLAGS"))}
    done = subprocess.run(["make", "--no-print-directory", "-n", "test"], cwd=REPO, env=env, capture_output=True,
                          text=True, timeout=60)
    commands = [line.strip() for line in done.stdout.splitlines() if line.strip()]
    install = commands.index("bash .ci/system-packages")
    assert commands[install + 1].endswith("-m tests.servers.needs")
    assert "-m pytest" in commands[install + 2]


def test_ci_run_gets_its_packages_through_make_test_only():
    ci = (REPO / ".ci" / "run").read_text()
    assert "apt-get" not in ci  # one script installs, and make test calls it
    assert ci.rstrip().endswith("make test")


def test_where_everything_is_installed_the_script_is_silent():
    done = subprocess.run(["bash", str(SCRIPT)], capture_output=True, text=True, timeout=60)
    assert (done.returncode, done.stdout, done.stderr) == (0, "", "")


def test_as_root_the_missing_packages_are_installed_with_apt(tmp_path: Path):
    if os.geteuid() != 0:
        raise AssertionError("this test plants a root install; the suite runs as root on CI and on these machines")
    _plant_machine(tmp_path / "root", have=("postgres", "mariadbd"))
    log = tmp_path / "apt.log"
    _fake_apt(tmp_path / "bin", log)
    env = {**os.environ, "SYSTEM_ROOT": str(tmp_path / "root"), "PATH": f"{tmp_path / 'bin'}:{os.environ['PATH']}"}
    done = subprocess.run(["bash", str(SCRIPT)], env=env, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert log.read_text().splitlines() == ["update -qq", "install -y -qq libpostgresql-jdbc-java libmariadb-java"]
    assert done.stderr == ("make test: installing libpostgresql-jdbc-java libmariadb-java with apt-get "
                           "(the tests need them)\n")


def test_as_another_user_one_line_names_the_command():
    # pytest's tmp_path sits under a 0700 folder of root's; the planted machine must be readable by nobody
    tmp_path = Path(tempfile.mkdtemp(prefix="osiris-machine-"))
    tmp_path.chmod(0o755)
    try:
        _plant_machine(tmp_path / "root", have=("postgres", "pgjdbc"))
        log = tmp_path / "apt.log"
        _fake_apt(tmp_path / "bin", log)
        env = {**os.environ, "SYSTEM_ROOT": str(tmp_path / "root"), "PATH": f"{tmp_path / 'bin'}:{os.environ['PATH']}"}
        as_nobody = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"] if os.geteuid() == 0 else []
        done = subprocess.run([*as_nobody, "bash", str(SCRIPT)], env=env, capture_output=True, text=True, timeout=60)
        assert (done.returncode, done.stdout) == (2, "")
        assert done.stderr == ("make test: the tests need mariadb-server libmariadb-java, which are not installed here; "
                               "install them with: sudo apt-get install -y mariadb-server libmariadb-java\n")
        assert not log.exists()
    finally:
        shutil.rmtree(tmp_path)
