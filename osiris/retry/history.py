"""The chat history sent with each call (ADR 0120).

The last turns go in full (a request and the pipeline, or the question, that answered it). Once
there are more than MAX_TURNS, the oldest are folded FOLD_TURNS at a time into a short list of
their requests, at the top of the first turn kept. So the messages before the cache breakpoint
change once every FOLD_TURNS turns, not on every turn, and the cached prefix keeps being read.
The list holds the requests only (their pipelines are superseded by the latest one), as they were
sent before: scrubbed of secrets when they were typed.
"""

from __future__ import annotations

from collections.abc import Sequence

from osiris.llm.types import Message

MAX_TURNS = 10  # turns sent in full, at most
FOLD_TURNS = 5  # turns folded at once when there are more
MAX_LISTED = 40  # earlier requests listed, at most; older ones are counted
MAX_REQUEST_CHARS = 200
EARLIER_HEAD = "Earlier requests in this chat, oldest first (already done; the pipeline below includes them):"
REQUEST_PREFIX = "Request: "

Turn = tuple[Message, Message]  # (the user's request, the assistant's pipeline or question)


def history_messages(turns: Sequence[Turn]) -> list[Message]:
    """The messages to send before the new one."""
    folded = folded_count(len(turns))
    messages = [message for turn in turns[folded:] for message in turn]
    if folded:
        first = messages[0]
        messages[0] = Message("user", f"{earlier_requests(turns[:folded])}\n\n{first.content}")
    return messages


def folded_count(turns: int) -> int:
    """How many of the oldest turns are folded: 0 up to MAX_TURNS, then in steps of FOLD_TURNS."""
    if turns <= MAX_TURNS:
        return 0
    steps = -(-(turns - MAX_TURNS) // FOLD_TURNS)  # rounded up
    return steps * FOLD_TURNS


def earlier_requests(turns: Sequence[Turn]) -> str:
    requests = [_short(user.content.removeprefix(REQUEST_PREFIX)) for user, _ in turns]
    unlisted = len(requests) - MAX_LISTED
    lines = [EARLIER_HEAD]
    if unlisted > 0:
        lines.append(f"- ({unlisted} older requests not listed)")
        requests = requests[unlisted:]
    lines += [f"- {request}" for request in requests]
    return "\n".join(lines)


def _short(text: str) -> str:
    one_line = " ".join(text.split())
    return one_line if len(one_line) <= MAX_REQUEST_CHARS else one_line[: MAX_REQUEST_CHARS - 1] + "…"
