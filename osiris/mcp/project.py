"""The project an `osiris mcp` server serves: its settings, validator and redactor, loaded once when
the server starts, as one CLI command loads them (docs/mcp.md)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from osiris.registry import Registry
    from osiris.secrets.redact import Redactor
    from osiris.settings.loader import EffectiveSettings
    from osiris.validate.issue import ValidationReport
    from osiris.validate.validator import Validator


@dataclass
class Project:
    effective: EffectiveSettings
    validator: Validator
    redactor: Redactor

    @classmethod
    def load(cls, config_path: str | None = None) -> Project:
        """The nearest `.osiris.yaml` (or `config_path`): SettingsError, before the server starts,
        when a setting is bad, and UsageError when there is no settings file at all: an assistant
        may start the server in any folder (Claude Desktop starts it in /), and the project is the
        boundary of what the tools may touch."""
        from osiris.errors import UsageError
        from osiris.trust.redactor import build_redactor
        from osiris.settings import load_settings
        from osiris.validate import load_validator

        effective = load_settings(config_path=config_path)
        if effective.config_path is None:
            raise UsageError("osiris mcp serves one project and found no .osiris.yaml here or above; run it in "
                             "the project folder (osiris init writes one), or pass --config PATH/.osiris.yaml")
        validator = load_validator(effective)
        return cls(effective, validator, build_redactor(effective, None, validator.registry))

    @property
    def root(self) -> Path:
        return self.effective.project_root

    @property
    def registry(self) -> Registry:
        return self.validator.registry

    def validate(self, text: str) -> ValidationReport:
        """Validate OML text; a secret the pipeline holds inline is masked from then on, wherever
        a result or the trail repeats it (as `osiris validate` does)."""
        report = self.validator.validate(text)
        if report.pipeline is not None:
            self.redactor.learn_from(report.pipeline, self.registry.secret_paths(report.pipeline))
        return report
