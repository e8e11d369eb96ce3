"""Top-level behaviour: --help, --version, unknown commands, and fast start."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

from osiris import __version__
from osiris.cli import COMMANDS
from tests.inprocess import run_inprocess
from tests.support import clean_env, run_osiris

SPEC_COMMANDS = ["chat", "generate", "validate", "run", "discover", "mcp", "components", "sessions", "state", "config",
                 "init", "auth"]


def test_help_lists_every_command(tmp_path: Path) -> None:
    result = run_osiris("--help", cwd=tmp_path)
    assert result.returncode == 0
    for name in SPEC_COMMANDS:
        assert f"    {name} " in result.stdout, name


def test_version(tmp_path: Path) -> None:
    result = run_osiris("--version", cwd=tmp_path)
    assert result.returncode == 0
    assert result.stdout.strip() == f"osiris {__version__}"


def test_no_command_prints_help_and_exits_2(tmp_path: Path) -> None:
    result = run_osiris(cwd=tmp_path)
    assert result.returncode == 2
    assert "COMMAND" in result.stderr


def test_unknown_command_is_a_usage_error(tmp_path: Path) -> None:
    result = run_osiris("frobnicate", cwd=tmp_path)
    assert result.returncode == 2
    assert "invalid choice: 'frobnicate'" in result.stderr


def test_every_command_has_help(tmp_path: Path) -> None:
    assert [c.name for c in COMMANDS] == SPEC_COMMANDS
    for name in SPEC_COMMANDS:
        result = run_osiris(name, "--help", cwd=tmp_path)
        assert result.returncode == 0, (name, result.stderr)
        assert f"osiris {name}" in result.stdout


def test_fast_commands_do_not_import_heavy_libraries(tmp_path: Path) -> None:
    """Valid settings are read without pydantic (ADR 0126): from a settings file, env and flags."""
    heavy = ("anthropic", "prompt_toolkit", "rich", "pydantic_settings", "pydantic")
    probe = (
        "import sys; from osiris.cli import main; "
        "code = main(sys.argv[1:]); "
        f"print([m for m in {heavy!r} if m in sys.modules])"
    )
    (tmp_path / "p.yaml").write_text("oml_version: '0.1.0'\n")
    (tmp_path / ".osiris.yaml").write_text(
        "llm:\n  provider: demo\n  timeout_seconds: 30\nvalidation:\n  dry_run: off\n  retry:\n    max_attempts: 3\n"
        "  rules:\n    - name: csv-only\n      expr: \"true\"\n      level: warning\n"
        "connections:\n  mysql:\n    default:\n      host: db\n      port: 3306\n      password: ${MYSQL_PASSWORD}\n")
    env = clean_env(OSIRIS_VALIDATE_RETRY_ATTEMPTS="4", OSIRIS_LLM__MAX_TOKENS="2048")
    for args in (["--help"], ["config", "show"], ["validate", "p.yaml"], ["config", "show", "--retry-attempts", "1"]):
        result = subprocess.run(
            [sys.executable, "-c", probe, *args],
            cwd=tmp_path, env=env, capture_output=True, text=True, timeout=60,
        )
        assert result.stdout.strip().splitlines()[-1] == "[]", (args, result.stdout, result.stderr)


def test_an_internal_error_says_where_in_one_line_and_never_its_text(tmp_path: Path, monkeypatch) -> None:
    import osiris.settings

    def broken(**kwargs: object) -> object:
        raise KeyError("sk-ant-api03-planted-Secret-0001")  # an exception whose text quotes a secret

    monkeypatch.setattr(osiris.settings, "load_settings", broken)
    done = run_inprocess("config", "show", cwd=tmp_path)
    assert (done.returncode, done.stdout) == (5, "")
    assert re.fullmatch(r"osiris: internal error: KeyError in osiris/commands/config\.py:\d+ "
                        r"\(a bug in Osiris; set OSIRIS_DEBUG=1 to see the traceback\)\n", done.stderr), done.stderr
    assert "planted" not in done.stderr


def test_a_process_ends_without_walking_its_objects_again():
    """At exit the objects still alive are frozen, so Python's last collections skip them (after
    `generate`, the anthropic SDK's models made that 0.3-0.7 s; bench/generate_start.py)."""
    probe = ("import atexit, gc, osiris.cli; before = gc.get_freeze_count(); atexit._run_exitfuncs(); "
             "print(before, gc.get_freeze_count() > 1000)")
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, env=clean_env(), timeout=60)
    assert done.stdout.split() == ["0", "True"], done.stderr
