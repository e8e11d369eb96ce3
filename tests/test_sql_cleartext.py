"""PostgreSQL and MySQL connections never send a password in cleartext to a server that asks for
one over an unencrypted link (docs/errors.md, OML520). The servers are hostile stubs on 127.0.0.1
(tests/servers/cleartext.py) that record every byte they receive; the last test proves that they
do see a password when a client sends one."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from tests.inprocess import run_inprocess
from tests.servers.cleartext import CleartextStub
from tests.support import clean_env

PASSWORD = "cleartext-Secret-5521"  # planted: it must reach neither the stub nor any output


def run_read(root: Path, family: str, port: int) -> tuple[Path, object]:
    root.mkdir(parents=True, exist_ok=True)
    connection = {"host": "127.0.0.1", "port": port, "user": "osiris", "password": "${CLEAR_PASSWORD}",
                  "database": "shop"}
    (root / ".osiris.yaml").write_text(yaml.safe_dump({"connections": {family: {"default": connection}}}))
    pipeline = root / "read.yaml"
    pipeline.write_text(yaml.safe_dump({"oml_version": "0.1.0", "name": "read", "steps": [
        {"id": "read", "component": f"{family}.extractor", "mode": "read",
         "config": {"connection": f"@{family}.default", "table": "customers"}}]}, sort_keys=False))
    result = run_inprocess("run", str(pipeline), cwd=root, env=clean_env(CLEAR_PASSWORD=PASSWORD))
    return pipeline, result


@pytest.mark.parametrize("family, plugin", [("postgres", ""), ("mysql", "mysql_clear_password"),
                                            ("mysql", "dialog")])
def test_a_server_asking_for_a_cleartext_password_gets_none(tmp_path, family, plugin):
    with CleartextStub(family, plugin or "mysql_clear_password") as stub:
        path, result = run_read(tmp_path / "project", family, stub.port)
    assert result.returncode == 6, result.stderr
    assert (f"{path} OML520 step 'read': {family} at 127.0.0.1:{stub.port} asked for the password in cleartext "
            "over an unencrypted connection; Osiris did not send it\n") in result.stderr
    assert stub.connections >= 1 and stub.received  # the request was made and answered
    assert PASSWORD.encode() not in stub.received
    assert PASSWORD not in result.stdout + result.stderr
    assert "Traceback" not in result.stderr


def test_discover_refuses_it_too(tmp_path):
    with CleartextStub("postgres") as stub:
        root = tmp_path / "project"
        run_read(root, "postgres", stub.port)
        result = run_inprocess("discover", "@postgres.default", cwd=root, env=clean_env(CLEAR_PASSWORD=PASSWORD))
    assert result.returncode == 6
    assert result.stderr.startswith(f"osiris: error: cannot discover @postgres.default: postgres at 127.0.0.1:{stub.port} "
                                    "asked for the password in cleartext over an unencrypted connection")
    assert PASSWORD.encode() not in stub.received


def test_the_stubs_see_a_password_that_a_client_sends():
    """Without Osiris's refusal, libpq and PyMySQL send the password as it is: the stubs record it."""
    import psycopg
    import pymysql

    with CleartextStub("postgres") as stub, pytest.raises(psycopg.OperationalError):
        psycopg.connect(host="127.0.0.1", port=stub.port, user="osiris", password=PASSWORD, dbname="shop",
                        connect_timeout=5)
    assert PASSWORD.encode() in stub.received
    with CleartextStub("mysql") as stub, pytest.raises(pymysql.MySQLError):
        pymysql.connect(host="127.0.0.1", port=stub.port, user="osiris", password=PASSWORD, database="shop",
                        connect_timeout=5)
    assert PASSWORD.encode() in stub.received
