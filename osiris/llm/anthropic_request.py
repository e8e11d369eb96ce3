"""The `system` and `messages` parameters of a Messages API call, with two cache breakpoints.

1. The stable system block (rules and catalogue, the same for chat and generate) ends the first
   cached prefix; the per-session block (may-ask wording, connections) follows it uncached.
2. The last message of the history (every message but the new one) ends the second: each turn of a
   chat, and each retry within a turn, reads the earlier turns from the cache instead of paying for
   them again. Anthropic allows four breakpoints; a prefix too short to cache is simply not cached.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from osiris.llm.types import LLMRequest

if TYPE_CHECKING:
    from anthropic.types import CacheControlEphemeralParam, MessageParam, TextBlockParam

    from osiris.llm.types import Role

EPHEMERAL: CacheControlEphemeralParam = {"type": "ephemeral"}


def system_blocks(request: LLMRequest) -> list[TextBlockParam]:
    blocks: list[TextBlockParam] = [{"type": "text", "text": request.system_stable, "cache_control": EPHEMERAL}]
    if request.system_dynamic:
        blocks.append({"type": "text", "text": request.system_dynamic})
    return blocks


def message_params(request: LLMRequest) -> list[MessageParam]:
    """Plain messages, except the last one of the history, which carries the breakpoint."""
    messages = [_message(m.role, m.content) for m in request.messages]
    if len(messages) >= 2:
        last = request.messages[-2]
        messages[-2] = _message(last.role, [{"type": "text", "text": last.content, "cache_control": EPHEMERAL}])
    return messages


def _message(role: Role, content: str | list[TextBlockParam]) -> MessageParam:
    if role == "user":
        return {"role": "user", "content": content}
    return {"role": "assistant", "content": content}
