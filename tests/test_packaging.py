"""The built wheel carries the built-in component specs and the `osiris init` templates."""

from __future__ import annotations

import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

from tests.support import REPO, clean_env


def test_wheel_ships_components_and_templates(tmp_path: Path) -> None:
    source = tmp_path / "source"  # a clean copy: no stale build/ from earlier builds
    shutil.copytree(
        REPO, source, symlinks=True,
        ignore=shutil.ignore_patterns(".venv", ".git", "build", "*.egg-info", "__pycache__", ".*cache"),
    )
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "-q",
         "-w", str(tmp_path / "dist"), str(source)],
        check=True, capture_output=True, timeout=300,
    )
    wheel = next((tmp_path / "dist").glob("*.whl"))
    with zipfile.ZipFile(wheel) as archive:
        archive.extractall(tmp_path / "site")
    shipped = {spec.parent.name for spec in (tmp_path / "site/osiris/_components").glob("*/spec.yaml")}
    in_repo = {spec.parent.name for spec in (REPO / "components").glob("*/spec.yaml")}
    assert shipped == in_repo and "mysql.extractor" in shipped

    project = tmp_path / "elsewhere"
    project.mkdir()
    env = clean_env(PYTHONPATH=str(tmp_path / "site"))
    listed = subprocess.run(
        [sys.executable, "-I", "-c",
         f"import sys; sys.path.insert(0, {str(tmp_path / 'site')!r}); "
         "from osiris.cli import main; sys.exit(main(['components', 'list']))"],
        cwd=project, env=env, capture_output=True, text=True, timeout=60,
    )
    assert listed.returncode == 0, listed.stderr
    assert "mysql.extractor" in listed.stdout
    assert str(REPO) not in listed.stdout + listed.stderr
