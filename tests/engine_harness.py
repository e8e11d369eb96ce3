"""Build a real engine (real SDK, real validator, real session files) against the fake server."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from osiris.retry import GenerationEngine, open_engine
from osiris.settings import load_settings
from tests.conftest import TEST_API_KEY


@dataclass
class Harness:
    engine: GenerationEngine
    progress: list[Any] = field(default_factory=list)
    sleeps: list[float] = field(default_factory=list)

    @property
    def session_path(self) -> Path:
        return self.engine.session.path

    def events(self, event_type: str | None = None) -> list[dict[str, Any]]:
        lines = (self.session_path / "events.jsonl").read_text().splitlines()
        events = [json.loads(line) for line in lines]
        return [e for e in events if event_type is None or e["event_type"] == event_type]


def make_engine(
    project: Path, *, cli: dict[str, Any] | None = None, env: dict[str, str] | None = None, may_ask: bool = False
) -> Harness:
    environment = {"ANTHROPIC_API_KEY": TEST_API_KEY, **(env or {})}
    effective = load_settings(cli=cli, cwd=project, env=environment)
    harness = Harness(engine=None)  # type: ignore[arg-type]
    harness.engine = open_engine(
        effective, command="test", observer=harness.progress.append, sleep=harness.sleeps.append, may_ask=may_ask
    )
    return harness
