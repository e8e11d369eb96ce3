"""One driver module per component family; each exposes `DRIVER`. Imported only when used."""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from osiris.run.driver import Driver

__all__ = ["FAMILIES", "driver_for"]

FAMILIES = ("duckdb", "filesystem", "graphql", "mysql", "postgres", "rest", "supabase")


def driver_for(component: str) -> Driver:
    """The driver of a component's family (`mysql.extractor` -> the mysql driver)."""
    family = component.split(".", 1)[0]
    if family not in FAMILIES:
        raise KeyError(f"no runtime driver for the component family '{family}'")
    module = importlib.import_module(f"osiris.run.drivers.{family}")
    return module.DRIVER  # type: ignore[no-any-return]
