"""Issue 11 items 16-18: rough edges, docs that match behaviour, and `make chat` when the demo is declined."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from tests.conftest import cli_env
from tests.support import REPO
from tests.conftest import osiris_here as run_osiris  # in-process: tests/inprocess.py


def test_components_show_prints_yaml_words_not_python_reprs(tmp_path: Path):
    done = run_osiris("components", "show", "mysql.extractor", cwd=tmp_path, env=cli_env())

    assert done.returncode == 0, done.stderr
    assert "  echo: boolean (default false)  [no effect]" in done.stdout.splitlines()  # OML321's mark
    assert ("Constraint: when query is not given, table must have length >= 1: "
            "Either 'table' or 'query' must be specified") in done.stdout.splitlines()
    assert "None" not in done.stdout and "False" not in done.stdout and "{'" not in done.stdout


def test_components_show_of_a_family_suggests_its_components(tmp_path: Path):
    done = run_osiris("components", "show", "mysql", cwd=tmp_path, env=cli_env())

    assert (done.returncode, done.stderr) == (2, (
        "osiris: error: unknown component 'mysql' (did you mean 'mysql.extractor' or 'mysql.writer'?); "
        "see 'osiris components list'\n"))


def test_components_validate_lists_every_meta_schema_problem(tmp_path: Path):
    broken = tmp_path / "components" / "broken"
    broken.mkdir(parents=True)
    (broken / "spec.yaml").write_text("name: broken.one\nversion: 1.0.0\nmodes: [fly]\n")

    done = run_osiris("components", "validate", cwd=tmp_path, env=cli_env())

    [line] = [line for line in done.stderr.splitlines() if "broken" in line]
    assert done.returncode == 1 and "more)" not in line
    assert line.count("; at /") >= 2  # each problem is named, none hidden behind "(and N more)"


def test_config_show_columns_stay_aligned_for_long_values(tmp_path: Path):
    long_dir = "/tmp/" + "x" * 70
    done = run_osiris("config", "show", cwd=tmp_path, env=cli_env(OSIRIS_SESSIONS__DIR=long_dir))

    rows = done.stdout.splitlines()[1:]
    source_columns = {row.rindex("  ") for row in rows if row.endswith(("default", "OSIRIS_SESSIONS__DIR"))}
    assert done.returncode == 0 and len(source_columns) == 1


def _wait_until_reading_stdin(pid: int, limit: float = 30.0) -> None:
    """Until the process is blocked in read(2) on fd 0 (Linux: /proc/PID/syscall starts "0 0x0")."""
    import time

    deadline = time.monotonic() + limit
    while time.monotonic() < deadline:
        try:
            fields = Path(f"/proc/{pid}/syscall").read_text().split()
        except OSError:
            fields = []
        if fields[:2] == ["0", "0x0"]:
            return
        time.sleep(0.05)
    raise AssertionError(f"process {pid} never blocked reading standard input")


def test_ctrl_c_ends_with_a_line_break_after_the_echoed_interrupt(tmp_path: Path):
    pexpect = pytest.importorskip("pexpect")
    child = pexpect.spawn(sys.executable, ["-m", "osiris", "generate", "-"], cwd=str(tmp_path),
                          env=cli_env(), encoding="utf-8", timeout=30)
    child.send("x")
    child.expect_exact("x")
    _wait_until_reading_stdin(child.pid)  # the terminal echoes before Python has started reading
    child.sendintr()
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 130
    assert "\r\nosiris: interrupted" in child.before


def test_docs_list_the_chat_status_and_the_new_stop_reasons():
    sessions = (REPO / "docs" / "sessions.md").read_text()
    for word in ("| `ended` |", "| `output_failed` |", "`strict`", "`edited_invalid`",
                 "in chat you declined to save it"):
        assert word in sessions
    assert "(400, 404)" in (REPO / "README.md").read_text()


def test_make_chat_with_the_demo_declined_ends_kindly(tmp_path: Path):
    pexpect = pytest.importorskip("pexpect")
    venv = Path(sys.executable).parent.parent
    env = cli_env()
    env.update({"PROMPT_TOOLKIT_NO_CPR": "1", "TERM": "xterm"})
    child = pexpect.spawn("make", ["-s", "-C", str(REPO), "-o", f"{venv}/.installed", f"VENV={venv}", "chat"],
                          env=env, encoding="utf-8", timeout=60)
    child.expect_exact("Use the demo provider now? [y/N]")
    child.sendline("n")
    child.expect(pexpect.EOF)
    child.close()

    assert child.exitstatus == 0
    assert "make chat: no API key yet. Set one with: export ANTHROPIC_API_KEY=sk-ant-..." in child.before
    assert "Error 3" not in child.before
