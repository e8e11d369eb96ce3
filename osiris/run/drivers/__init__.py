"""The runtime's registry: which driver runs each component, and what each family is.

One module per component family (`osiris.run.drivers.<family>`), exposing `DRIVER` and `FAMILY`
(osiris.families.Family: its components, title, dialect, whether it can be discovered, ...).
Nothing else lists families: a new one is its module and its specs (docs/architecture.md).
The lookup by name lives in `osiris.families`, below every package that needs it.
A module is imported only when a pipeline, a command or a lookup needs its family, so `osiris run`
pays for psycopg or PyMySQL only when it uses them (they are imported inside the drivers' functions).

A component is run only when its family's `FAMILY.components` lists it: a spec added under
`components.paths` validates, but `osiris run` stops at its step with OML516 instead of guessing.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from osiris.families import _module, discovers_endpoints, families, family
from osiris.problems import no_driver_problem

if TYPE_CHECKING:
    from osiris.run.driver import Driver

__all__ = ["components", "discovers_endpoints", "driver_for", "families", "family", "family_driver", "has_driver"]


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
