"""A project for the sample-tier tests: real database connections (passwords from `${ENV}`), the
LLM pointed at the fake Messages API, and helpers to read a generation session's trail."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import yaml

from tests.conftest import TEST_API_KEY
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

    def osiris(self, *args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
        merged = clean_env(ANTHROPIC_API_KEY=TEST_API_KEY, **{**self.env, **(env or {})})
        result = _run_osiris(*args, cwd=self.root, env=merged, timeout=120)
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


def last_user_message(request: Any) -> str:
    """The text of the last user message of a recorded Messages API request."""
    content = request.body["messages"][-1]["content"]
    return content if isinstance(content, str) else "".join(block.get("text", "") for block in content)
