"""Spending caps (`llm.max_session_tokens`, `llm.max_cycle_tokens`): a call that would take the
session or the cycle past its cap is not made.

Tokens are counted as the provider reports them, every kind alike: fresh input, output, cache
writes and cache reads. Before each call the check adds the tokens already spent to the call's
input, estimated at 4 characters a token; its output is known only afterwards, so a cycle can end
at most one answer past its cap. A cap reached before a cycle's first call raises
`SpendingCapReached`; one reached before a retry ends the cycle with `stop_reason: budget`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from osiris.errors import PipelineInvalidError
from osiris.session import Session, events

if TYPE_CHECKING:
    from osiris.retry.result import Attempt
    from osiris.settings.model import Settings

CHARS_PER_TOKEN = 4


class SpendingCapReached(PipelineInvalidError):
    """No call was made in this cycle: the first one would already pass a cap (exit code 1)."""

    stop_reason = "budget"


@dataclass(frozen=True)
class SpendingCap:
    max_session_tokens: int | None = None
    max_cycle_tokens: int | None = None

    @classmethod
    def from_settings(cls, settings: Settings) -> SpendingCap:
        return cls(settings.llm.max_session_tokens, settings.llm.max_cycle_tokens)

    def overrun(self, session_spent: int, cycle_spent: int, next_call: int) -> str | None:
        """Why the next call may not be made, in one line; None when it may."""
        for key, cap, spent in (("llm.max_cycle_tokens", self.max_cycle_tokens, cycle_spent),
                                ("llm.max_session_tokens", self.max_session_tokens, session_spent)):
            if cap is not None and spent + next_call > cap:
                scope = key.split("_")[1]  # cycle | session
                return (f"spending cap reached: the next LLM call would take this {scope} past {key} = {cap:,} "
                        f"({spent:,} tokens spent, about {next_call:,} more to send)")
        return None


def spent(usage: Mapping[str, int]) -> int:
    """Every token of a usage record (input, output, cache write, cache read)."""
    return sum(int(usage.get(kind, 0)) for kind in ("input", "output", "cache_write", "cache_read"))


def estimated_input(system: Iterable[str], messages: Iterable[str], prompt: str) -> int:
    return sum(len(text) for text in (*system, *messages, prompt)) // CHARS_PER_TOKEN


def stop_before_call(cap: SpendingCap, session: Session, sent_along: Iterable[str], attempts: Sequence[Attempt],
                     prompt: str) -> str | None:
    """Why the engine must not make its next call, or None when it may. `sent_along`: the system
    prompt and history texts that go with `prompt`; `attempts`: the cycle's so far. A reason is
    also a `spending_cap_reached` event; raises SpendingCapReached when no call was made yet."""
    if cap.max_session_tokens is None and cap.max_cycle_tokens is None:
        return None
    next_call = estimated_input(sent_along, (), prompt)
    session_spent = spent(session.totals.tokens)
    cycle_spent = sum(spent(attempt.usage.to_dict()) for attempt in attempts)
    reason = cap.overrun(session_spent, cycle_spent, next_call)
    if reason is None:
        return None
    session.emit(events.SpendingCapReached(
        reason=reason, session_tokens=session_spent, cycle_tokens=cycle_spent, next_call_tokens=next_call,
        max_session_tokens=cap.max_session_tokens, max_cycle_tokens=cap.max_cycle_tokens))
    if not attempts:
        raise SpendingCapReached(reason)
    return reason
