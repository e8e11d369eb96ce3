"""A project for the sample-tier tests: real database connections (passwords from `${ENV}`), the
LLM pointed at the fake Messages API, and helpers to read a generation session's trail."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import yaml

from tests.conftest import TEST_API_KEY
from tests.inprocess import run_inprocess
from tests.run_helpers import RunProject
from tests.support import clean_env
from tests.support import run_osiris as _run_osiris


class SampleProject(RunProject):
    def __init__(self, root: Path, fake_api: Any, postgres: Any = None, mariadb: Any = None,
                 **settings: Any) -> None:
        super().__init__(root, postgres=postgres, mariadb=mariadb)
        config = yaml.safe_load((root / ".osiris.yaml").read_text(encoding="utf-8"))
        config["llm"] = {"base_url": fake_api.url, "timeout_seconds": 10}
        for key, value in settings.items():
            config[key] = value
        (root / ".osiris.yaml").write_text(yaml.safe_dump(config, sort_keys=False), encoding="utf-8")
        self.secrets.append(TEST_API_KEY)

    def osiris(self, *args: str, env: dict[str, str] | None = None, process: bool = False
               ) -> subprocess.CompletedProcess[str]:
        """`osiris ARGS` in the project: in-process (tests/inprocess.py) unless `process` asks for a
        real child (what only a process shows)."""
        merged = clean_env(ANTHROPIC_API_KEY=TEST_API_KEY, **{**self.env, **(env or {})})
        runner = _run_osiris if process else run_inprocess
        result = runner(*args, cwd=self.root, env=merged, timeout=120)
        self.assert_no_secrets(result.stdout + result.stderr)
        return result

    def attempt_file(self, cycle: int, attempt: int, name: str) -> Any:
        path = self.last_session() / "artifacts" / f"cycle-{cycle}" / f"attempt-{attempt}" / name
        return json.loads(path.read_text(encoding="utf-8")) if name.endswith(".json") else path.read_text()

    def trail(self, cycle: int = 1) -> dict[str, Any]:
        path = self.last_session() / "artifacts" / f"cycle-{cycle}" / "retry_trail.json"
        return json.loads(path.read_text(encoding="utf-8"))


def pipeline(*steps: dict[str, Any], name: str = "sample-test") -> str:
    """An LLM answer holding this pipeline."""
    body = yaml.safe_dump({"oml_version": "0.1.0", "name": name, "steps": list(steps)}, sort_keys=False)
    return f"Here is the pipeline:\n\n```yaml\n{body}```\n"


def chat_typing(project: Path, fake_api: Any, typed: str, **env: str) -> subprocess.CompletedProcess[str]:
    """`osiris chat` in `project` on a pipe (in-process, tests/inprocess.py), `typed` its input lines,
    the model answering one valid pipeline; `env`: the connections' secrets."""
    from tests.conftest import cli_env
    from tests.engine_samples import VALID, fenced
    from tests.fake_anthropic import Reply

    fake_api.add(Reply(fenced(VALID)))
    return run_inprocess("chat", cwd=project, env=cli_env(ANTHROPIC_API_KEY=TEST_API_KEY, **env), input=typed)


def last_user_message(request: Any) -> str:
    """The text of the last user message of a recorded Messages API request."""
    content = request.body["messages"][-1]["content"]
    return content if isinstance(content, str) else "".join(block.get("text", "") for block in content)


def request_text(body: dict[str, Any]) -> str:
    """Every message's text in a recorded Messages API request body: what a model was told."""
    return "".join(block.get("text", "") for message in body["messages"] for block in
                   (message["content"] if isinstance(message["content"], list) else [{"text": message["content"]}]))


def read_pick_write(read: dict[str, Any], select: str) -> str:
    """An LLM answer: the step `read` (id fetch-tickets), a duckdb.processor running `select` on it,
    and a CSV writer of output/tickets.csv."""
    return pipeline(
        {"id": "fetch-tickets", "mode": "read", **read},
        {"id": "pick", "component": "duckdb.processor", "mode": "transform", "needs": ["fetch-tickets"],
         "config": {"query": select}},
        {"id": "write", "component": "filesystem.csv_writer", "mode": "write", "needs": ["pick"],
         "config": {"path": "output/tickets.csv"}}, name="helpdesk-tickets")


def generated_at_first_attempt(proj: SampleProject, fake_api: Any, request: str,
                               never: list[str]) -> subprocess.CompletedProcess[str]:
    """`generate REQUEST --dry-run`: one request to the model, whose pipeline's sample run passed;
    no value of `never` in any file of the project's .osiris folder (catalog, sessions)."""
    done = proj.osiris("generate", request, "--dry-run")
    assert done.returncode == 0, done.stderr
    assert len(fake_api.requests) == 1  # the sample run passed at the first attempt
    assert "osiris: attempt 1: ran on 10 sample rows a source (3 steps ok" in done.stderr
    assert proj.attempt_file(1, 1, "dry_run.json")["status"] == "passed"
    files = [p for p in (proj.root / ".osiris").rglob("*") if p.is_file()]
    for value in never:
        assert not [p for p in files if value in p.read_text(encoding="utf-8", errors="replace")], value
    return done
