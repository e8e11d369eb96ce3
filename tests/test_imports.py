"""Every module of osiris can be imported first, on its own: no import cycle hides behind the order
in which the commands happen to import things (osiris.sample.tier had one)."""

from __future__ import annotations

import subprocess
import sys

from tests.support import clean_env

PROBE = """
import importlib, pkgutil, sys
import osiris
names = sorted(m.name for m in pkgutil.walk_packages(osiris.__path__, "osiris.") if not m.name.endswith("__main__"))
broken = []
for name in names:
    for loaded in [m for m in sys.modules if m == "osiris" or m.startswith("osiris.")]:
        del sys.modules[loaded]
    try:
        importlib.import_module(name)
    except Exception as error:
        broken.append(f"{name}: {type(error).__name__}: {error}")
print(len(names))
print("\\n".join(broken))
"""


def test_every_module_imports_first_on_its_own() -> None:
    done = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True, env=clean_env(), timeout=120)
    assert done.returncode == 0, done.stderr
    count, *broken = done.stdout.strip().splitlines()
    assert int(count) > 150
    assert broken == []
