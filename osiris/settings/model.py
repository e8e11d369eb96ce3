"""The settings schema of SPEC §6: names, types, bounds and defaults."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field

DEFAULT_MODEL = "claude-sonnet-5-5"


def _not_a_bool(value: Any) -> Any:
    """YAML's `yes`/`true` must not quietly become 1."""
    if isinstance(value, bool):
        raise ValueError("expected a whole number, not true/false")
    return value


Count = Annotated[int, BeforeValidator(_not_a_bool)]


class _Section(BaseModel):
    model_config = ConfigDict(extra="forbid")


class LLMSettings(_Section):
    provider: Literal["anthropic", "demo"] = "anthropic"
    model: str = Field(DEFAULT_MODEL, min_length=1)
    base_url: str | None = None  # None: the SDK's default, which honours ANTHROPIC_BASE_URL
    max_tokens: Count = Field(4096, ge=1, le=128_000)
    timeout_seconds: float = Field(60, gt=0, le=3600)  # each network read
    request_deadline_seconds: float = Field(300, gt=0, le=3600)  # a whole answer, streamed
    api_retries: Count = Field(3, ge=0, le=10)
    catalog_budget_tokens: Count = Field(3000, ge=500, le=100_000)  # component catalogue of the system prompt
    max_session_tokens: Count | None = Field(None, ge=1)  # spending caps (input + output + cache); None: none
    max_cycle_tokens: Count | None = Field(None, ge=1)


class RetrySettings(_Section):
    max_attempts: Count = Field(2, ge=0, le=5)
    history_limit: Count = Field(3, ge=1, le=20)
    dry_run_attempts: Count = Field(1, ge=0, le=5)  # how many of max_attempts sample-run failures may use


class Rule(_Section):
    """A user rule checked in tier 4 (SPEC §4, OML404)."""

    name: str
    expr: str
    when: str | None = None
    level: Literal["error", "warning"] = "error"
    message: str | None = None


def _off_is_off(value: Any) -> Any:
    """YAML 1.1 reads a bare `off` as false (and `on` as true): take them as the words written."""
    if isinstance(value, bool):
        return "sample" if value else "off"
    return value


DryRunMode = Annotated[Literal["off", "ask", "sample"], BeforeValidator(_off_is_off)]


class ValidationSettings(_Section):
    retry: RetrySettings = RetrySettings()
    # off | ask | sample: test a valid pipeline on sample rows (docs/dry-run.md). `ask` asks once
    # per chat session; `generate` asks nothing, so there `ask` means off.
    dry_run: DryRunMode = "ask"
    sample_rows: Count = Field(10, ge=1, le=100_000)
    rules: list[Rule] = []


class SessionSettings(_Section):
    dir: str = ".osiris/sessions"
    save_failed_oml: bool = True
    save_samples: bool = False  # true: sample-run rows are kept in the session (may be personal data)


class ComponentSettings(_Section):
    paths: list[str] = ["components"]


class CatalogSettings(_Section):
    """The schema catalog of `osiris discover` (docs/discover.md)."""

    max_age_days: float = Field(7, gt=0, le=3650)  # older catalogs turn OML406 into a warning
    prompt_tokens: Count = Field(2000, ge=0, le=100_000)  # schema budget of a request prompt; 0: none


# family -> alias -> fields, e.g. {"mysql": {"default": {"host": ..., "password": "${MYSQL_PASSWORD}"}}}
Connections = dict[str, dict[str, dict[str, Any]]]


class Settings(_Section):
    """All of Osiris's settings. Build it with `osiris.settings.load_settings`, which knows sources.

    A plain pydantic model: the environment layer is read by `osiris.settings.env` (ADR 0055).
    """

    llm: LLMSettings = LLMSettings()
    validation: ValidationSettings = ValidationSettings()
    sessions: SessionSettings = SessionSettings()
    components: ComponentSettings = ComponentSettings()
    catalog: CatalogSettings = CatalogSettings()
    connections: Connections = {}
