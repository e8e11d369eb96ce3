"""One validation finding, and the report of one validation run."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any, Literal

if TYPE_CHECKING:
    from osiris.oml.config import StepConfig
    from osiris.oml.pipeline import Pipeline
    from osiris.oml.values import MutableConfig

Severity = Literal["error", "warning"]


@dataclass(frozen=True)
class Issue:
    """A finding with a stable code (docs/errors.md). `value` is already redacted where it is secret."""

    code: str
    tier: int
    severity: Severity
    path: str  # JSON pointer, e.g. /steps/1/config/port ("" for the whole document)
    message: str  # precise and technical
    hint: str = ""  # how to fix it: allowed values, bounds or the closest valid name
    line: int | None = None  # 1-based
    column: int | None = None  # 1-based
    value: Any = None

    @property
    def is_error(self) -> bool:
        return self.severity == "error"

    def to_dict(self) -> MutableConfig:
        return asdict(self)


@dataclass
class ValidationReport:
    """All issues of one run in stable order, plus what was understood of the pipeline."""

    issues: list[Issue] = field(default_factory=list)
    oml_text: str | None = None  # the canonical pipeline text: the YAML cut from the input, coercions written in
    pipeline: dict[str, Any] | None = None  # the parsed pipeline after safe coercions
    source_text: str | None = None  # the YAML exactly as cut from the input
    coerced: list[Issue] = field(default_factory=list)  # the OML315 coercions written into oml_text
    step_configs: dict[str, StepConfig] = field(default_factory=dict)  # step id -> its effective config
    params: dict[str, dict[str, Any]] = field(default_factory=dict)  # name -> {value, source} (docs/run-again.md)
    step_params: dict[str, list[str]] = field(default_factory=dict)  # step id -> the parameters its config uses
    typed_pipeline: Pipeline | None = None  # a valid pipeline as typed objects (osiris/oml/pipeline.py); else None

    @property
    def normalised(self) -> bool:
        """True when `oml_text` differs from what was written (safe coercions applied)."""
        return bool(self.coerced)

    @property
    def errors(self) -> list[Issue]:
        return [issue for issue in self.issues if issue.is_error]

    @property
    def warnings(self) -> list[Issue]:
        return [issue for issue in self.issues if not issue.is_error]

    @property
    def valid(self) -> bool:
        return not self.errors

    @property
    def error_codes(self) -> list[str]:
        return sorted({issue.code for issue in self.errors})
