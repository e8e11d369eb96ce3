"""A driver test's step config as the engine hands it over: the component spec's defaults merged under
what the test writes (osiris.oml.config.StepConfig.merged, as validation and the engine do)."""

from __future__ import annotations

import functools
from typing import Any

from osiris.oml.config import StepConfig
from osiris.registry.registry import Registry, load_registry


@functools.cache
def _registry() -> Registry:
    return load_registry()


def effective(component: str, config: dict[str, Any]) -> dict[str, Any]:
    """`config` over `component`'s spec defaults: what `ctx.config` is when the engine runs the step."""
    spec = _registry().get(component)
    defaults = {k: v for k, v in spec.defaults.items() if k not in config} if spec else {}
    return dict(StepConfig(config, defaults).merged(config))
