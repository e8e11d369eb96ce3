"""When a request lacks something (which connection, which table), the chat asks, not guesses.

The engine ends a cycle with stop_reason `question` when the first answer only asks something
(`EngineConfig.allow_questions`). The person's reply goes back with the request and the question,
so the next generation has all three.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

CHAT_RULES = """\
This is an interactive chat: the person can answer questions. When the request leaves open
something you cannot settle from the configured connections or the request itself (which
connection, which table or file, which columns), do not guess: reply with one short question
and no YAML. When you do have what you need, answer with the pipeline as usual."""


@dataclass(frozen=True)
class OpenQuestion:
    request: str
    question: str

    def with_answer(self, answer: str) -> str:
        """The request to send next: the original one, what was asked, and the answer."""
        return f"{self.request}\n\nYou asked: {self.question}\nMy answer: {answer.strip()}"


def with_chat_rules(system_prompt: Any) -> Any:
    """The engine's system prompt with the chat rules added to its per-session part."""
    from dataclasses import replace

    dynamic = "\n\n".join(part for part in (system_prompt.dynamic, CHAT_RULES) if part)
    return replace(system_prompt, dynamic=dynamic)


def question_text(result: Any) -> str:
    """The question the LLM asked, as one tidy paragraph."""
    return " ".join(result.last.answer.split())
