"""Issue 11 item 1 and issue 9 item 8: bad output paths cost nothing, and links are never written through.

The real program in a subprocess, the real SDK against the fake Messages API, real files.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from tests.conftest import TEST_API_KEY, cli_env, session_dirs
from tests.engine_samples import BAD_MODE, VALID, fenced
from tests.fake_anthropic import FakeAnthropic, Reply, Status
from tests.conftest import osiris_here as run_osiris  # in-process: tests/inprocess.py

REQUEST = "copy the customers CSV to output/active_customers.csv"


@pytest.mark.parametrize(
    ("output", "line"),
    [
        ("adir", "osiris: error: -o adir: is a directory; give a file path such as adir/pipeline.yaml"),
        ("afile/x.yaml", "osiris: error: -o afile/x.yaml: afile is a file, not a directory"),
        ("/proc/version", "osiris: error: -o /proc/version: cannot create files in /proc: no such file or directory"),
        ("link.yaml", "osiris: error: -o link.yaml: is a symbolic link; Osiris does not write through links "
                      "(remove it, or choose another path)"),
    ],
)
def test_a_bad_output_path_is_refused_before_the_llm_is_called(project, fake_api, output, line):
    (project / "adir").mkdir()
    (project / "afile").write_text("x")
    (project / "link.yaml").symlink_to(project / "target.yaml")
    fake_api.add(Reply(fenced(VALID)))

    done = run_osiris("generate", REQUEST, "-o", output, cwd=project)

    assert (done.returncode, done.stderr) == (2, line + "\n")
    assert fake_api.requests == [] and session_dirs(project) == []
    assert not (project / "target.yaml").exists()


def test_a_link_to_an_existing_file_is_refused_and_the_file_is_untouched(project, fake_api):
    (project / "real.yaml").write_text("mine\n")
    (project / "link.yaml").symlink_to("real.yaml")
    fake_api.add(Reply(fenced(VALID)))

    done = run_osiris("generate", REQUEST, "-o", "link.yaml", cwd=project)

    assert done.returncode == 2 and "-o link.yaml: is a symbolic link" in done.stderr
    assert (project / "real.yaml").read_text() == "mine\n" and (project / "link.yaml").is_symlink()


class PlantingFake(FakeAnthropic):
    """Runs `plant()` when a request arrives: the fault appears after -o was checked."""

    plant = staticmethod(lambda: None)

    def _next(self, recorded):
        self.plant()
        return super()._next(recorded)


def test_a_write_that_fails_after_the_check_keeps_the_pipeline_and_ends_the_session(project):
    with PlantingFake() as fake:
        (project / ".osiris.yaml").write_text(f"llm:\n  base_url: {fake.url}\n  timeout_seconds: 5\n")
        fake.plant = lambda: (project / "out.yaml").mkdir()  # the target turns into a directory
        fake.add(Reply(fenced(VALID)))

        done = run_osiris("generate", REQUEST, "-o", "out.yaml", cwd=project)

    [session] = session_dirs(project)
    kept = session / "artifacts" / "cycle-1" / "accepted.yaml"
    assert done.returncode == 5
    assert done.stderr.splitlines()[-1] == (
        f"osiris: error: cannot write -o out.yaml: out.yaml is a directory; the valid pipeline is kept in {kept}"
    )
    assert kept.read_text() == VALID.rstrip("\n") + "\n"
    meta = json.loads((session / "session.json").read_text())
    events = [json.loads(line) for line in (session / "events.jsonl").read_text().splitlines()]
    assert meta["status"] == "output_failed"
    assert [e["event_type"] for e in events[-2:]] == ["pipeline_accepted", "session_end"]
    assert events[-2]["path"] is None


def test_an_unusable_sessions_dir_names_the_setting_and_its_source(project, fake_api):
    env = cli_env(ANTHROPIC_API_KEY=TEST_API_KEY, OSIRIS_SESSIONS__DIR="/proc/1/x")

    done = run_osiris("generate", REQUEST, cwd=project, env=env)

    assert done.returncode == 2
    assert done.stderr == ("osiris: error: sessions.dir = /proc/1/x (from env OSIRIS_SESSIONS__DIR): "
                           "cannot create files in /proc/1: no such file or directory\n")
    assert fake_api.requests == []


def test_init_in_an_unusable_directory_is_one_line_exit_2(tmp_path: Path):
    done = run_osiris("init", "/proc/1", cwd=tmp_path, env=cli_env())

    assert (done.returncode, done.stderr) == (
        2, "osiris: error: init DIRECTORY /proc/1: cannot create files in /proc/1: no such file or directory\n")


def test_init_does_not_follow_a_dangling_settings_link(tmp_path: Path):
    project = tmp_path / "p"
    project.mkdir()
    (project / ".osiris.yaml").symlink_to(tmp_path / "elsewhere.yaml")

    kept = run_osiris("init", cwd=project, env=cli_env())
    forced = run_osiris("init", "--force", cwd=project, env=cli_env())

    assert kept.returncode == 0
    assert "kept    .osiris.yaml (a symbolic link, not followed)" in kept.stderr.splitlines()
    assert forced.returncode == 2 and forced.stderr == (
        "osiris: error: init: .osiris.yaml is a symbolic link; Osiris does not write through links "
        "(remove it, or choose another path)\n")
    assert not (tmp_path / "elsewhere.yaml").exists()


def test_config_pointing_at_a_directory_is_one_line_exit_2(tmp_path: Path):
    (tmp_path / "d").mkdir()

    done = run_osiris("--config", "d", "config", "show", cwd=tmp_path, env=cli_env())

    assert (done.returncode, done.stderr) == (
        2, "osiris: error: --config d: is a directory, not a settings file\n")


def test_generate_json_prints_an_object_when_there_is_no_key(project, fake_api):
    done = run_osiris("generate", REQUEST, "--json", cwd=project, env=cli_env())

    result = json.loads(done.stdout)
    assert done.returncode == 3
    assert result["valid"] is False and result["exit_code"] == 3 and result["session_id"] is None
    assert result["error"].startswith("no Anthropic API key")


def test_generate_json_prints_an_object_on_a_rejected_key(project, fake_api):
    fake_api.add(Status(401, message="invalid x-api-key"))

    done = run_osiris("generate", REQUEST, "--json", cwd=project)

    result = json.loads(done.stdout)
    assert done.returncode == 3 and result["exit_code"] == 3 and result["valid"] is False
    assert "rejected" in result["error"] and TEST_API_KEY not in done.stdout
    assert result["session_dir"] == str(session_dirs(project)[0])


def test_generate_dash_reads_the_request_from_stdin(project, fake_api):
    fake_api.add(Reply(fenced(VALID)))

    done = run_osiris("generate", "-", cwd=project, input="copy active customers\n",
                      env=cli_env(ANTHROPIC_API_KEY=TEST_API_KEY))

    assert done.returncode == 0, done.stderr
    assert "copy active customers" in fake_api.requests[0].raw
    assert '"-"' not in json.dumps(fake_api.requests[0].body["messages"])


def test_output_file_is_written_with_the_usual_permissions(project, fake_api):
    fake_api.add(Reply(fenced(VALID)))
    old = os.umask(0o022)
    try:
        done = run_osiris("generate", REQUEST, "-o", "new/out.yaml", cwd=project)
    finally:
        os.umask(old)

    assert done.returncode == 0, done.stderr
    assert (project / "new" / "out.yaml").stat().st_mode & 0o777 == 0o644


def test_generate_in_strict_mode_says_strict_not_exhausted(project, fake_api):
    fake_api.add(Reply(fenced(BAD_MODE)))

    done = run_osiris("generate", REQUEST, "--retry-attempts", "0", "--json", cwd=project)

    [session] = session_dirs(project)
    assert done.returncode == 1 and json.loads(done.stdout)["stop_reason"] == "strict"
    assert done.stderr.splitlines()[-1] == (
        f"osiris: the pipeline is still invalid after 1 attempt (strict mode: no retries); see {session}")
