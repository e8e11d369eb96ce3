"""When a request lacks something (which connection, which table), the chat asks, not guesses.

The engine, opened with `may_ask=True`, ends a cycle with stop_reason `question` when the LLM
answers with a question instead of a pipeline. The person's reply is sent as a request that
carries the original request and the question too, so that it stands on its own: a later `hint`
or `fresh` regenerates from the whole of it, not from the bare answer.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from osiris.retry.result import CycleResult


@dataclass(frozen=True)
class OpenQuestion:
    request: str
    question: str

    @classmethod
    def from_result(cls, result: CycleResult) -> OpenQuestion:
        return cls(result.request, " ".join((result.question or "").split()))

    def with_answer(self, answer: str) -> str:
        """The request to send next: the original one, what was asked, and the answer."""
        return f"{self.request}\n\nYou asked: {self.question}\nMy answer: {answer.strip()}"
