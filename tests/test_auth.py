"""`osiris auth` with an in-memory keyring, and with keyring's fail backend."""

from __future__ import annotations

import io
import sys
from pathlib import Path

import keyring
import pytest
from keyring.backend import KeyringBackend
from keyring.errors import PasswordDeleteError

from osiris.cli import main
from tests.support import REPO, clean_env, run_osiris

KEY = "sk-ant-test-planted-0123456789abcdWXYZ"


class MemoryKeyring(KeyringBackend):
    priority = 1

    def __init__(self) -> None:
        self.store: dict[tuple[str, str], str] = {}

    def get_password(self, service: str, username: str) -> str | None:
        return self.store.get((service, username))

    def set_password(self, service: str, username: str, password: str) -> None:
        self.store[(service, username)] = password

    def delete_password(self, service: str, username: str) -> None:
        if self.store.pop((service, username), None) is None:
            raise PasswordDeleteError("not found")


@pytest.fixture
def memory_keyring(monkeypatch: pytest.MonkeyPatch):
    previous = keyring.get_keyring()
    backend = MemoryKeyring()
    keyring.set_keyring(backend)
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    yield backend
    keyring.set_keyring(previous)


def test_login_status_logout(memory_keyring, monkeypatch, capsys) -> None:
    monkeypatch.setattr(sys, "stdin", io.StringIO(KEY + "\n"))
    assert main(["auth", "login"]) == 0
    assert memory_keyring.store[("osiris", "anthropic-api-key")] == KEY

    assert main(["auth", "status"]) == 0
    out = capsys.readouterr()
    assert "WXYZ" in out.out and "keyring" in out.out
    assert KEY not in out.out + out.err
    assert KEY[:-4] not in out.out + out.err

    assert main(["auth", "logout"]) == 0
    assert memory_keyring.store == {}
    assert main(["auth", "status"]) == 3
    assert "ANTHROPIC_API_KEY" in capsys.readouterr().err


def test_env_key_wins_over_keyring(memory_keyring, monkeypatch, capsys) -> None:
    memory_keyring.set_password("osiris", "anthropic-api-key", "sk-from-keyring-AAAA")
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-from-env-BBBB")
    assert main(["auth", "status"]) == 0
    assert "BBBB from env ANTHROPIC_API_KEY" in capsys.readouterr().out


def test_empty_login_saves_nothing(memory_keyring, monkeypatch, capsys) -> None:
    monkeypatch.setattr(sys, "stdin", io.StringIO("\n"))
    assert main(["auth", "login"]) == 2
    assert memory_keyring.store == {}


def test_logout_without_key(memory_keyring, capsys) -> None:
    assert main(["auth", "logout"]) == 0
    assert "No API key" in capsys.readouterr().err


@pytest.mark.parametrize("action", ["login", "logout"])
def test_fail_backend_points_to_env_var(tmp_path: Path, action: str) -> None:
    result = run_osiris("auth", action, cwd=tmp_path, env=clean_env(), input=KEY + "\n")
    assert result.returncode == 2
    assert result.stderr.count("\n") == 1
    assert "no usable system keyring" in result.stderr
    assert "ANTHROPIC_API_KEY" in result.stderr
    assert "Traceback" not in result.stderr
    assert KEY not in result.stdout + result.stderr
    assert not list(tmp_path.iterdir()), "no plaintext fallback file may be written"


def test_status_with_fail_backend_and_no_env(tmp_path: Path) -> None:
    result = run_osiris("auth", "status", cwd=tmp_path)
    assert result.returncode == 3
    assert "ANTHROPIC_API_KEY" in result.stderr and "osiris auth login" in result.stderr


def test_login_does_not_echo_the_key(tmp_path: Path) -> None:
    pexpect = pytest.importorskip("pexpect")
    # A working (in-memory) keyring in the child: since issue 11 item 8, login checks the backend
    # before asking, so the fail backend would never show the prompt.
    env = clean_env(PYTHON_KEYRING_BACKEND="tests.test_auth.MemoryKeyring", PYTHONPATH=str(REPO))
    child = pexpect.spawn(
        sys.executable, ["-m", "osiris", "auth", "login"], cwd=str(tmp_path),
        env=env, encoding="utf-8", timeout=30,
    )
    child.expect("input hidden")
    child.sendline(KEY)
    child.expect(pexpect.EOF)
    child.close()
    assert KEY not in child.before
    assert child.exitstatus == 0


OPENAI_KEY = "sk-proj-test-planted-9876543210zyxwQRST"


def test_openai_key_has_its_own_keyring_entry_and_a_run_finds_it(memory_keyring, monkeypatch, capsys) -> None:
    from osiris.llm.credentials import openai_api_key

    memory_keyring.set_password("osiris", "anthropic-api-key", KEY)
    monkeypatch.setattr(sys, "stdin", io.StringIO(OPENAI_KEY + "\n"))
    assert main(["auth", "login", "--provider", "openai"]) == 0
    assert memory_keyring.store[("osiris", "openai-api-key")] == OPENAI_KEY
    assert memory_keyring.store[("osiris", "anthropic-api-key")] == KEY  # untouched
    assert "Saved the OpenAI API key (…QRST)" in capsys.readouterr().err

    assert openai_api_key({}, "https://llm.example.com/v1") == OPENAI_KEY  # what `generate` sends
    assert main(["auth", "status", "--provider", "openai"]) == 0
    assert "API key …QRST from keyring" in capsys.readouterr().out

    assert main(["auth", "logout", "--provider", "openai"]) == 0
    assert memory_keyring.store == {("osiris", "anthropic-api-key"): KEY}
    assert main(["auth", "status", "--provider", "openai"]) == 3
    assert "OPENAI_API_KEY" in capsys.readouterr().err


def test_openai_login_with_fail_backend_points_to_its_variable(tmp_path: Path) -> None:
    result = run_osiris("auth", "login", "--provider", "openai", cwd=tmp_path, env=clean_env(), input=OPENAI_KEY + "\n")
    assert result.returncode == 2
    assert "no usable system keyring" in result.stderr and "export OPENAI_API_KEY=..." in result.stderr
    assert OPENAI_KEY not in result.stdout + result.stderr
    assert not list(tmp_path.iterdir())
