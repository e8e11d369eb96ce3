"""Planted secrets through `osiris generate` (issue 9, items 4 and 11): the real program, the real
SDK against the fake Messages API. Nothing planted may reach a session file, stdout, stderr, or a
request body; the pipeline quoted in the retry prompt must still be YAML."""

from __future__ import annotations

import base64
import json

import yaml

from tests.conftest import TEST_API_KEY, cli_env, session_dirs, write_settings
from tests.engine_samples import VALID, fenced
from tests.fake_anthropic import Reply
from tests.conftest import osiris_here as run_osiris  # in-process: tests/inprocess.py

ENV_PW = "MyEnv-Pw-5521"  # a connection password from the environment
NUMERIC_PW = 98765432  # a connection password that YAML reads as a number
TYPED = "Typed-Pw-7788"  # typed into the request in prose
BASIC = base64.b64encode(b"proxyuser:proxy-pw-31").decode()

# A MySQL extractor step, its config open for more lines.
GET_STEP = """\
  - id: get
    component: mysql.extractor
    mode: read
    config:
      connection: "@mysql.default"
"""

UNPARSABLE = f"""\
oml_version: "0.1.0"
name: broken
steps:
{GET_STEP}      password: |
        block-pw-1
      query: "CREATE USER u IDENTIFIED BY 'sql-pw-1'"
      note: Proxy-Authorization: Basic {BASIC}
      also: Cookie: sid=ck-1; csrftoken=ck-2
      blob: {base64.b64encode(ENV_PW.encode()).decode()}
      "password": "json-pw-1"
      'token': 'quoted-tok-1'
      "api_key": "esc\\"aped-key-1"
      bad: [unclosed
"""

# A JSON-style answer cut off mid-object: quoted keys, compact and spaced, in text that does not parse.
UNPARSABLE_JSON = """\
{"oml_version": "0.1.0", "name": "json-ish", "steps": [{"id": "get", "component": "mysql.extractor",
 "config": {"connection": "@mysql.default", "password":"json-pw-2", 'secret': 'quoted-sec-2',
 "note": "the \\"password\\" is prose-pw-2", "auth_token": "a\\"b-tok-2\\"c",
"""

# A Postgres writer step, its config open for one more line.
LOAD_STEP = """\
  - id: load
    component: postgres.writer
    mode: write
    needs: [get]
    config:
      connection: "@postgres.default"
      table: customers
"""

PARSES = f"""\
oml_version: "0.1.0"
name: echoes
steps:
  - id: get
    component: rest.extractor
    mode: read
    config:
      base_url: https://api.example.com
      endpoint: "/customers?token=url-tok-1"
      auth_token: >
        folded-pw-1
        folded-pw-2
{LOAD_STEP}      port: {ENV_PW}
"""

PLANTED = [ENV_PW, str(NUMERIC_PW), TYPED, base64.b64encode(ENV_PW.encode()).decode(), "block-pw-1",
           "sql-pw-1", BASIC, "ck-1", "ck-2", "url-tok-1", "folded-pw-1", "folded-pw-2", TEST_API_KEY,
           "json-pw-1", "quoted-tok-1", "aped-key-1", "json-pw-2", "quoted-sec-2", "prose-pw-2", "b-tok-2"]


def _settings(project, fake_api) -> None:
    write_settings(project, {
        "llm": {"base_url": fake_api.url, "timeout_seconds": 5},
        "connections": {
            "mysql": {"default": {"host": "db", "database": "shop", "user": "r", "password": "${MYSQL_PASSWORD}"}},
            "postgres": {"default": {"host": "pg", "database": "dw", "user": "w", "password": NUMERIC_PW}},
        },
    })


def _leaks(text: str) -> list[str]:
    return [secret for secret in PLANTED if secret in text]


def test_planted_secrets_reach_no_file_no_terminal_and_no_request(project, fake_api):
    _settings(project, fake_api)
    fake_api.add(Reply(fenced(UNPARSABLE)), Reply(fenced(PARSES)), Reply(fenced(VALID)))
    request = f"copy the customers to a CSV; the password is {TYPED}"

    done = run_osiris("generate", request, "--retry-attempts", "2", cwd=project,
                      env=cli_env(ANTHROPIC_API_KEY=TEST_API_KEY, MYSQL_PASSWORD=ENV_PW))

    assert done.returncode == 0, done.stderr
    assert len(fake_api.requests) == 3
    assert "port must be" in done.stderr and "not '***'" in done.stderr  # the echo is shown, masked
    _assert_nothing_leaked(project, done, fake_api)


def test_quoted_keys_in_an_answer_that_does_not_parse_reach_nothing(project, fake_api):
    """`"password": "x"` and `'token': 'x'` leaked: SQL's `PASSWORD "..."` took `": "` for the value."""
    _settings(project, fake_api)
    fake_api.add(Reply(UNPARSABLE_JSON), Reply(fenced(VALID)))

    done = run_osiris("generate", "copy the customers to a CSV", cwd=project,
                      env=cli_env(ANTHROPIC_API_KEY=TEST_API_KEY, MYSQL_PASSWORD=ENV_PW))

    assert done.returncode == 0, done.stderr
    assert len(fake_api.requests) == 2 and "OML101" in done.stderr
    [session] = session_dirs(project)
    attempt = session / "artifacts" / "cycle-1" / "attempt-1"
    assert '"password":"***"' in (attempt / "answer.txt").read_text()  # masked in place, the rest kept
    _assert_nothing_leaked(project, done, fake_api)


def _assert_nothing_leaked(project, done, fake_api) -> None:
    """No planted secret on the terminal, in any file of the session, or in any request sent."""
    assert _leaks(done.stderr) == [] and _leaks(done.stdout) == []
    [session] = session_dirs(project)
    for path in (p for p in session.rglob("*") if p.is_file()):
        assert _leaks(path.read_text()) == [], path.relative_to(session)
    for body in fake_api.bodies:
        assert _leaks(body) == []


def test_the_pipeline_quoted_in_the_retry_prompt_is_yaml_of_the_same_shape(project, fake_api):
    _settings(project, fake_api)
    fake_api.add(Reply(fenced(PARSES)), Reply(fenced(VALID)))

    done = run_osiris("generate", "copy customers", cwd=project,
                      env=cli_env(ANTHROPIC_API_KEY=TEST_API_KEY, MYSQL_PASSWORD=ENV_PW))

    assert done.returncode == 0, done.stderr
    retry = fake_api.requests[1].body["messages"][-1]["content"]
    quoted = retry.split("<previous_pipeline>", 1)[1].split("```yaml\n", 1)[1].split("\n```", 1)[0]
    assert _leaks(quoted) == []
    shown, sent = yaml.safe_load(quoted), yaml.safe_load(PARSES)
    assert [sorted(step["config"]) for step in shown["steps"]] == [sorted(step["config"]) for step in sent["steps"]]
    assert shown["steps"][0]["config"]["endpoint"] == "/customers?token=***"
    [session] = session_dirs(project)
    saved = (session / "artifacts" / "cycle-1" / "attempt-1" / "pipeline.yaml").read_text()
    assert len(saved.splitlines()) == len(PARSES.splitlines())  # masks keep the lines: positions stay right
    assert "auth_token: >\n        ***\n        ***\n" in saved


def test_a_numeric_password_is_masked_by_config_show_and_in_session_json(project, fake_api):
    _settings(project, fake_api)
    shown = run_osiris("config", "show", cwd=project)
    as_json = run_osiris("config", "show", "--json", cwd=project)
    fake_api.add(Reply(fenced(VALID)))
    generated = run_osiris("generate", "copy customers", cwd=project,
                           env=cli_env(ANTHROPIC_API_KEY=TEST_API_KEY, MYSQL_PASSWORD=ENV_PW))

    assert shown.returncode == as_json.returncode == generated.returncode == 0, generated.stderr
    assert str(NUMERIC_PW) not in shown.stdout and str(NUMERIC_PW) not in as_json.stdout
    assert json.loads(as_json.stdout)["connections.postgres.default.password"]["value"] == "***"
    [session] = session_dirs(project)
    meta = json.loads((session / "session.json").read_text())
    assert str(NUMERIC_PW) not in json.dumps(meta)


def test_changing_a_setting_in_chat_records_its_name(project, fake_api):
    """`settings_changed` named the setting `key="***"`: the word key is not a secret."""
    done = run_osiris("chat", cwd=project, input="/retry-attempts 4\n", env=cli_env(ANTHROPIC_API_KEY=TEST_API_KEY))

    assert done.returncode == 0, done.stderr
    [session] = session_dirs(project)
    events = [json.loads(line) for line in (session / "events.jsonl").read_text().splitlines()]
    [changed] = [e for e in events if e["event_type"] == "settings_changed"]
    assert changed["setting"] == "validation.retry.max_attempts" and changed["value"] == 4


ENV_NUMERIC_PW = "24681357"  # a connection password from the environment that reads as a number

NUMBERS_ECHOED = f"""\
oml_version: "0.1.0"
name: numbers
steps:
{GET_STEP}      table: customers
      batch_size: {NUMERIC_PW}
{LOAD_STEP}      batch_size: {ENV_NUMERIC_PW}.0
"""


def test_a_known_numeric_secret_under_a_plain_key_is_masked_in_every_file_and_request(project, fake_api):
    """Before: `Redactor.data` kept every number not under a secret key, so `batch_size: 98765432`
    (the Postgres password of .osiris.yaml) reached events.jsonl and errors.json as a raw int."""
    _settings(project, fake_api)
    fake_api.add(Reply(fenced(NUMBERS_ECHOED)), Reply(fenced(VALID)))

    done = run_osiris("generate", "copy customers", cwd=project,
                      env=cli_env(ANTHROPIC_API_KEY=TEST_API_KEY, MYSQL_PASSWORD=ENV_NUMERIC_PW))

    assert done.returncode == 0, done.stderr
    assert len(fake_api.requests) == 2 and "batch_size" in done.stderr
    [session] = session_dirs(project)
    files = {path: path.read_text() for path in session.rglob("*") if path.is_file()}
    texts = [done.stdout, done.stderr, *files.values(), *fake_api.bodies]
    assert [text for text in texts if str(NUMERIC_PW) in text or ENV_NUMERIC_PW in text] == []
    retry = [json.loads(line) for line in (session / "events.jsonl").read_text().splitlines()
             if '"validation_retry"' in line]
    assert retry and "***" in json.dumps(retry)  # masked where it was, not dropped


def test_an_answer_of_hundreds_of_fences_is_redacted_without_a_crash(project, fake_api):
    """Before: `Redactor.text` recursed once per nested fence: 1,500 "```yaml" lines exited 5 with
    RecursionError. Now the answer is an ordinary failed attempt, its secret masked."""
    _settings(project, fake_api)
    hostile = "```yaml\n" * 1_500 + "password: fence-pw-1\n"
    fake_api.add(Reply(hostile), Reply(fenced(VALID)))

    done = run_osiris("generate", "copy customers", cwd=project,
                      env=cli_env(ANTHROPIC_API_KEY=TEST_API_KEY, MYSQL_PASSWORD=ENV_PW))

    assert done.returncode == 0, done.stderr
    assert "osiris: attempt 1/3: 1 error; asking the LLM to fix them\n" in done.stderr
    assert "error OML106" in done.stderr  # the open fence: a cut-off answer, retried like any other
    assert "Traceback" not in done.stderr and "RecursionError" not in done.stderr
    assert len(fake_api.requests) == 2
    [session] = session_dirs(project)
    answer = (session / "artifacts" / "cycle-1" / "attempt-1" / "answer.txt").read_text()
    assert answer.count("```yaml\n") == 1_500 and "fence-pw-1" not in answer
    assert all("fence-pw-1" not in body for body in fake_api.bodies)
