"""`osiris discover` of a CSV file whose header names a column twice (`id,name,id`) says what a run
of the file says (OML540's text, one rule: osiris.problems.repeated_header), never DuckDB's renamed
`id_1` as if it were a column of the file: `discover FILE.csv`, `discover @filesystem.alias FILE`
and MCP's `discovery_request`, each with a real file."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.inprocess import run_inprocess
from tests.support import clean_env
from tests.test_discover import discover

SAID = ("the header of twin.csv names two columns 'id' (column names ignore case) (give each column its own "
        "name in the file's header, or read it with header: false (columns column0, column1, ...); nothing was read)")


@pytest.fixture
def root(tmp_path: Path) -> Path:
    project = tmp_path / "project"
    project.mkdir()
    (project / ".osiris.yaml").write_text(yaml.safe_dump({"connections": {"filesystem": {"local": {"base_dir": "."}}}}))
    (project / "twin.csv").write_text("id,name,id\n1,Ann,2\n3,Bob,4\n")
    return project


@pytest.mark.parametrize("args, said", [
    (("twin.csv",), f"osiris: error: {SAID}"),
    (("twin.csv", "--json"), f"osiris: error: {SAID}"),
    (("@filesystem.local", "twin.csv"), f"osiris: error: cannot discover @filesystem.local: {SAID}"),
])
def test_discover_says_the_header_repeats_a_name_and_exits_6(root: Path, args: tuple[str, ...], said: str) -> None:
    done = discover(root, *args)
    assert (done.returncode, done.stdout, done.stderr) == (6, "", said + "\n")
    assert "id_1" not in done.stdout + done.stderr
    assert not (root / ".osiris" / "catalog").exists() or not any((root / ".osiris" / "catalog").iterdir())


def test_a_run_of_the_file_says_the_same(root: Path) -> None:
    pipeline = {"oml_version": "0.1.0", "name": "twin", "steps": [
        {"id": "read", "component": "filesystem.csv_extractor", "mode": "read", "config": {"path": "twin.csv"}},
        {"id": "write", "component": "filesystem.csv_writer", "mode": "write", "needs": ["read"],
         "config": {"path": "out.csv"}}]}
    (root / "twin.yaml").write_text(yaml.safe_dump(pipeline, sort_keys=False))
    done = run_inprocess("run", "twin.yaml", cwd=root, env=clean_env())
    assert done.returncode == 6
    message, hint = SAID.split(" (give ", 1)
    assert f"twin.yaml OML540 step 'read': {message}" in done.stderr.splitlines()
    assert f"    hint: give {hint[:-1]}" in done.stderr.splitlines()


def test_a_header_that_only_looks_renamed_is_discovered_as_it_stands(root: Path) -> None:
    (root / "real.csv").write_text("id,x_1,x\n1,2,3\n")
    done = discover(root, "real.csv", "--json")
    assert done.returncode == 0, done.stderr
    assert '"name": "x_1"' in done.stdout and '"name": "x"' in done.stdout


def test_mcp_discovery_request_says_the_same(root: Path, mcp_in: Any) -> None:
    done = mcp_in(root).call("discovery_request", {"file": "twin.csv"})
    assert done.error
    assert "id_1" not in done.text
    message = SAID.split(" (give ", 1)[0]  # the hint passes the filter of an engine's words (docs/security.md)
    assert done.text.startswith(f"discovery_request: {message} (give each column its own name in the file's header")


def test_a_file_duckdb_cannot_read_through_a_filesystem_connection_exits_6(root: Path) -> None:
    """As `discover FILE.csv` says it (tests/test_discover.py); it was an internal error here."""
    (root / "bin.csv").write_bytes(b"\x00\x01\x02\xff\xfe")
    done = discover(root, "@filesystem.local", "bin.csv")
    assert done.returncode == 6
    assert done.stderr.startswith("osiris: error: cannot discover @filesystem.local: cannot read bin.csv as CSV: ")
    assert done.stderr.endswith(" (check that the file is a CSV file with a header row)\n")
    assert len(done.stderr.splitlines()) == 1
