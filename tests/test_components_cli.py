"""`osiris components list | show NAME | validate`, in-process (tests/inprocess.py)."""

from __future__ import annotations

import json

from tests.validate_helpers import run_cli


def test_list_shows_every_builtin_with_its_oml_modes(tmp_path):
    result = run_cli("components", "list", cwd=tmp_path)
    assert result.returncode == 0
    rows = {line.split()[0]: line.split()[1] for line in result.stdout.splitlines()}
    assert rows["mysql.extractor"] == "read" and rows["supabase.writer"] == "write"
    assert rows["duckdb.processor"] == "transform" and len(rows) >= 11


def test_list_json(tmp_path):
    data = json.loads(run_cli("components", "list", "--json", cwd=tmp_path).stdout)
    assert {"name", "version", "modes", "title", "path"} <= set(data[0])


def test_show_describes_fields_connection_and_examples(tmp_path):
    result = run_cli("components", "show", "mysql.extractor", cwd=tmp_path)
    assert result.returncode == 0
    out = result.stdout
    assert "batch_size: integer (>= 100; <= 100000; default 10000)" in out
    assert 'connection: "@mysql.<alias>"' in out and "password (forbidden)" in out
    assert "[required, secret, from connection]" in out and "Example:" in out


def test_show_unknown_name_suggests_and_exits_2(tmp_path):
    result = run_cli("components", "show", "mysql.extractr", cwd=tmp_path)
    assert result.returncode == 2 and "did you mean 'mysql.extractor'" in result.stderr


def test_validate_passes_for_builtins_and_fails_for_a_broken_example(tmp_path):
    assert run_cli("components", "validate", cwd=tmp_path).returncode == 0
    spec_dir = tmp_path / "components" / "acme.writer"
    spec_dir.mkdir(parents=True)
    (spec_dir / "spec.yaml").write_text("""
name: acme.writer
version: 1.0.0
modes: [write]
capabilities: {}
configSchema:
  type: object
  properties: {size: {type: integer, maximum: 5}}
  additionalProperties: false
examples:
  - title: too big
    config: {size: 50}
""")
    result = run_cli("components", "validate", cwd=tmp_path)
    assert result.returncode == 1
    assert "acme.writer example 1 (too big): OML306" in result.stderr


def test_missing_action_is_a_usage_error(tmp_path):
    assert run_cli("components", cwd=tmp_path).returncode == 2
