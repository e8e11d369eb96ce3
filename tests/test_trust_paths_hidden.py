"""Issue 42, items 3, 4 and 8 (docs/security.md, "Files"): hidden paths are out of reach, and a folder
swapped for a link between the check and the write redirects nothing.

Each pipeline runs through the real CLI in this process (`osiris run`, `--sample`: validation says
OML317) and straight on the DuckDB engine (`run_pipeline`, validation skipped: the runtime says
OML517). Every target is a file this test planted under its own temporary directory. The Spark
engine's share is in tests/test_spark_trust_paths.py.
"""

from __future__ import annotations

import os
import shutil
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

from osiris.run.display import Listeners
from osiris.run.duckdb_run import RunOptions, RunResult, run_pipeline
from osiris.trust.paths import static_breach
from tests.conftest import TEST_API_KEY
from tests.fake_anthropic import Reply
from tests.inprocess import run_inprocess
from tests.run_helpers import csv_step
from tests.sample_project import last_user_message
from tests.support import clean_env

GIT_CONFIG = "[core]\n\trepositoryformatversion = 0\n"
DOTENV = "AWS_SECRET_ACCESS_KEY=planted-Dotenv-7c21\nDOTENV_SECRET_NAME=x\n"
HOOK = "fsmonitor = touch pwned"  # what the rows of the attack in item 3 form


class Project:
    """A project with a `.git/config`, a `.env` and data; `outside/` beside it holds nothing yet."""

    def __init__(self, root: Path, llm_url: str | None = None) -> None:
        self.root, self.outside = root / "project", root / "outside"
        (self.root / "data").mkdir(parents=True)
        (self.root / ".git").mkdir()
        self.outside.mkdir()
        (self.root / ".git" / "config").write_text(GIT_CONFIG)
        (self.root / ".env").write_text(DOTENV)
        (self.root / "data" / "rows.csv").write_text(f"[core]\n{HOOK}\n")
        llm = {"llm": {"base_url": llm_url, "timeout_seconds": 10}} if llm_url else {}
        (self.root / ".osiris.yaml").write_text(yaml.safe_dump({"connections": {}, **llm}))
        self.env = clean_env(HOME=str(self.outside), ANTHROPIC_API_KEY=TEST_API_KEY)

    def pipeline(self, *steps: dict[str, Any]) -> Path:
        path = self.root / "attack.yaml"
        path.write_text(yaml.safe_dump({"oml_version": "0.1.0", "name": "attack", "steps": list(steps)},
                                       sort_keys=False))
        return path

    def osiris(self, *args: str) -> Any:
        return run_inprocess(*args, cwd=self.root, env=self.env)

    def engine(self, *steps: dict[str, Any], sample: int | None = None) -> RunResult:
        options = RunOptions(connections={}, env=self.env, base_dir=self.root, sample=sample)
        return run_pipeline({"steps": list(steps)}, options, Listeners())


@pytest.fixture
def project(tmp_path: Path) -> Project:
    return Project(tmp_path)


def problem(result: RunResult) -> tuple[str, str]:
    [failed] = [step.problem for step in result.steps if step.problem is not None]
    return failed.code, failed.message


def copy_rows(target: str) -> tuple[dict[str, Any], dict[str, Any]]:
    read = csv_step("read-rows", "read", "data/rows.csv", header=False, delimiter="|")
    return read, {**csv_step("write-rows", "write", target, header=False), "needs": ["read-rows"]}


@pytest.mark.parametrize("path, hidden", [
    (".git/config", ".git"), (".env", ".env"), (".github/workflows/x.yml", ".github"), ("sub/.x.csv", ".x.csv"),
    ("data/.cache/x.csv", ".cache"), ("./.gitignore", ".gitignore"), ("data\\.ssh\\keys", ".ssh"),
])
def test_a_path_with_a_hidden_component_is_out_of_reach(path, hidden):
    assert static_breach(path) == f"has a hidden component '{hidden}' (names starting with '.' are out of reach)"


@pytest.mark.parametrize("path, reason", [
    ("x" * 256 + ".csv", "has a name longer than 255 bytes"), ("data/a\x1b]52;c;x\x07.csv", "holds a control character"),
])
def test_a_path_component_must_be_a_plain_name(path, reason):
    assert static_breach(path) == reason


@pytest.mark.parametrize("path", ["data/rows.csv", "./data/rows.csv", "out/x.csv", "a..b/c.d.csv", "data/x."])
def test_a_plain_visible_path_stays_allowed(path):
    assert static_breach(path) is None


@pytest.mark.parametrize("target, hidden", [
    (".git/config", ".git"), (".github/workflows/ci.yml", ".github"), ("sub/.x.csv", ".x.csv"), (".env", ".env"),
])
def test_a_writer_cannot_write_a_hidden_file(project, target, hidden):
    """Item 3: rows forming `[core] fsmonitor = <command>` written to .git/config would run the
    command at the next `git status`. Refused at validation (full and sample run) and at run time."""
    path = project.pipeline(*copy_rows(target))
    why = f"has a hidden component '{hidden}' (names starting with '.' are out of reach)"
    for sample in ([], ["--sample", "2"]):
        done = project.osiris("run", str(path), *sample)
        assert done.returncode == 1, done.stderr
        assert f"OML317 path '{target}' {why}: files stay inside the project" in done.stderr
    for sample in (None, 2):
        assert problem(project.engine(*copy_rows(target), sample=sample)) == (
            "OML517", f"path '{target}' {why}: files stay inside the project")
    assert (project.root / ".git" / "config").read_text() == GIT_CONFIG
    assert HOOK not in "".join(p.read_text(errors="replace") for p in project.root.rglob("*")
                               if p.is_file() and p.name != "rows.csv" and ".osiris" not in p.parts)


def test_a_harmless_twin_of_the_write_still_runs(project):
    path = project.pipeline(*copy_rows("out/config"))
    done = project.osiris("run", str(path))
    assert done.returncode == 0, done.stderr
    assert (project.root / "out" / "config").read_text() == f"[core]\n{HOOK}\n"


@pytest.mark.parametrize("source", [".env", "./.env", "data/../.env", ".git/config"])
def test_a_reader_cannot_read_a_hidden_file(project, source):
    """Item 4: `.env` read with `delimiter: "="` would give its variable names as column names (to the
    retry request, the terminal and MCP run_sample). Refused at validation and at run time; no
    name of the file is printed anywhere."""
    read = csv_step("read-env", "read", source, delimiter="=", header=True)
    path = project.pipeline(read)
    for sample in ([], ["--sample", "2"]):
        done = project.osiris("run", str(path), *sample)
        assert done.returncode == 1, done.stderr
        assert "OML317 path" in done.stderr
        assert "AWS_SECRET" not in done.stdout + done.stderr and "planted-Dotenv" not in done.stdout + done.stderr
    for sample in (None, 2):
        code, message = problem(project.engine(read, sample=sample))
        assert code == "OML517" and "AWS_SECRET" not in message, message
    assert not any("AWS_SECRET" in p.read_text(errors="replace")
                   for p in (project.root / ".osiris").rglob("*") if p.is_file())


def test_a_dotenv_reading_answer_sends_the_llm_nothing_of_it(tmp_path, fake_api):
    """Item 4 as found: an LLM answer reading `.env` got `columns the database knows:
    AWS_SECRET_ACCESS_KEY, ...` in the dry run's retry request. Now the retry request says OML317."""
    project = Project(tmp_path, llm_url=fake_api.url)
    env_read = csv_step("read-env", "read", ".env", delimiter="=")
    fake_api.add(answer(env_read, {"id": "pick", "component": "duckdb.processor", "mode": "transform",
                                   "needs": ["read-env"], "config": {"query": "SELECT * FROM df_read_env"}}),
                 answer(*copy_rows("out/rows.csv")))
    done = project.osiris("generate", "read my settings", "--dry-run")
    assert done.returncode == 0, done.stderr
    assert len(fake_api.requests) == 2
    assert "OML317 /steps/0/config/path" in last_user_message(fake_api.requests[1])
    for shown in (*fake_api.bodies, done.stdout, done.stderr):
        assert "AWS_SECRET" not in shown and "DOTENV_SECRET" not in shown and "planted-Dotenv" not in shown


def answer(*steps: dict[str, Any]) -> Reply:
    text = yaml.safe_dump({"oml_version": "0.1.0", "name": "env", "steps": list(steps)}, sort_keys=False)
    return Reply(f"Here is the pipeline:\n\n```yaml\n{text}```\n")


def test_a_link_inside_the_project_is_not_followed_either(project):
    """Allow by list: a path passes through no symbolic link at all, even one that stays inside."""
    (project.root / "data" / "alias.csv").symlink_to(project.root / ".env")
    (project.root / "data" / "same.csv").symlink_to(project.root / "data" / "rows.csv")
    for source in ("data/alias.csv", "data/same.csv"):
        code, message = problem(project.engine(csv_step("read", "read", source, delimiter="=")))
        assert (code, message) == ("OML517", f"path '{source}' passes through a symbolic link ({source}); "
                                             "Osiris reads and writes no file through links: files stay inside "
                                             "the project"), message


def swap(folder: Path, outside: Path) -> None:
    """`folder` becomes a link to `outside`; the real folder is kept beside it, inside the project."""
    folder.rename(folder.with_name(folder.name + "-real"))
    folder.symlink_to(outside)


def test_a_folder_swapped_for_a_link_after_the_check_redirects_no_write(project, monkeypatch):
    """Item 8, the moment made certain: the swap happens right after the target was checked (when
    the driver asks where DuckDB should write), before the file is placed."""
    from osiris.run.drivers import filesystem

    (project.root / "out").mkdir()
    checked = filesystem.output_file

    def swapped_after_the_check(scratch: Path, target: Path) -> Path:
        swap(project.root / "out", project.outside)
        return checked(scratch, target)

    monkeypatch.setattr(filesystem, "output_file", swapped_after_the_check)
    code, message = problem(project.engine(*copy_rows("out/x.csv")))
    assert code == "OML517" and message.startswith("path 'out/x.csv' passes through a symbolic link (out)"), message
    assert list(project.outside.iterdir()) == []


def test_a_source_swapped_for_a_link_after_the_check_is_not_read(project, monkeypatch):
    from osiris.run.drivers import filesystem

    (project.outside / "rows.csv").write_text("planted-Outside-3e1\n")
    existing = filesystem._existing

    def swapped_after_the_check(path: Path, shown: str, files: Any) -> Path:
        found = existing(path, shown, files)
        swap(project.root / "data", project.outside)
        return found

    monkeypatch.setattr(filesystem, "_existing", swapped_after_the_check)
    result = project.engine(csv_step("read-rows", "read", "data/rows.csv", header=False, delimiter="|"), sample=5)
    code, message = problem(result)
    assert code == "OML517" and "passes through a symbolic link (data)" in message
    assert "planted-Outside" not in repr(result)


class Swapper:
    """Another process's work, in a thread: swaps the project's `out` folder for a link to `outside`
    and back, as fast as it can, until stopped."""

    def __init__(self, folder: Path, outside: Path) -> None:
        self.folder, self.outside = folder, outside
        self.stop = threading.Event()
        self.swaps = 0
        self.thread = threading.Thread(target=self._loop, daemon=True)

    def _loop(self) -> None:
        real = self.folder.with_name("out-real")
        while not self.stop.is_set():
            try:
                self.folder.rename(real)
                self.folder.symlink_to(self.outside)
                self.folder.unlink()
                real.rename(self.folder)
                self.swaps += 1
            except OSError:  # a run made `out` meanwhile: put the real folder back
                if self.folder.is_symlink():
                    self.folder.unlink()
                if real.exists():
                    shutil.rmtree(self.folder, ignore_errors=True)
                    real.rename(self.folder)

    def __enter__(self) -> Swapper:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop.set()
        self.thread.join(timeout=10)


@pytest.fixture
def racing(project: Project) -> Iterator[Project]:
    (project.root / "out").mkdir()
    yield project
    if (project.root / "out").is_symlink():
        (project.root / "out").unlink()
    shutil.rmtree(project.root / "out-real", ignore_errors=True)


def test_a_concurrent_swapper_lands_no_file_outside(racing):
    """Item 8 as the attack ran it: another process swaps a folder of the project for a link to
    outside in a loop while runs write into it. Each run writes its file inside the project or is
    refused (OML517); across RUNS runs, no file lands outside."""
    runs, outcomes = 40, []
    with Swapper(racing.root / "out", racing.outside) as swapper:
        for _ in range(runs):
            result = racing.engine(*copy_rows("out/x.csv"))
            outcomes.append(result.steps[-1].problem.code if result.steps[-1].problem else "ok")
            assert list(racing.outside.iterdir()) == []
    assert swapper.swaps > runs  # the swapper really raced the runs
    assert set(outcomes) <= {"ok", "OML517", "OML510"}, outcomes
    assert os.listdir(racing.outside) == []
