"""Helpers shared by the server fixtures: free ports, an unprivileged user, waiting for readiness."""

from __future__ import annotations

import os
import pwd
import shutil
import socket
import subprocess
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

UNPRIVILEGED_USER = "nobody"


class ServerStartError(RuntimeError):
    """A test server did not start; the message says why (tests fail with it, never skip)."""


@dataclass
class DatabaseServer:
    """A database server started for the tests, and the connection fields to reach it."""

    host: str
    port: int
    user: str
    password: str
    database: str
    process: subprocess.Popen[bytes]

    def connection(self) -> dict[str, object]:
        """The connection fields an Osiris setting would hold."""
        return {"host": self.host, "port": self.port, "user": self.user,
                "password": self.password, "database": self.database}

    def stop(self) -> None:
        """End the server and remove its temp directory (a session's data is 200 MB to 1 GB: left
        behind, a few hundred test runs filled this machine's disk)."""
        self.process.terminate()
        try:
            self.process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(timeout=30)
        shutil.rmtree(self.home(), ignore_errors=True)

    def home(self) -> Path:
        """The temp directory that holds the server's data, socket and log."""
        raise NotImplementedError


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def run_as() -> dict[str, object]:
    """Popen arguments that drop root to an unprivileged user (servers refuse to run as root)."""
    if os.geteuid() != 0:
        return {}
    entry = pwd.getpwnam(UNPRIVILEGED_USER)
    return {"user": entry.pw_uid, "group": entry.pw_gid, "extra_groups": []}


def hand_over(directory: Path) -> None:
    """Give `directory` (and what is in it) to the unprivileged user when we are root."""
    if os.geteuid() != 0:
        return
    entry = pwd.getpwnam(UNPRIVILEGED_USER)
    for root, dirs, files in os.walk(directory):
        os.chown(root, entry.pw_uid, entry.pw_gid)
        for name in dirs + files:
            os.chown(os.path.join(root, name), entry.pw_uid, entry.pw_gid)
    os.chmod(directory, 0o700)


def wait_until(ready: Callable[[], bool], process: subprocess.Popen[bytes], log: Path,
               what: str, timeout: float = 60) -> None:
    """Poll `ready()` until it is true; fail with the server's log if it dies or takes too long."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise ServerStartError(f"{what} exited with {process.returncode}: {_tail(log)}")
        if ready():
            return
        time.sleep(0.2)
    process.kill()
    raise ServerStartError(f"{what} not ready after {timeout:.0f} s: {_tail(log)}")


def find_binary(name: str, *candidates: str) -> str:
    for candidate in (*candidates, shutil.which(name)):
        if candidate and Path(candidate).exists():
            return str(candidate)
    raise ServerStartError(f"{name} is not installed (looked in {', '.join(candidates)} and PATH)")


def _tail(log: Path) -> str:
    try:
        return log.read_text(errors="replace")[-800:]
    except OSError:
        return "(no log)"
