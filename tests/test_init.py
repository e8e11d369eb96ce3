"""`osiris init` writes the project layout and never overwrites without --force."""

from __future__ import annotations

from pathlib import Path

from tests.support import REPO
from tests.inprocess import run_inprocess as run_osiris  # in-process: tests/inprocess.py


def test_init_writes_settings_and_components(tmp_path: Path) -> None:
    result = run_osiris("init", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert (tmp_path / ".osiris.yaml").is_file()
    assert (tmp_path / "components" / "README.md").is_file()
    shown = run_osiris("config", "show", cwd=tmp_path)
    assert shown.returncode == 0, shown.stderr
    assert str(tmp_path / ".osiris.yaml") in shown.stdout


def test_init_twice_keeps_edited_files(tmp_path: Path) -> None:
    run_osiris("init", cwd=tmp_path)
    settings = tmp_path / ".osiris.yaml"
    settings.write_text("llm:\n  provider: demo\n")
    result = run_osiris("init", cwd=tmp_path)
    assert result.returncode == 0
    assert settings.read_text() == "llm:\n  provider: demo\n"
    assert "kept" in result.stderr and "--force" in result.stderr


def test_init_force_overwrites(tmp_path: Path) -> None:
    run_osiris("init", cwd=tmp_path)
    settings = tmp_path / ".osiris.yaml"
    settings.write_text("llm:\n  provider: demo\n")
    result = run_osiris("init", "--force", cwd=tmp_path)
    assert result.returncode == 0
    assert "max_attempts: 2" in settings.read_text()


def test_repository_sample_matches_the_template() -> None:
    template = REPO / "osiris" / "templates" / "osiris.yaml"
    assert (REPO / ".osiris.yaml").read_text() == template.read_text()
