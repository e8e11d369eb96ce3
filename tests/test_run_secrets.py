"""Connection secrets at run time: `${NAME}` from the environment, else from the system keyring.

The keyring is an in-memory backend (tests/test_auth.py's MemoryKeyring): no real keyring exists
here, and tests must never touch the machine's. Runs are in process (cli.main) so that the backend
is the one the run sees; the database is the real PostgreSQL.
"""

from __future__ import annotations

import keyring
import psycopg
import pytest

from osiris.cli import main
from tests.run_helpers import PG_ENV, RunProject, csv_step, pg_step
from tests.test_auth import MemoryKeyring


@pytest.fixture
def memory_keyring(monkeypatch: pytest.MonkeyPatch):
    previous = keyring.get_keyring()
    backend = MemoryKeyring()
    keyring.set_keyring(backend)
    yield backend
    keyring.set_keyring(previous)


@pytest.fixture
def proj(tmp_path, postgres_server, monkeypatch: pytest.MonkeyPatch) -> RunProject:
    with psycopg.connect(postgres_server.dsn(), autocommit=True) as pg:
        pg.execute("DROP TABLE IF EXISTS keyring_people")
        pg.execute("CREATE TABLE keyring_people (id integer PRIMARY KEY, name text)")
        pg.execute("INSERT INTO keyring_people VALUES (1, 'ann'), (2, 'bob')")
    project = RunProject(tmp_path / "project", postgres=postgres_server)
    monkeypatch.chdir(project.root)
    monkeypatch.delenv(PG_ENV, raising=False)
    return project


def test_a_password_in_the_keyring_is_used_when_the_environment_lacks_it(proj, memory_keyring, capsys):
    memory_keyring.set_password("osiris", PG_ENV, proj.env[PG_ENV])
    path = proj.pipeline([pg_step("read", "read", table="keyring_people"), csv_step("write", "write", "out.csv")])
    assert main(["run", str(path)]) == 0
    assert (proj.root / "out.csv").read_text() == "id,name\n1,ann\n2,bob\n"
    out = capsys.readouterr()
    proj.assert_no_secrets(out.out + out.err)


def test_the_environment_wins_over_the_keyring(proj, memory_keyring, monkeypatch, capsys):
    memory_keyring.set_password("osiris", PG_ENV, "not-the-password")
    monkeypatch.setenv(PG_ENV, proj.env[PG_ENV])
    path = proj.pipeline([pg_step("read", "read", table="keyring_people"), csv_step("write", "write", "out.csv")])
    assert main(["run", str(path)]) == 0
    capsys.readouterr()


def test_a_variable_in_neither_place_is_oml511_and_says_both(proj, memory_keyring, capsys):
    path = proj.pipeline([pg_step("read", "read", table="keyring_people"), csv_step("write", "write", "out.csv")])
    assert main(["run", str(path)]) == 6
    err = capsys.readouterr().err
    assert (f"{path} OML511 step 'read': connections.postgres.default.password refers to ${{{PG_ENV}}}, "
            "which is not set\n") in err
    assert (f"    hint: set the environment variable {PG_ENV} in the shell that runs osiris, or store it in "
            f"the system keyring: keyring set osiris {PG_ENV} (its value is never written anywhere)\n") in err


def test_without_a_usable_keyring_the_variable_is_simply_unset(proj, capsys):
    """conftest selects keyring's fail backend, as on a headless machine: no crash, OML511."""
    path = proj.pipeline([pg_step("read", "read", table="keyring_people"), csv_step("write", "write", "out.csv")])
    assert main(["run", str(path)]) == 6
    err = capsys.readouterr().err
    assert f"OML511 step 'read': connections.postgres.default.password refers to ${{{PG_ENV}}}" in err
    # the hint says what works here, as `osiris auth status` would: no `keyring set` (issue 30, item 7)
    assert (f"    hint: set the environment variable {PG_ENV} in the shell that runs osiris (its value is never "
            "written anywhere); this machine has no usable system keyring to store it in\n") in err
    assert "keyring set" not in err


def test_discover_reads_the_password_from_the_keyring_too(proj, memory_keyring, capsys):
    memory_keyring.set_password("osiris", PG_ENV, proj.env[PG_ENV])
    assert main(["discover", "@postgres.default", "keyring_people"]) == 0
    out = capsys.readouterr()
    proj.assert_no_secrets(out.out + out.err)
    assert "keyring_people" in out.out


def test_a_keyring_password_is_known_to_the_session_redactor(proj, memory_keyring, capsys):
    """Issue 24: one resolver for run and the redactor. The password is only in the keyring; a cell
    holding it is masked in the sample preview and in every session file (save_samples keeps rows)."""
    password = proj.env[PG_ENV]
    memory_keyring.set_password("osiris", PG_ENV, password)
    (proj.root / "echo.csv").write_text(f"id,note\n1,{password}\n")
    (proj.root / ".osiris.yaml").write_text((proj.root / ".osiris.yaml").read_text() + "sessions: {save_samples: true}\n")
    path = proj.pipeline([csv_step("read", "read", "echo.csv")])
    assert main(["run", str(path), "--sample", "2"]) == 0
    out = capsys.readouterr()
    assert "  1   ***" in out.out
    proj.assert_no_secrets(out.out + out.err)
