"""`osiris validate` (in-process, tests/inprocess.py; the import probe in a child): exit codes, text and JSON output, secrets, imports."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
import yaml

from tests.validate_helpers import CONNECTIONS, csv_step, extract_step, oml, run_cli


@pytest.fixture
def project(tmp_path):
    (tmp_path / ".osiris.yaml").write_text(yaml.safe_dump({"connections": CONNECTIONS}))
    (tmp_path / "good.yaml").write_text(oml())
    (tmp_path / "bad.yaml").write_text(oml(extract_step(batch_size=5, password="hunter2-secret"), csv_step()))
    (tmp_path / "warn.yaml").write_text(oml(extract_step(batch_size="500"), csv_step()))
    return tmp_path


def test_valid_file_exits_0(project):
    result = run_cli("validate", "good.yaml", cwd=project)
    assert result.returncode == 0, result.stderr
    assert "good.yaml: valid" in result.stdout


def test_warnings_do_not_fail(project):
    result = run_cli("validate", "warn.yaml", cwd=project)
    assert result.returncode == 0
    assert "OML315 warning:" in result.stdout and "(1 warning)" in result.stdout


def test_invalid_file_exits_1_with_file_line_col_code_and_hint(project):
    result = run_cli("validate", "good.yaml", "bad.yaml", cwd=project)
    assert result.returncode == 1
    lines = result.stdout.splitlines()
    line_no = (project / "bad.yaml").read_text().splitlines().index("    batch_size: 5") + 1
    issue_line = next(line for line in lines if "OML306" in line)
    assert issue_line.startswith(f"bad.yaml:{line_no}:5 OML306 ")
    assert lines[lines.index(issue_line) + 1].startswith("    hint: ") and "100" in lines[lines.index(issue_line) + 1]
    assert "good.yaml: valid" in lines and any(line.startswith("bad.yaml: invalid") for line in lines)


def test_inline_secret_is_never_printed(project):
    for args in (("validate", "bad.yaml"), ("validate", "--json", "bad.yaml")):
        result = run_cli(*args, cwd=project)
        assert "OML310" in result.stdout
        assert "hunter2-secret" not in result.stdout + result.stderr


def test_json_output_shape(project):
    result = run_cli("validate", "--json", "good.yaml", "bad.yaml", cwd=project)
    assert result.returncode == 1
    data = json.loads(result.stdout)
    assert [f["path"] for f in data["files"]] == ["good.yaml", "bad.yaml"]
    assert [f["valid"] for f in data["files"]] == [True, False]
    issue = data["files"][1]["issues"][0]
    assert set(issue) == {"code", "severity", "tier", "path", "line", "column", "message", "hint", "value"}


def test_stdin_with_dash(project):
    result = run_cli("validate", "-", stdin="```yaml\n" + oml() + "```\n", cwd=project)
    assert result.returncode == 0 and "<stdin>: valid" in result.stdout


def test_usage_errors_exit_2(project):
    assert run_cli("validate", cwd=project).returncode == 2
    missing = run_cli("validate", "nope.yaml", cwd=project)
    assert missing.returncode == 2 and "nope.yaml" in missing.stderr and "Traceback" not in missing.stderr


def test_bad_rule_in_settings_exits_2(project):
    (project / ".osiris.yaml").write_text(yaml.safe_dump(
        {"validation": {"rules": [{"name": "r", "expr": "__import__('os')"}]}}))
    result = run_cli("validate", "good.yaml", cwd=project)
    assert result.returncode == 2 and "validation.rules 'r'" in result.stderr


def test_binary_and_huge_files_are_issues_not_crashes(project):
    (project / "binary.yaml").write_bytes(bytes(range(256)) * 10)
    (project / "huge.yaml").write_text("a: b\n" * 1_000_000)
    result = run_cli("validate", "--json", "binary.yaml", "huge.yaml", cwd=project)
    assert result.returncode == 1
    codes = [[i["code"] for i in f["issues"]] for f in json.loads(result.stdout)["files"]]
    assert codes == [["OML101"], ["OML105"]]


def test_broken_spec_in_components_paths_is_reported_on_stderr(project):
    (project / "components" / "broken").mkdir(parents=True)
    (project / "components" / "broken" / "spec.yaml").write_text("name: broken.one\n")
    result = run_cli("validate", "good.yaml", cwd=project)
    assert result.returncode == 0
    assert "broken/spec.yaml" in result.stderr and "meta-schema" in result.stderr


def test_validate_does_not_import_heavy_modules(project):
    code = ("import sys; from osiris.cli import main; main(['validate', 'good.yaml']); "
            "print(sorted(m for m in ('anthropic', 'prompt_toolkit', 'rich') if m in sys.modules))")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=project, timeout=60)
    assert result.stdout.strip().splitlines()[-1] == "[]"
