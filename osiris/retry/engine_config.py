"""The generation engine's knobs (docs/configuration.md): retries, history, tokens, backoff and
how many retries sample-run failures may use, usually read from the settings."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from osiris.llm.backoff import BackoffPolicy

if TYPE_CHECKING:
    from osiris.settings.model import Settings


@dataclass(frozen=True)
class EngineConfig:
    """The retry knobs of docs/configuration.md, usually from `EngineConfig.from_settings(effective.settings)`."""

    max_attempts: int = 2
    history_limit: int = 3
    max_tokens: int = 4096
    save_failed_oml: bool = True
    backoff: BackoffPolicy = BackoffPolicy()
    may_ask: bool = False  # interactive callers: a prose question ends the cycle instead of a retry
    dry_run_attempts: int = 2  # how many of the retries sample-run failures may use

    @classmethod
    def from_settings(cls, settings: Settings, *, may_ask: bool = False) -> EngineConfig:
        return cls(
            may_ask=may_ask,
            max_attempts=settings.validation.retry.max_attempts,
            history_limit=settings.validation.retry.history_limit,
            dry_run_attempts=settings.validation.retry.dry_run_attempts,
            max_tokens=settings.llm.max_tokens,
            save_failed_oml=settings.sessions.save_failed_oml,
            backoff=BackoffPolicy(retries=settings.llm.api_retries),
        )
