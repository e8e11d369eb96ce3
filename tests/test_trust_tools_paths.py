"""Issue 42 through the MCP tools (docs/mcp.md, "What the tools may touch"): any path error is a tool
error that says what is wrong (item 9), never "internal error: OSError"; a pipeline reading `.env`
gives `run_sample` no name of it (item 4); `run` cannot write `.git/config` (item 3).

The SDK's own client talks to the server object in this process (tests/mcp_client.py).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

from osiris.mcp.project import Project
from osiris.mcp.server import build_server, open_trail
from tests.mcp_client import McpServer

DOTENV = "AWS_SECRET_ACCESS_KEY=planted-Dotenv-7c21\nDOTENV_SECRET_NAME=x\n"
GIT_CONFIG = "[core]\n\trepositoryformatversion = 0\n"
PIPELINE = {"oml_version": "0.1.0", "name": "copy", "steps": [
    {"id": "read-rows", "component": "filesystem.csv_extractor", "mode": "read", "config": {"path": "rows.csv"}},
    {"id": "write-rows", "component": "filesystem.csv_writer", "mode": "write", "needs": ["read-rows"],
     "config": {"path": "out/rows.csv"}}]}


def oml(**write: Any) -> str:
    steps = [PIPELINE["steps"][0], {**PIPELINE["steps"][1], "config": {**PIPELINE["steps"][1]["config"], **write}}]
    return yaml.safe_dump({**PIPELINE, "steps": steps}, sort_keys=False)


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root, outside = tmp_path / "project", tmp_path / "outside"
    (root / ".git").mkdir(parents=True)
    outside.mkdir()
    (root / ".git" / "config").write_text(GIT_CONFIG)
    (root / ".env").write_text(DOTENV)
    (root / "rows.csv").write_text("[core]\nfsmonitor = touch pwned\n")
    (root / ".osiris.yaml").write_text(yaml.safe_dump({}))
    (root / "adir.yaml").mkdir()
    (root / "afile").write_text("not a folder")
    (root / "lnk").symlink_to(outside)
    return root


@pytest.fixture
def server(project: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[McpServer]:
    monkeypatch.chdir(project)
    loaded = Project.load()
    served = McpServer.inprocess(build_server(loaded, open_trail(loaded), allow_run=True))
    yield served
    served.close()


LONG = "x" * 296 + ".yaml"
DEEP = "/".join(["d" * 250] * 20) + "/p.yaml"  # each name fits, the whole path does not (PATH_MAX)


@pytest.mark.parametrize("path, said", [
    (LONG, f"oml_save: '{LONG[:77]}...' has a name longer than 255 bytes; give a plain relative path, "
           "e.g. pipelines/orders.yaml"),
    (DEEP, f"oml_save: '{DEEP[:77]}...' cannot be used: file name too long"),
    ("adir.yaml", "oml_save: cannot save to 'adir.yaml': it is a directory; give a file path such as "),
    ("afile/p.yaml", "oml_save: cannot save to 'afile/p.yaml': "),
    (".github/workflows/p.yaml", "oml_save: '.github/workflows/p.yaml' is hidden or inside a hidden folder"),
    ("lnk/p.yaml", "oml_save: 'lnk/p.yaml' passes through a symbolic link (lnk); Osiris does not read or write "
                   "through links"),
    ("pipe\x1b]0;t\x07.yaml", "oml_save: 'pipe\x1b]0;t\x07.yaml' holds a control character; "),
])
def test_a_path_error_in_oml_save_is_a_tool_error_that_says_what_is_wrong(server, project, path, said):
    """Item 9: a 300-character name, a path too long, a directory, a parent that is a file, a hidden
    folder, a link, a control character: each a tool error naming the problem; nothing written."""
    before = sorted(p.relative_to(project) for p in project.rglob("*") if ".osiris" not in p.parts)
    done = server.call("oml_save", {"oml": oml(), "path": path})
    assert done.error and done.text.startswith(said), done.text
    assert "internal error" not in done.text and "Errno" not in done.text
    assert sorted(p.relative_to(project) for p in project.rglob("*") if ".osiris" not in p.parts) == before
    assert list((project.parent / "outside").iterdir()) == []


def test_missing_folders_of_a_saved_pipeline_are_made(server, project):
    done = server.call("oml_save", {"oml": oml(), "path": "pipelines/new/p.yaml"})
    assert done.data["saved"] is True and (project / "pipelines" / "new" / "p.yaml").is_file()


def test_run_sample_of_a_pipeline_reading_dotenv_returns_no_name_of_it(server):
    """Item 4: `.env` read with `delimiter: "="` would give AWS_SECRET_ACCESS_KEY as a column name."""
    hostile = yaml.safe_dump({"oml_version": "0.1.0", "name": "env", "steps": [
        {"id": "read-env", "component": "filesystem.csv_extractor", "mode": "read",
         "config": {"path": ".env", "delimiter": "="}}]}, sort_keys=False)
    done = server.call("run_sample", {"oml": hostile, "rows": 5})
    assert "OML317" in done.text and "has a hidden component '.env'" in done.text, done.text
    assert "AWS_SECRET" not in done.text and "DOTENV" not in done.text and "planted-Dotenv" not in done.text


def test_run_cannot_write_git_config(server, project):
    """Item 3 through MCP `run` (--allow-run)."""
    done = server.call("run", {"oml": oml(path=".git/config", header=False)})
    assert "OML317" in done.text and "has a hidden component '.git'" in done.text, done.text
    assert (project / ".git" / "config").read_text() == GIT_CONFIG


def test_discovery_of_a_file_whose_folder_is_swapped_after_the_check_reads_nothing_outside(server, project,
                                                                                          monkeypatch):
    """Item 8 for `discovery_request`'s file: the folder becomes a link to outside right after the
    check; the file is read through handles that refuse links, so no name of the outside file comes back."""
    from osiris.mcp import paths

    (project / "data").mkdir()
    (project / "data" / "people.csv").write_text("id,name\n1,Ann\n")
    outside = project.parent / "outside"
    (outside / "people.csv").write_text("planted_outside_column\n1\n")
    checked = paths.project_csv

    def swapped_after_the_check(root: Path, given: str, settings_file: Path | None = None) -> Path:
        found = checked(root, given, settings_file)
        (project / "data").rename(project / "data-real")
        (project / "data").symlink_to(outside)
        return found

    monkeypatch.setattr(paths, "project_csv", swapped_after_the_check)
    done = server.call("discovery_request", {"file": "data/people.csv"})
    assert done.error and "passes through a symbolic link (data)" in done.text, done.text
    assert "planted_outside_column" not in done.text
    assert not (project / ".osiris" / "catalog" / "csv.people.json").exists()
    monkeypatch.setattr(paths, "project_csv", checked)
    (project / "data").unlink()
    (project / "data-real").rename(project / "data")
    found = server.call("discovery_request", {"file": "data/people.csv"}).data
    assert [c["name"] for c in found["tables"]["people"]["columns"]] == ["id", "name"]


def test_a_pipeline_file_that_cannot_be_read_is_a_tool_error(server, project):
    """Any path error in a tool: a file run_sample cannot read says so, never an internal error."""
    (project / "locked.yaml").mkdir()  # not a file
    assert server.call("run_sample", {"path": "locked.yaml"}).text == (
        "run_sample: 'locked.yaml' is not a file in the project")
    assert server.call("run_sample", {"path": LONG}).text.startswith(
        f"run_sample: '{LONG[:77]}...' has a name longer than 255 bytes")
