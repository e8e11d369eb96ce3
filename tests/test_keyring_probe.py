"""The system keyring is asked only where one can exist (osiris.secrets.keyring_probe).

Every test is a real process: whether keyring gets imported is a property of a fresh interpreter.
The backends here are small modules written into the test's temp dir and found the ways keyring
finds them (an installed package's entry point, `keyringrc.cfg`); they record each lookup in a file,
so a test sees that the run asked them. No real keyring is touched.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.support import REPO, clean_env

PIPELINE = """\
oml_version: "0.1.0"
name: ten-rows
steps:
  - id: read
    component: filesystem.csv_extractor
    mode: read
    config: {path: people.csv}
  - id: write
    component: filesystem.csv_writer
    mode: write
    needs: [read]
    config: {path: out.csv}
"""
SETTINGS = """\
connections:
  mysql:
    default: {host: db.internal, port: 3306, database: shop, user: osiris, password: "${PROBE_MYSQL_PASSWORD}"}
"""
BACKEND = '''\
import os
from keyring.backend import KeyringBackend


class Keyring(KeyringBackend):
    priority = 1

    def get_password(self, service, username):
        with open(os.environ["PROBE_ASKED"], "a") as asked:
            asked.write(f"{service} {username}\\n")
        return "probe-Keyring-Secret-83" if username == "PROBE_MYSQL_PASSWORD" else None

    def set_password(self, service, username, password):
        raise NotImplementedError

    def delete_password(self, service, username):
        raise NotImplementedError
'''


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    root.mkdir()
    (root / ".osiris.yaml").write_text(SETTINGS)
    (root / "run.yaml").write_text(PIPELINE)
    (root / "people.csv").write_text("id,name\n1,ann\n2,bob\n")
    return root


def headless_env(tmp_path: Path, **extra: str) -> dict[str, str]:
    """A Linux machine with no desktop session and no keyring configured: what CI and servers are."""
    env = clean_env(XDG_CONFIG_HOME=str(tmp_path / "config"), PROBE_ASKED=str(tmp_path / "asked.txt"), **extra)
    for name in ("PYTHON_KEYRING_BACKEND", "DBUS_SESSION_BUS_ADDRESS", "PYTHONDONTWRITEBYTECODE"):
        if name not in extra:
            env.pop(name, None)
    return env


def run(project: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    """`osiris run run.yaml` in a fresh interpreter, with its imports listed (`-X importtime`)."""
    return subprocess.run([sys.executable, "-X", "importtime", "-m", "osiris", "run", "run.yaml"], cwd=project,
                          env=env, capture_output=True, text=True, timeout=60)


def imported(done: subprocess.CompletedProcess[str]) -> set[str]:
    return {line.split("|")[-1].strip() for line in done.stderr.splitlines() if line.startswith("import time:")}


def backend_module(folder: Path) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "probe_keyring.py").write_text(BACKEND)


def test_a_headless_machine_runs_without_importing_keyring(tmp_path, project):
    done = run(project, headless_env(tmp_path))
    assert done.returncode == 0, done.stdout + done.stderr
    assert (project / "out.csv").read_bytes() == b"id,name\n1,ann\n2,bob\n"
    assert not {name for name in imported(done) if name.split(".")[0] in ("keyring", "secretstorage", "jeepney")}


def test_a_backend_another_package_installs_is_still_asked(tmp_path, project):
    site = tmp_path / "site"
    backend_module(site)
    dist = site / "probe_keyring-1.0.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: probe-keyring\nVersion: 1.0\n")
    (dist / "entry_points.txt").write_text("[keyring.backends]\nprobe = probe_keyring\n")
    done = run(project, headless_env(tmp_path, PYTHONPATH=f"{site}:{REPO}"))
    assert done.returncode == 0, done.stdout + done.stderr
    assert (tmp_path / "asked.txt").read_text() == "osiris PROBE_MYSQL_PASSWORD\n"
    assert "probe-Keyring-Secret-83" not in done.stdout + done.stderr


def test_a_backend_named_in_keyringrc_is_still_asked(tmp_path, project):
    backend_module(tmp_path / "backends")
    config = tmp_path / "config" / "python_keyring"
    config.mkdir(parents=True)
    (config / "keyringrc.cfg").write_text(
        f"[backend]\ndefault-keyring = probe_keyring.Keyring\nkeyring-path = {tmp_path / 'backends'}\n")
    done = run(project, headless_env(tmp_path))
    assert done.returncode == 0, done.stdout + done.stderr
    assert (tmp_path / "asked.txt").read_text() == "osiris PROBE_MYSQL_PASSWORD\n"


def test_a_backend_named_in_the_environment_is_still_asked(tmp_path, project):
    backend_module(tmp_path / "backends")
    done = run(project, headless_env(tmp_path, PYTHON_KEYRING_BACKEND="probe_keyring.Keyring",
                                     PYTHONPATH=f"{tmp_path / 'backends'}:{REPO}"))
    assert done.returncode == 0, done.stdout + done.stderr
    assert (tmp_path / "asked.txt").read_text() == "osiris PROBE_MYSQL_PASSWORD\n"


@pytest.mark.parametrize(("extra", "expected"), [
    ({}, "True"),
    ({"PYTHON_KEYRING_BACKEND": "keyring.backends.fail.Keyring"}, "True"),
    ({"PYTHON_KEYRING_BACKEND": "keyring.backends.SecretService.Keyring"}, "False"),
    ({"DBUS_SESSION_BUS_ADDRESS": "unix:path=/nonexistent/bus"}, "False"),  # a desktop session: ask keyring
])
def test_the_probe_answers_none_only_where_no_backend_can_be_usable(tmp_path, extra, expected):
    code = "from osiris.secrets.keyring_probe import surely_none; import sys; print(surely_none(), 'keyring' in sys.modules)"
    done = subprocess.run([sys.executable, "-c", code], env=headless_env(tmp_path, **extra), cwd=REPO,
                          capture_output=True, text=True, timeout=30)
    assert done.stdout.split() == [expected, "False"], done.stderr


def test_keyring_already_imported_is_asked_whatever_the_environment(tmp_path):
    code = ("import keyring; from osiris.secrets.keyring_probe import surely_none; print(surely_none())")
    done = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, timeout=30,
                          env=headless_env(tmp_path, PYTHON_KEYRING_BACKEND="keyring.backends.fail.Keyring"))
    assert done.stdout.strip() == "False", done.stderr


def test_the_probe_lists_entry_points_without_importing_importlib_metadata(tmp_path):
    """Its import and parse of every package's metadata were most of the probe's time (docs/performance.md)."""
    code = "import sys; from osiris.secrets.keyring_probe import surely_none; print(surely_none(), 'importlib.metadata' in sys.modules)"
    done = subprocess.run([sys.executable, "-c", code], env=headless_env(tmp_path), cwd=REPO,
                          capture_output=True, text=True, timeout=30)
    assert done.stdout.split() == ["True", "False"], done.stderr


@pytest.mark.parametrize(("folder", "entry_points", "expected"), [
    ("other-1.0.dist-info", "[console_scripts]\nother = other:main\n\n[keyring.backends]\nprobe = probe_keyring\n", "False"),
    ("other-1.0.egg-info", "[keyring.backends]\n  probe = probe_keyring:Keyring\n[other.group]\nx = keyring.backends.y\n",
     "False"),
    ("other-1.0.dist-info", "[console_scripts]\nbackends = keyring.backends.fake:main\n", "True"),  # another group
])
def test_the_probe_reads_another_package_s_backends_as_importlib_metadata_does(tmp_path, folder, entry_points, expected):
    site = tmp_path / "site"
    dist = site / folder
    dist.mkdir(parents=True)
    (dist / ("PKG-INFO" if folder.endswith(".egg-info") else "METADATA")).write_text(
        "Metadata-Version: 2.1\nName: other\nVersion: 1.0\n")
    (dist / "entry_points.txt").write_text(entry_points)
    code = ("from importlib.metadata import entry_points; from osiris.secrets.keyring_probe import _only_own_backends; "
            "print(_only_own_backends(), all(p.value.startswith('keyring.backends.') "
            "for p in entry_points(group='keyring.backends')))")
    done = subprocess.run([sys.executable, "-c", code], env=headless_env(tmp_path, PYTHONPATH=f"{site}:{REPO}"),
                          cwd=tmp_path, capture_output=True, text=True, timeout=30)
    assert done.stdout.split() == [expected, expected], done.stderr


def test_a_zip_on_the_path_is_read_by_importlib_metadata(tmp_path):
    """Packages inside a zip on sys.path are listed by importlib.metadata only: the probe asks it there."""
    import zipfile

    archive = tmp_path / "backends.zip"
    with zipfile.ZipFile(archive, "w") as packed:
        packed.writestr("other-1.0.dist-info/METADATA", "Metadata-Version: 2.1\nName: other\nVersion: 1.0\n")
        packed.writestr("other-1.0.dist-info/entry_points.txt", "[keyring.backends]\nprobe = probe_keyring\n")
    code = "from osiris.secrets.keyring_probe import _only_own_backends; print(_only_own_backends())"
    done = subprocess.run([sys.executable, "-c", code], env=headless_env(tmp_path, PYTHONPATH=f"{archive}:{REPO}"),
                          cwd=tmp_path, capture_output=True, text=True, timeout=30)
    assert done.stdout.strip() == "False", done.stderr
