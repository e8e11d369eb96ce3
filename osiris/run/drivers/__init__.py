"""The runtime's registry: which driver runs each component, and what each family is.

One module per component family (`osiris.run.drivers.<family>`), exposing `DRIVER` and `FAMILY`
(osiris.run.driver.Family: its components, title, dialect, whether it can be discovered, ...).
Nothing else lists families: a new one is its module and its specs (docs/architecture.md).
A module is imported only when a pipeline, a command or a lookup needs its family, so `osiris run`
pays for psycopg or PyMySQL only when it uses them (they are imported inside the drivers' functions).

A component is run only when its family's `FAMILY.components` lists it: a spec added under
`components.paths` validates, but `osiris run` stops at its step with OML516 instead of guessing.
"""

from __future__ import annotations

import functools
import importlib
import importlib.util
import pkgutil
from types import ModuleType
from typing import TYPE_CHECKING

from osiris.run.problems import no_driver_problem

if TYPE_CHECKING:
    from osiris.run.driver import Driver, Family

__all__ = ["components", "discovers_endpoints", "driver_for", "families", "family", "family_driver", "has_driver"]


def family(name: str) -> Family | None:
    """The facts of the family `name`, or None when no driver module declares it."""
    module = _module(name)
    found = getattr(module, "FAMILY", None) if module is not None else None
    return found if found is not None and found.name == name else None


@functools.cache
def families() -> dict[str, Family]:
    """Every family with a driver, by name (imports each driver module once)."""
    found = (family(info.name) for info in pkgutil.iter_modules(__path__))
    return {f.name: f for f in sorted((f for f in found if f is not None), key=lambda f: f.name)}


def discovers_endpoints(name: str) -> bool:
    """A family `osiris discover` reads by endpoint path (`@rest.alias /customers`), not by table."""
    facts = family(name)
    return facts is not None and facts.discovers == "endpoints"


def components() -> list[str]:
    """Every component `osiris run` can run, sorted."""
    return sorted(c for f in families().values() for c in f.components)


def has_driver(component: str) -> bool:
    facts = family(component.split(".", 1)[0])
    return facts is not None and component in facts.components


def driver_for(component: str) -> Driver:
    """The driver that runs `component`; OML516 when there is none."""
    if not has_driver(component):
        raise no_driver_problem(component, components())
    return family_driver(component.split(".", 1)[0])


def family_driver(name: str) -> Driver:
    """The driver of a component family (`osiris discover @family.alias`); KeyError when there is none."""
    if family(name) is None:
        raise KeyError(f"no runtime driver for the component family '{name}'")
    return _module(name).DRIVER  # type: ignore[union-attr, no-any-return]  # family() found the module


def _module(name: str) -> ModuleType | None:
    if not name.isidentifier() or importlib.util.find_spec(f"{__name__}.{name}") is None:
        return None
    return importlib.import_module(f"{__name__}.{name}")
