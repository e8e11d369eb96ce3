"""The runtime's registry: which driver runs each component. One driver module per component
family (`osiris.run.drivers.<family>`), each exposing `DRIVER`, imported only when used.

A component is run only when it is listed here: a spec added under `components.paths` validates,
but `osiris run` stops at its step with OML516 instead of guessing a driver from its family name.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

from osiris.run.driver import RuntimeProblem
from osiris.suggest import listing

if TYPE_CHECKING:
    from osiris.run.driver import Driver

__all__ = ["COMPONENTS", "FAMILIES", "driver_for", "family_driver", "has_driver"]

COMPONENTS: dict[str, str] = {  # component -> the family module whose DRIVER runs it
    "duckdb.processor": "duckdb",
    "filesystem.csv_extractor": "filesystem",
    "filesystem.csv_writer": "filesystem",
    "graphql.extractor": "graphql",
    "mysql.extractor": "mysql",
    "mysql.writer": "mysql",
    "postgres.extractor": "postgres",
    "postgres.writer": "postgres",
    "posthog.extractor": "posthog",
    "rest.extractor": "rest",
    "supabase.extractor": "supabase",
    "supabase.writer": "supabase",
}
FAMILIES = tuple(sorted(set(COMPONENTS.values())))


def has_driver(component: str) -> bool:
    return component in COMPONENTS


def driver_for(component: str) -> Driver:
    """The driver that runs `component`; OML516 when there is none."""
    if component not in COMPONENTS:
        raise RuntimeProblem(
            "OML516", f"no runtime driver for the component {component}",
            f"its spec validates, but osiris run can run only: {listing(list(COMPONENTS))}", value=component)
    return family_driver(COMPONENTS[component])


def family_driver(family: str) -> Driver:
    """The driver of a component family (`osiris discover @family.alias`); KeyError when there is none."""
    if family not in FAMILIES:
        raise KeyError(f"no runtime driver for the component family '{family}'")
    module = importlib.import_module(f"osiris.run.drivers.{family}")
    return module.DRIVER  # type: ignore[no-any-return]
