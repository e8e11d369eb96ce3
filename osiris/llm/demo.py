"""The `demo` provider: scripted answers from a file shipped in the package, no network.

It drives the real engine end to end: the first answer has mistakes the validator catches, the
retry prompt goes back, and the next answer validates. Once the script runs out, the last
answer is repeated. Its token counts are the ones written in the script, not real usage.
"""

from __future__ import annotations

from importlib import resources
from typing import Required, TypedDict

import yaml

from osiris.llm.types import LLMReply, LLMRequest, TokenUsage

SCRIPT_FILE = "demo_script.yaml"


class DemoAnswer(TypedDict, total=False):
    """One scripted answer of demo_script.yaml."""

    text: Required[str]
    stop_reason: str
    usage: dict[str, int]


def load_script() -> list[DemoAnswer]:
    """The scripted answers: a list of {text, stop_reason, usage}."""
    text = resources.files("osiris.llm").joinpath(SCRIPT_FILE).read_text(encoding="utf-8")
    answers: list[DemoAnswer] = yaml.safe_load(text)["answers"]
    if not answers:
        raise ValueError(f"{SCRIPT_FILE} has no answers")
    return answers


class DemoProvider:
    """`Provider` that replays the demo script, one answer per call."""

    name = "demo"

    def __init__(self, model: str = "demo", answers: list[DemoAnswer] | None = None) -> None:
        self.model = model
        self._answers = answers if answers is not None else load_script()
        self.calls: list[LLMRequest] = []

    def complete(self, request: LLMRequest) -> LLMReply:
        answer = self._answers[min(len(self.calls), len(self._answers) - 1)]
        self.calls.append(request)
        usage = answer.get("usage", {})
        return LLMReply(
            text=answer["text"],
            stop_reason=answer.get("stop_reason", "end_turn"),
            model=self.model,
            usage=TokenUsage(**{k: int(v) for k, v in usage.items()}),
        )
