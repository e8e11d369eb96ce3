"""User spec checks are cached by content under .osiris/cache/ (issue 14): an edit is checked again,
`osiris components validate` checks everything, and the cache is safe to delete or break."""

from __future__ import annotations

import json
import stat
from pathlib import Path

from osiris.extract import load_document
from osiris.registry.cache import CACHE_FILE, SpecCache, project_cache_dir
from osiris.registry.loader import builtin_components_dir
from tests.validate_helpers import run_cli

GOOD_SPEC = """\
name: acme.writer
version: 1.0.0
modes: [write]
capabilities: {}
configSchema:
  type: object
  properties: {size: {type: integer, maximum: 5}}
  additionalProperties: false
"""
BROKEN_SCHEMA = GOOD_SPEC.replace("{type: integer, maximum: 5}", "{type: 12}")  # not a JSON Schema
PIPELINE = """\
oml_version: "0.1.0"
name: acme
steps:
  - id: read
    component: filesystem.csv_extractor
    mode: read
    config: {path: data.csv}
  - id: write
    component: acme.writer
    mode: write
    config: {size: 3}
"""
SKIPPED = "osiris: warning: component spec skipped:"


def _project(tmp_path: Path, spec: str) -> Path:
    (tmp_path / ".osiris.yaml").write_text("components:\n  paths: [components]\n")
    folder = tmp_path / "components" / "acme.writer"
    folder.mkdir(parents=True)
    (folder / "spec.yaml").write_text(spec)
    (tmp_path / "pipeline.yaml").write_text(PIPELINE)
    return folder / "spec.yaml"


def _cached_names(tmp_path: Path) -> list[str]:
    """The names of the specs the cache holds (built-ins included)."""
    return sorted(data["name"] for data in json.loads((project_cache_dir(tmp_path) / CACHE_FILE).read_text())["specs"].values())


BUILTINS = sorted(path.parent.name for path in builtin_components_dir().glob("*/spec.yaml"))


def test_a_spec_that_passed_is_remembered_privately(tmp_path):
    _project(tmp_path, GOOD_SPEC)
    result = run_cli("validate", "pipeline.yaml", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    cache = project_cache_dir(tmp_path) / CACHE_FILE
    assert _cached_names(tmp_path) == sorted([*BUILTINS, "acme.writer"])
    assert stat.S_IMODE(cache.stat().st_mode) == 0o600
    assert stat.S_IMODE(cache.parent.stat().st_mode) == 0o700
    assert run_cli("validate", "pipeline.yaml", cwd=tmp_path).returncode == 0
    assert _cached_names(tmp_path) == sorted([*BUILTINS, "acme.writer"])  # nothing new to remember


def test_an_edited_spec_is_checked_again(tmp_path):
    spec = _project(tmp_path, GOOD_SPEC)
    assert run_cli("validate", "pipeline.yaml", cwd=tmp_path).returncode == 0
    spec.write_text(BROKEN_SCHEMA)
    result = run_cli("validate", "pipeline.yaml", cwd=tmp_path)
    assert f"{SKIPPED} {spec.resolve()}: configSchema is not a valid JSON Schema" in result.stderr
    assert result.returncode == 1  # the pipeline's component is now unknown
    assert _cached_names(tmp_path) == sorted([*BUILTINS, "acme.writer"])  # a failure is never remembered


def test_the_cache_is_trusted_by_commands_but_not_by_components_validate(tmp_path):
    """Plant a pass for a broken spec: everyday commands trust it, `components validate` does not."""
    spec = _project(tmp_path, BROKEN_SCHEMA)
    meta = (builtin_components_dir() / "spec.schema.json").read_text(encoding="utf-8")
    planted = SpecCache(project_cache_dir(tmp_path), meta)
    planted.put(BROKEN_SCHEMA.encode(), load_document(BROKEN_SCHEMA).value, checked=True)
    planted.save()
    listed = run_cli("components", "list", cwd=tmp_path)
    assert SKIPPED not in listed.stderr and "acme.writer" in listed.stdout
    checked = run_cli("components", "validate", cwd=tmp_path)
    assert checked.returncode == 1
    assert f"{spec.resolve()}: configSchema is not a valid JSON Schema" in checked.stderr


def test_a_deleted_or_broken_cache_only_means_checking_again(tmp_path):
    spec = _project(tmp_path, BROKEN_SCHEMA)
    cache = project_cache_dir(tmp_path) / CACHE_FILE
    cache.parent.mkdir(parents=True)
    cache.write_text("{not json")
    result = run_cli("validate", "pipeline.yaml", cwd=tmp_path)
    assert f"{SKIPPED} {spec.resolve()}: configSchema" in result.stderr and "Traceback" not in result.stderr
    spec.write_text(GOOD_SPEC)
    assert run_cli("validate", "pipeline.yaml", cwd=tmp_path).returncode == 0
    assert _cached_names(tmp_path) == sorted([*BUILTINS, "acme.writer"])


def test_built_ins_alone_create_no_osiris_directory(tmp_path):
    (tmp_path / "pipeline.yaml").write_text(PIPELINE.replace("acme.writer", "filesystem.csv_writer")
                                            .replace("{size: 3}", "{path: out.csv}"))
    assert run_cli("validate", "pipeline.yaml", cwd=tmp_path).returncode == 0
    assert not (tmp_path / ".osiris").exists()
