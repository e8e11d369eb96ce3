"""A step's effective config: what validation worked out and the runtime runs with (docs/architecture.md,
"Where each rule lives"). Drivers read defaults from here, that is from the spec, never from code.

    report = validator.validate(text)
    effective = report.step_configs["extract-customers"]
    ctx_config = effective.merged(resolved)   # resolved: the step's config over its connection, ${ENV} resolved

Precedence, low to high: the spec's defaults < the connection's fields < the step's own config.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from osiris.oml.values import Config, MutableConfig


@dataclass(frozen=True)
class StepConfig:
    """One step's config after validation: `config` as written, aliases renamed and values coerced
    (the connection reference kept); `defaults` the spec's defaults for the fields it leaves out."""

    config: Config
    defaults: Config = field(default_factory=dict)

    def merged(self, resolved: Config) -> MutableConfig:
        """The config a driver runs with: the defaults under `resolved` (the step's config merged
        over its connection's fields, `${ENV}` resolved)."""
        return {**self.defaults, **resolved}
