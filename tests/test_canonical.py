"""Issue 8: what is accepted, saved and handed over is the canonical pipeline (ADR 0050): safe
coercions written in, comments and untouched lines kept byte for byte."""

from __future__ import annotations

from tests.conftest import osiris_here as run_osiris  # in-process: tests/inprocess.py
from tests.conftest import session_dirs
from tests.engine_samples import fenced
from tests.fake_anthropic import Reply
from tests.inprocess import run_inprocess as run_plain
from tests.validate_helpers import validator

ANSWERED = """\
# customers, nightly
oml_version: "0.1.0"
name: customers-to-csv
steps:
  - id: read-customers   # the shop export
    component: filesystem.csv_extractor
    mode: read
    config: {file_path: data/customers.csv, skip_blank_lines: "true"}
  - id: write-active
    component: filesystem.csv_writer
    mode: write
    needs: [ read-customers ]
    config:
      file_path: 'output/active.csv'   # where the team looks
      encoding: UTF-8
"""
CANONICAL = """\
# customers, nightly
oml_version: "0.1.0"
name: customers-to-csv
steps:
  - id: read-customers   # the shop export
    component: filesystem.csv_extractor
    mode: read
    config: {path: data/customers.csv, skip_blank_lines: true}
  - id: write-active
    component: filesystem.csv_writer
    mode: write
    needs: [ read-customers ]
    config:
      path: 'output/active.csv'   # where the team looks
      encoding: utf-8
"""


def test_the_report_carries_the_canonical_text_and_what_was_normalised():
    report = validator().validate(ANSWERED)

    assert report.valid
    assert report.oml_text == CANONICAL
    assert report.source_text == ANSWERED
    assert [(i.path, i.line) for i in report.coerced] == [
        ("/steps/0/config/file_path", 8), ("/steps/0/config/skip_blank_lines", 8),
        ("/steps/1/config/file_path", 14), ("/steps/1/config/encoding", 15)]


def test_canonical_text_validates_with_no_coercion_left():
    again = validator().validate(CANONICAL)

    assert again.valid and again.coerced == [] and again.oml_text == CANONICAL


def test_a_pipeline_without_coercions_is_handed_over_unchanged():
    report = validator().validate(CANONICAL)

    assert report.oml_text is report.source_text


def test_validate_fix_writes_the_canonical_bytes_back(tmp_path):
    target = tmp_path / "p.yaml"
    target.write_bytes(ANSWERED.encode())

    done = run_plain("validate", "--fix", str(target), cwd=tmp_path)

    assert done.returncode == 0, done.stderr
    assert target.read_bytes() == CANONICAL.encode()
    assert f"{target}: fixed (4 coercions written)" in done.stdout.splitlines()


def test_validate_diff_shows_the_change_and_writes_nothing(tmp_path):
    target = tmp_path / "p.yaml"
    target.write_bytes(ANSWERED.encode())

    done = run_plain("validate", "--diff", str(target), cwd=tmp_path)

    assert done.returncode == 0, done.stderr
    assert target.read_bytes() == ANSWERED.encode()
    assert f"--- {target}\n+++ {target} (canonical)\n" in done.stdout
    assert "-    config: {file_path: data/customers.csv, skip_blank_lines: \"true\"}\n" in done.stdout
    assert "+    config: {path: data/customers.csv, skip_blank_lines: true}\n" in done.stdout
    assert ("-      file_path: 'output/active.csv'   # where the team looks\n-      encoding: UTF-8\n"
            "+      path: 'output/active.csv'   # where the team looks\n+      encoding: utf-8\n") in done.stdout


def test_validate_fix_refuses_standard_input(tmp_path):
    done = run_plain("validate", "--fix", "-", cwd=tmp_path, input=ANSWERED)

    assert done.returncode == 2
    assert done.stderr.strip() == "osiris: error: --fix cannot write to standard input; use --diff to see the canonical form"


def test_generate_output_and_accepted_yaml_hold_the_canonical_bytes(project, fake_api):
    fake_api.add(Reply(fenced(ANSWERED)))

    done = run_osiris("generate", "copy the active customers", "-o", "out.yaml", cwd=project)

    assert done.returncode == 0, done.stderr
    assert (project / "out.yaml").read_bytes() == CANONICAL.encode()
    [session] = session_dirs(project)
    [accepted] = session.rglob("accepted.yaml")
    assert accepted.read_bytes() == CANONICAL.encode()


def test_chat_shows_and_saves_the_canonical_bytes(project, fake_api):
    from tests.conftest import TEST_API_KEY, cli_env

    fake_api.add(Reply(fenced(ANSWERED)))

    done = run_plain("chat", cwd=project, env=cli_env(ANTHROPIC_API_KEY=TEST_API_KEY),
                     input="copy the active customers\nout.yaml\n")

    assert done.returncode == 0, done.stderr
    assert (project / "out.yaml").read_bytes() == CANONICAL.encode()
    assert "config: {path: data/customers.csv, skip_blank_lines: true}" in done.stdout  # what /show shows
    assert "file_path" not in done.stdout.split("OML315")[0]


def test_a_patched_value_reads_back_the_same_in_flow_and_block_context():
    from osiris.validate.canonical import Edit, canonical_text

    text = "a: {x: 1, y: 2}\nb:\n  z: 3\nc: [4, 5]\n"
    edits = [Edit("/a/x", value="p, q}"), Edit("/b/z", value="#r"), Edit("/a/y", rename_to="w", value=True)]

    patched = canonical_text(text, edits)

    assert patched == 'a: {x: "p, q}", w: true}\nb:\n  z: \'#r\'\nc: [4, 5]\n'


def test_fix_with_json_keeps_stdout_json(tmp_path):
    import json

    target = tmp_path / "p.yaml"
    target.write_bytes(ANSWERED.encode())

    done = run_plain("validate", "--fix", "--json", str(target), cwd=tmp_path)

    assert done.returncode == 0
    assert json.loads(done.stdout)["files"][0]["valid"] is True
    assert f"{target}: fixed (4 coercions written)" in done.stderr
