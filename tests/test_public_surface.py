"""What each package of osiris exports (`__all__`) is deliberate: every package declares it, it
names only what the package really defines or imports, and the whole surface is pinned in
tests/snapshots/public_surface.txt (SNAPSHOT_UPDATE=1 re-records it after a deliberate change)."""

from __future__ import annotations

import importlib
import pkgutil

import osiris
from tests.snapshots import assert_snapshot


def packages() -> list[str]:
    names = ["osiris"]
    for info in pkgutil.walk_packages(osiris.__path__, "osiris."):
        if info.ispkg and not info.name.startswith(("osiris.templates", "osiris._components")):
            names.append(info.name)
    return sorted(names)


def test_every_package_declares_its_surface_and_it_exists() -> None:
    for name in packages():
        module = importlib.import_module(name)
        assert hasattr(module, "__all__"), f"{name} has no __all__"
        missing = [item for item in module.__all__ if not hasattr(module, item)]
        assert missing == [], f"{name}.__all__ names what it does not have: {missing}"
        assert len(set(module.__all__)) == len(module.__all__), f"{name}.__all__ repeats a name"


def test_the_public_surface_is_pinned() -> None:
    lines = [f"{name}: {', '.join(sorted(importlib.import_module(name).__all__)) or '(namespace)'}"
             for name in packages()]
    assert_snapshot("public_surface.txt", "\n".join(lines) + "\n")
