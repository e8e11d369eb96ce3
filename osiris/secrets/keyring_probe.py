"""Whether this machine can have a usable system keyring at all, told without importing keyring.

Asking keyring which backend it would use costs about 150 ms: it imports every backend it ships
(the macOS one searches for its framework even on Linux) and the secretstorage stack. On a headless
Linux machine (a server, CI, a container: where scheduled runs happen) the answer is always "none",
and a run whose connection secrets are not all in the environment asked it for nothing.

`surely_none` answers "none" only when every backend keyring could pick is out of reach:
- keyring is not imported yet (once it is, whoever imported it may have set a backend: ask it);
- `PYTHON_KEYRING_BACKEND` names keyring's fail backend, or, on Linux with it unset: no D-Bus
  session address (the Secret Service and KWallet backends need one), no PyGObject or dbus-python
  (libsecret and KWallet could find a bus without it), no `keyringrc.cfg` naming a backend, and no
  backend from another package (keyring's entry points list only its own).
Otherwise keyring is asked as before. A wrong "none" could only make a `${NAME}` unresolved (the run
says which and how to set it); it never lets a secret through unmasked, since a keyring that is not
asked hands no secret to the run either.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping
from functools import cache
from pathlib import Path

FAIL_BACKEND = "keyring.backends.fail.Keyring"
_OWN_BACKENDS = "keyring.backends."


def surely_none(env: Mapping[str, str] | None = None) -> bool:
    """True when no keyring backend can be usable here (above); False when keyring must be asked."""
    env = os.environ if env is None else env
    if "keyring" in sys.modules:
        return False
    configured = env.get("PYTHON_KEYRING_BACKEND", "").strip()
    if configured:
        return configured == FAIL_BACKEND
    if not sys.platform.startswith("linux") or env.get("DBUS_SESSION_BUS_ADDRESS"):
        return False
    return not _bus_clients() and not _config_file(env).exists() and _only_own_backends()


@cache  # what is installed: asked once a process, however many `${NAME}`s are looked up
def _bus_clients() -> bool:
    """PyGObject (libsecret's backend) or dbus-python (KWallet's) is installed."""
    from importlib.util import find_spec

    return any(find_spec(name) is not None for name in ("gi", "dbus"))


def _config_file(env: Mapping[str, str]) -> Path:
    """keyring's own config file on Linux (keyring.util.platform_.config_root)."""
    root = env.get("XDG_CONFIG_HOME") or os.path.expanduser("~/.config")
    return Path(root, "python_keyring", "keyringrc.cfg")


@cache
def _only_own_backends() -> bool:
    """keyring's entry points list only the backends keyring ships. Read from each installed
    package's `entry_points.txt` on `sys.path` (a few milliseconds), without importlib.metadata,
    whose import and parse of every package's metadata cost tens; asked of importlib.metadata when
    `sys.path` holds anything but folders (a zip, an egg), whose packages only it can list."""
    named = [entry or "." for entry in sys.path if os.path.exists(entry or ".")]  # "": the current folder
    if not all(os.path.isdir(entry) for entry in named):
        from importlib.metadata import entry_points

        return all(point.value.startswith(_OWN_BACKENDS) for point in entry_points(group="keyring.backends"))
    return all(value.startswith(_OWN_BACKENDS) for folder in dict.fromkeys(named)
               for value in _declared_backends(folder))


def _declared_backends(folder: str) -> list[str]:
    """The `keyring.backends` entry points (their module paths) of the packages installed in `folder`."""
    found: list[str] = []
    with os.scandir(folder) as entries:
        for entry in entries:
            if not entry.name.endswith((".dist-info", ".egg-info")):
                continue
            try:
                text = Path(entry.path, "entry_points.txt").read_text(encoding="utf-8")
            except OSError:
                continue
            found += _group_values(text, "keyring.backends")
    return found


def _group_values(text: str, group: str) -> list[str]:
    """The values of one `[group]` of an entry_points.txt (an INI file: `name = module:attr`)."""
    values: list[str] = []
    inside = False
    for line in text.splitlines():
        line = line.strip()
        if line.startswith("["):
            inside = line == f"[{group}]"
        elif inside and "=" in line and not line.startswith(("#", ";")):
            values.append(line.split("=", 1)[1].strip())
    return values
