"""The registry's component names for one OML mode, indexed once per registry for unknown-component hints
(a pipeline of many steps with a wrong component must not scan the registry once a step)."""

from __future__ import annotations

import weakref
from dataclasses import dataclass, field

from osiris.registry import Registry
from osiris.suggest import NameIndex
from osiris.validate.structure import OML_MODES


@dataclass
class ComponentNames:
    """The components that support one mode (or all of them): an index, by family, and sorted."""

    names: list[str]
    index: NameIndex = field(init=False)
    by_family: dict[str, list[str]] = field(init=False)
    sorted_names: list[str] = field(init=False)

    def __post_init__(self) -> None:
        self.index = NameIndex(self.names)
        self.by_family = {}
        for name in self.names:
            self.by_family.setdefault(name.split(".", 1)[0], []).append(name)
        self.sorted_names = sorted(self.names)


_BY_REGISTRY: weakref.WeakKeyDictionary[Registry, dict[tuple[str | None, int], ComponentNames]] = (
    weakref.WeakKeyDictionary())


def component_names_for(registry: Registry, mode: object) -> ComponentNames:
    """The names of the components supporting `mode` (any mode when it is not an OML mode), cached."""
    wanted = mode if mode in OML_MODES else None
    cached = _BY_REGISTRY.setdefault(registry, {})
    key = (wanted, len(registry.components))  # a registry that grew gets a fresh index
    if key not in cached:
        cached[key] = ComponentNames([spec.name for spec in registry.components.values()
                                      if wanted is None or wanted in spec.oml_modes])
    return cached[key]
