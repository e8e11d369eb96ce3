"""The seams of the retry loop: what the engine needs of a validator and of the sample tier, typed as
Protocols so that tests can pass a stand-in and mypy still checks every real caller (ADR 0115), and
so that the engine depends on nothing that depends on it back (docs/architecture.md, "Layers")."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from osiris.oml.config import StepConfig
    from osiris.oml.values import Config
    from osiris.registry import Registry
    from osiris.sample.sample_run import SampleRun
    from osiris.validate.connections import Connections
    from osiris.validate.issue import ValidationReport


class PipelineValidator(Protocol):
    """Checks OML text; `osiris.validate.Validator` is the real one."""

    registry: Registry
    connections: Connections

    def validate(self, text: str, *, truncated: bool = False) -> ValidationReport: ...


class SampleTester(Protocol):
    """Runs a valid pipeline on sample rows (the sample run); `osiris.sample.tier.SampleTier` is the real one."""

    @property
    def rows(self) -> int: ...

    def wants(self, pipeline: Config) -> bool: ...

    def test(self, pipeline: Config, step_configs: Mapping[str, StepConfig], *, cycle: int,
             attempt: int, where: str, pipeline_sha256: str = "", params: Mapping[str, Config] | None = None,
             step_params: Mapping[str, Sequence[str]] | None = None) -> SampleRun: ...

    def last_time(self, dry_run: SampleRun | None, pipeline: Config | None) -> str | None: ...
