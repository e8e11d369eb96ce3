"""What goes into an LLM call and what comes back, independent of the provider."""

from __future__ import annotations

from dataclasses import asdict, astuple, dataclass, field
from typing import Literal, Protocol

Role = Literal["user", "assistant"]


@dataclass(frozen=True)
class Message:
    role: Role
    content: str


@dataclass(frozen=True)
class LLMRequest:
    """One call: a stable system part (cacheable), a per-session part, and the messages."""

    system_stable: str
    system_dynamic: str
    messages: list[Message]
    max_tokens: int


@dataclass
class TokenUsage:
    """The provider's own counts. `input` excludes cache reads and cache writes, as Anthropic bills."""

    input: int = 0
    output: int = 0
    cache_write: int = 0
    cache_read: int = 0

    def __add__(self, other: TokenUsage) -> TokenUsage:
        return self._combined(other, 1)

    def __sub__(self, other: TokenUsage) -> TokenUsage:
        return self._combined(other, -1)

    def _combined(self, other: TokenUsage, sign: int) -> TokenUsage:
        return TokenUsage(*(mine + sign * theirs for mine, theirs in zip(astuple(self), astuple(other))))

    def to_dict(self) -> dict[str, int]:
        return asdict(self)

    def describe(self) -> str:
        """E.g. '1,204 in, 310 out, 2,048 cache read, 0 cache write': every figure, counted once."""
        return (
            f"{self.input:,} in, {self.output:,} out, "
            f"{self.cache_read:,} cache read, {self.cache_write:,} cache write"
        )


@dataclass
class LLMReply:
    """The answer text, why the model stopped (`end_turn`, `max_tokens`, ...), usage and timing."""

    text: str
    stop_reason: str | None
    model: str
    usage: TokenUsage = field(default_factory=TokenUsage)
    duration_ms: float = 0.0

    @property
    def truncated(self) -> bool:
        return self.stop_reason == "max_tokens"


class Provider(Protocol):
    """Anything that turns an `LLMRequest` into an `LLMReply`.

    Raises `osiris.llm.errors.LLMServiceError` for service failures; it never retries by itself.
    """

    name: str
    model: str

    def complete(self, request: LLMRequest) -> LLMReply: ...
