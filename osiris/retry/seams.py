"""The seams of the retry loop: what the engine needs of a validator, typed as Protocols so that
tests can pass a stand-in and mypy still checks every real caller (ADR 0115)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from osiris.registry import Registry
    from osiris.validate.connections import Connections
    from osiris.validate.issue import ValidationReport


class PipelineValidator(Protocol):
    """Checks OML text; `osiris.validate.Validator` is the real one."""

    registry: Registry
    connections: Connections

    def validate(self, text: str, *, truncated: bool = False) -> ValidationReport: ...
