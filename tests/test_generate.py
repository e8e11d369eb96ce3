"""`osiris generate` as users run it: the real SDK, the fake server, real files. In-process
(`cli.main`) where a process adds nothing; a real subprocess for the entry point and the keyring."""

from __future__ import annotations

import json
import stat

import yaml

from tests.conftest import (
    TEST_API_KEY,
    cli_env,
    osiris_here,
    run_osiris,
    session_dirs,
    write_settings,
)
from tests.engine_samples import BAD_COMPONENT, BAD_MODE, BAD_NEEDS, VALID, fenced
from tests.fake_anthropic import Reply, Status

REQUEST = "copy the customers CSV to output/active_customers.csv"


def test_fixed_on_retry_prints_the_valid_pipeline_and_the_session(project, fake_api):
    fake_api.add(Reply(fenced(BAD_COMPONENT)), Reply(fenced(VALID)))

    done = run_osiris("generate", REQUEST, cwd=project)

    assert done.returncode == 0, done.stderr
    assert yaml.safe_load(done.stdout) == yaml.safe_load(VALID)
    [session] = session_dirs(project)
    assert str(session) in done.stderr
    assert "unknown component 'filesystem.csv_writter'" in done.stderr  # friendly errors shown
    assert len(fake_api.requests) == 2
    accepted = [json.loads(line) for line in (session / "events.jsonl").read_text().splitlines()]
    assert accepted[-2]["event_type"] == "pipeline_accepted"


def test_output_file_and_json(project, fake_api):
    fake_api.add(Reply(fenced(VALID), input_tokens=321, output_tokens=123))

    done = osiris_here("generate", REQUEST, "-o", "pipelines/out.yaml", "--json", cwd=project)

    assert done.returncode == 0, done.stderr
    assert yaml.safe_load((project / "pipelines" / "out.yaml").read_text()) == yaml.safe_load(VALID)
    result = json.loads(done.stdout)
    assert result["valid"] is True and result["stop_reason"] == "valid"
    assert result["token_usage"]["input"] == 321 and result["token_usage"]["output"] == 123
    assert result["session_dir"] == str(session_dirs(project)[0])


def test_never_fixed_exits_1_after_exactly_max_attempts_plus_one_requests(project, fake_api):
    fake_api.add(Reply(fenced(BAD_MODE)), Reply(fenced(BAD_COMPONENT)), Reply(fenced(BAD_NEEDS)), Reply(fenced(VALID)))

    done = osiris_here("generate", REQUEST, cwd=project)

    assert done.returncode == 1
    assert len(fake_api.requests) == 3
    assert done.stdout == ""
    assert "still invalid after 3 attempts" in done.stderr and str(session_dirs(project)[0]) in done.stderr
    meta = json.loads((session_dirs(project)[0] / "session.json").read_text())
    assert meta["status"] == "invalid" and meta["totals"]["attempts"] == 3


def test_strict_mode_from_the_command_line(project, fake_api):
    fake_api.add(Reply(fenced(BAD_MODE)), Reply(fenced(VALID)))

    done = osiris_here("generate", REQUEST, "--retry-attempts", "0", cwd=project)

    assert done.returncode == 1 and len(fake_api.requests) == 1
    meta = json.loads((session_dirs(project)[0] / "session.json").read_text())
    assert meta["settings"]["validation.retry.max_attempts"] == {"value": 0, "source": "cli"}
    assert meta["settings"]["llm.base_url"]["source"] == str(project / ".osiris.yaml")


def test_retry_attempts_from_the_environment(project, fake_api):
    fake_api.add(*[Reply(fenced(BAD_MODE if i % 2 == 0 else BAD_COMPONENT)) for i in range(6)])

    done = osiris_here(
        "generate", REQUEST, cwd=project,
        env=cli_env(ANTHROPIC_API_KEY=TEST_API_KEY, OSIRIS_VALIDATE_RETRY_ATTEMPTS="1"),
    )

    assert done.returncode == 1 and len(fake_api.requests) == 2


def test_out_of_range_retry_attempts_is_a_usage_error_naming_cli(project, fake_api):
    done = osiris_here("generate", REQUEST, "--retry-attempts", "9", cwd=project)

    assert done.returncode == 2
    assert "cli" in done.stderr and "max_attempts" in done.stderr and "Traceback" not in done.stderr
    assert fake_api.requests == []


def test_no_key_exits_3_and_points_to_the_ways_to_set_one(project, fake_api):
    done = osiris_here("generate", REQUEST, cwd=project, env=cli_env())

    assert done.returncode == 3
    assert "ANTHROPIC_API_KEY" in done.stderr and "osiris auth login" in done.stderr
    assert "--provider demo" in done.stderr
    assert session_dirs(project) == [] and fake_api.requests == []


def test_rejected_key_exits_3_in_one_line(project, fake_api):
    fake_api.add(Status(401, message="invalid x-api-key"))

    done = osiris_here("generate", REQUEST, cwd=project)

    assert done.returncode == 3 and len(fake_api.requests) == 1
    assert "key was rejected" in done.stderr and "Traceback" not in done.stderr


def test_service_down_exits_4(project, fake_api):
    write_settings(project, {"llm": {"base_url": fake_api.url, "api_retries": 0}})
    fake_api.add(Status(503))

    done = run_osiris("generate", REQUEST, cwd=project)

    assert done.returncode == 4 and len(fake_api.requests) == 1
    assert "unavailable" in done.stderr and str(session_dirs(project)[0]) in done.stderr


def test_demo_provider_runs_offline_invalid_then_valid(tmp_path):
    done = osiris_here("generate", "active customers to CSV", "--provider", "demo", cwd=tmp_path, env=cli_env())

    assert done.returncode == 0, done.stderr
    assert "asking the LLM to fix them" in done.stderr and "attempt 2: valid" in done.stderr
    assert yaml.safe_load(done.stdout)["oml_version"] == "0.1.0"


PLANTED = {
    "env": "EnvPlanted-7c1d93",
    "yaml": "YamlPlanted-44e0ab",
    "dsn": "DsnPlanted-5f2e11",
    "answer": "AnswerPlanted-9b3a70",
    "answer_dsn": "AnswerDsn-0d81c6",
}


def test_planted_secrets_reach_no_file_and_no_later_request(project, fake_api):
    write_settings(
        project,
        {
            "llm": {"base_url": fake_api.url, "timeout_seconds": 5},
            "connections": {
                "mysql": {"default": {"host": "db.internal", "user": "reader", "password": "${MYSQL_PASSWORD}"}},
                "postgres": {"default": {"host": "pg", "user": "u", "password": PLANTED["yaml"]}},
            },
        },
    )
    leaky = f"""\
oml_version: "0.1.0"
name: customers-to-csv
steps:
  - id: extract
    component: mysql.extractor
    mode: read
    config:
      connection: "@mysql.default"
      password: {PLANTED['answer']}
      query: "SELECT * FROM customers -- postgres://u:{PLANTED['answer_dsn']}@pg/db {PLANTED['env']}"
  - id: write
    component: filesystem.csv_writer
    mode: write
    needs: [extract]
    config:
      path: out.csv
"""
    fake_api.add(Reply(fenced(leaky)), Reply(fenced(leaky.replace("password", "pass_word"))), Reply(fenced(VALID)))
    request = f"copy customers from mysql://reader:{PLANTED['dsn']}@db.internal/shop (pw {PLANTED['yaml']}) to csv"

    done = osiris_here(
        "generate", request, "--json", cwd=project,
        env=cli_env(ANTHROPIC_API_KEY=TEST_API_KEY, MYSQL_PASSWORD=PLANTED["env"]),
    )

    assert done.returncode == 0, done.stderr
    assert "removed a password inside a connection URL" in done.stderr
    assert len(fake_api.requests) == 3
    planted = [*PLANTED.values(), TEST_API_KEY]
    [session] = session_dirs(project)
    files = [p for p in session.rglob("*") if p.is_file()]
    assert len(files) >= 10
    for path in [session, *session.rglob("*")]:
        assert stat.S_IMODE(path.stat().st_mode) == (0o700 if path.is_dir() else 0o600), path
    for path in files:
        text = path.read_text()
        for secret in planted:
            assert secret not in text, f"{secret} in {path.relative_to(session)}"
    for body in fake_api.bodies[1:]:
        for secret in planted:
            assert secret not in body
    retry = fake_api.requests[1].body["messages"][-1]["content"]
    assert "OML310 /steps/0/config/password: secret field 'password' is written inline" in retry  # masked, not mangled
    for secret in (PLANTED["dsn"], PLANTED["yaml"], PLANTED["env"], TEST_API_KEY):
        assert secret not in fake_api.bodies[0]  # the request was scrubbed before the first call too
    for secret in planted:
        assert secret not in done.stdout


def test_model_flag_reaches_the_api_and_rate_limits_are_shown(project, fake_api):
    fake_api.add(Status(429, retry_after="0"), Reply(fenced(VALID)))

    done = osiris_here("generate", REQUEST, "--model", "claude-haiku-5-5", cwd=project)

    assert done.returncode == 0, done.stderr
    assert [r.body["model"] for r in fake_api.requests] == ["claude-haiku-5-5"] * 2
    assert "rate_limit (HTTP 429)" in done.stderr and "retrying in 0.0 s (1/3)" in done.stderr


def test_demo_in_strict_mode_is_invalid_and_says_where_the_session_is(tmp_path):
    done = osiris_here("generate", "x", "--provider", "demo", "--retry-attempts", "0", cwd=tmp_path, env=cli_env())

    assert done.returncode == 1 and done.stdout == ""
    assert "still invalid after 1 attempt " in done.stderr and str(session_dirs(tmp_path)[0]) in done.stderr


def test_without_base_url_the_sdk_default_honours_anthropic_base_url(project, fake_api):
    write_settings(project, {"llm": {"timeout_seconds": 5}})  # base_url: null
    fake_api.add(Reply(fenced(VALID)))

    done = osiris_here(
        "generate", REQUEST, cwd=project, env=cli_env(ANTHROPIC_API_KEY=TEST_API_KEY, ANTHROPIC_BASE_URL=fake_api.url)
    )

    assert done.returncode == 0, done.stderr
    assert len(fake_api.requests) == 1


def test_the_key_can_come_from_the_keyring(project, fake_api, tmp_path):
    # A real process: keyring picks its backend once per process, from PYTHON_KEYRING_BACKEND.
    """A keyring backend (a tiny in-memory one on the path) instead of ANTHROPIC_API_KEY."""
    backend_dir = tmp_path / "backend"
    backend_dir.mkdir()
    (backend_dir / "memory_keyring.py").write_text(
        "from keyring.backend import KeyringBackend\n"
        "class Keyring(KeyringBackend):\n"
        "    priority = 1\n"
        "    def get_password(self, service, username):\n"
        f"        return {TEST_API_KEY!r} if (service, username) == ('osiris', 'anthropic-api-key') else None\n"
        "    def set_password(self, service, username, password): pass\n"
        "    def delete_password(self, service, username): pass\n"
    )
    fake_api.add(Reply(fenced(VALID)))
    env = cli_env(PYTHON_KEYRING_BACKEND="memory_keyring.Keyring", PYTHONPATH=str(backend_dir))

    done = run_osiris("generate", REQUEST, cwd=project, env=env)

    assert done.returncode == 0, done.stderr
    assert fake_api.requests[0].headers["authorization"] == f"Bearer {TEST_API_KEY}"


def test_warnings_of_the_valid_pipeline_are_shown(project, fake_api):
    fake_api.add(Reply(fenced(VALID.replace("path: output/", "file_path: output/"))))

    done = osiris_here("generate", REQUEST, cwd=project)

    assert done.returncode == 0, done.stderr
    assert "valid with 1 warning" in done.stderr and "OML315" in done.stderr
    # Issue 8: what is handed over is the canonical pipeline, the alias renamed, the rest as answered.
    assert done.stdout == VALID


def test_closing_line_counts_each_kind_of_token_once(project, fake_api):
    fake_api.add(
        Reply(fenced(BAD_COMPONENT), input_tokens=1850, output_tokens=210, cache_write=1600),
        Reply(fenced(VALID), input_tokens=420, output_tokens=190, cache_read=1600),
    )

    done = osiris_here("generate", REQUEST, cwd=project)

    assert done.returncode == 0, done.stderr
    assert "tokens: 2,270 in, 400 out, 1,600 cache read, 1,600 cache write" in done.stderr
    attempts = osiris_here("sessions", "attempts", "last", cwd=project).stdout.splitlines()
    assert attempts[0].split()[6:10] == ["TOK", "IN", "TOK", "OUT"]
    assert attempts[1].split()[5:9] == ["1850", "210", "0", "1600"]
    assert attempts[2].split()[5:9] == ["420", "190", "1600", "0"]
