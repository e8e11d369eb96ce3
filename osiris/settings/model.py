"""The settings schema of docs/configuration.md: names, types, bounds and defaults, as plain frozen dataclasses.

Plain dataclasses, so that reading valid settings imports nothing heavy (ADR 0126). The bounds
live in each field's metadata (`ge`, `gt`, `le`, `min_length`, `strict`), which pydantic reads as
`Field(...)` arguments when it is asked to explain a value the quick path refused.
"""

from dataclasses import dataclass, field
from typing import Any, Literal, TypeVar

DEFAULT_MODEL = "claude-sonnet-5-5"
# pydantic's options for these dataclasses, as a plain dict (no import needed): unknown keys are errors.
FORBID_UNKNOWN_KEYS = {"extra": "forbid"}


_Whole = TypeVar("_Whole", bound=int | None)


def _whole(default: _Whole, **bounds: int) -> _Whole:
    """A whole-number field: `strict` so that YAML's `yes` never quietly becomes 1."""
    return field(default=default, metadata={**bounds, "strict": True})


def _number(default: float, **bounds: float) -> float:
    return field(default=default, metadata=bounds)


@dataclass(frozen=True)
class LLMSettings:
    __pydantic_config__ = FORBID_UNKNOWN_KEYS

    provider: Literal["anthropic", "openai", "demo"] = "anthropic"  # openai: any OpenAI-compatible API
    model: str = field(default=DEFAULT_MODEL, metadata={"min_length": 1})
    base_url: str | None = None  # None: the SDK's default, which honours ANTHROPIC_BASE_URL (OPENAI_BASE_URL)
    max_tokens: int = _whole(4096, ge=1, le=128_000)
    timeout_seconds: float = _number(60.0, gt=0, le=3600)  # each network read
    request_deadline_seconds: float = _number(300.0, gt=0, le=3600)  # a whole answer, streamed
    api_retries: int = _whole(3, ge=0, le=10)
    catalog_budget_tokens: int = _whole(3000, ge=500, le=100_000)  # component catalogue of the system prompt
    max_session_tokens: int | None = _whole(None, ge=1)  # spending caps (input + output + cache); None: none
    max_cycle_tokens: int | None = _whole(None, ge=1)


@dataclass(frozen=True)
class RetrySettings:
    __pydantic_config__ = FORBID_UNKNOWN_KEYS

    max_attempts: int = _whole(2, ge=0, le=5)
    history_limit: int = _whole(3, ge=1, le=20)
    dry_run_attempts: int = _whole(2, ge=0, le=5)  # how many of max_attempts sample-run failures may use (docs/sample-run.md)


@dataclass(frozen=True)
class Rule:
    """A user rule checked in tier 4 (docs/validate.md, OML404)."""

    __pydantic_config__ = FORBID_UNKNOWN_KEYS

    name: str
    expr: str
    when: str | None = None
    level: Literal["error", "warning"] = "error"
    message: str | None = None


@dataclass(frozen=True)
class ValidationSettings:
    __pydantic_config__ = FORBID_UNKNOWN_KEYS

    retry: RetrySettings = field(default_factory=RetrySettings)
    # off | ask | sample: test a valid pipeline on sample rows (docs/sample-run.md). `ask` asks once
    # per chat session; `generate` asks nothing, so there `ask` means off. YAML's bare `off` is read
    # as the word (osiris.settings.loader).
    dry_run: Literal["off", "ask", "sample"] = "ask"
    sample_rows: int = _whole(10, ge=1, le=100_000)
    # a sample run's deadline (--sample, the sample run, MCP run_sample): its query is interrupted, OML532
    dry_run_timeout_seconds: float = _number(60.0, gt=0, le=86_400)
    rules: list[Rule] = field(default_factory=list)


@dataclass(frozen=True)
class SessionSettings:
    __pydantic_config__ = FORBID_UNKNOWN_KEYS

    dir: str = ".osiris/sessions"
    save_failed_oml: bool = True
    save_samples: bool = False  # true: sample-run rows are kept in the session (may be personal data)


@dataclass(frozen=True)
class ComponentSettings:
    __pydantic_config__ = FORBID_UNKNOWN_KEYS

    paths: list[str] = field(default_factory=lambda: ["components"])


@dataclass(frozen=True)
class CatalogSettings:
    """The schema catalog of `osiris discover` (docs/discover.md)."""

    __pydantic_config__ = FORBID_UNKNOWN_KEYS

    max_age_days: float = _number(7.0, gt=0, le=3650)  # older catalogs turn OML406 into a warning
    prompt_tokens: int = _whole(2000, ge=0, le=100_000)  # schema budget of a request prompt; 0: none


@dataclass(frozen=True)
class SparkSettings:
    """Where `osiris run --engine spark` runs (docs/spark.md)."""

    __pydantic_config__ = FORBID_UNKNOWN_KEYS

    master: str = field(default="local[*]", metadata={"min_length": 1})  # local[N], spark://, yarn, k8s://
    conf: dict[str, str] = field(default_factory=dict)  # extra Spark properties, e.g. spark.executor.memory
    jars: list[str] = field(default_factory=list)  # extra jars besides the JDBC drivers found on the machine


@dataclass(frozen=True)
class RunSettings:
    """`osiris run`'s engine: the embedded DuckDB (default) or Apache Spark (docs/run.md, docs/spark.md)."""

    __pydantic_config__ = FORBID_UNKNOWN_KEYS

    engine: Literal["duckdb", "spark"] = "duckdb"
    # a full run's deadline (OML532, exit 6); None: none (docs/security.md, "Every run ends")
    timeout_seconds: float | None = field(default=None, metadata={"gt": 0, "le": 31_536_000})
    # the engine's DuckDB (osiris.settings.resources): None is the machine's cores, a quarter of its memory
    threads: int | None = _whole(None, ge=1, le=1024)
    memory_limit: str | None = None  # '2GB', '512MB': beyond it DuckDB spills to the run's scratch
    spark: SparkSettings = field(default_factory=SparkSettings)


# family -> alias -> fields, e.g. {"mysql": {"default": {"host": ..., "password": "${MYSQL_PASSWORD}"}}}
Connections = dict[str, dict[str, dict[str, Any]]]


@dataclass(frozen=True)
class Settings:
    """All of Osiris's settings. Build them with `osiris.settings.load_settings`, which knows sources."""

    __pydantic_config__ = FORBID_UNKNOWN_KEYS

    llm: LLMSettings = field(default_factory=LLMSettings)
    validation: ValidationSettings = field(default_factory=ValidationSettings)
    sessions: SessionSettings = field(default_factory=SessionSettings)
    components: ComponentSettings = field(default_factory=ComponentSettings)
    catalog: CatalogSettings = field(default_factory=CatalogSettings)
    run: RunSettings = field(default_factory=RunSettings)
    connections: Connections = field(default_factory=dict)
