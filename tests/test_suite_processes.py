"""bench/suite_processes.py, the count of docs/testing.md's "Processes in the suite (issue 37)": on a
planted tests/ folder, each way a test reaches a child `osiris` is counted, and nothing else is."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support import bench_script

SUPPORT = '''
import subprocess, sys

def run_osiris(*args, cwd):
    return subprocess.run([sys.executable, "-m", "osiris", *args], cwd=cwd)

def run_database(cwd):
    return subprocess.run(["psql", "-d", "osiris"], cwd=cwd)  # names a database, not the CLI

class Project:
    def osiris(self, *args):
        return run_osiris(*args, cwd=".")

class Attack:  # a method of the same name that starts nothing
    def osiris(self, *args):
        return None

def run(*args, process=False):
    return run_osiris(*args, cwd=".") if process else None
'''

CONFTEST = '''
import pytest
from tests.support import run_osiris

@pytest.fixture
def started(tmp_path):
    return run_osiris("init", cwd=tmp_path)
'''

TEST_PROCESSES = '''
import pexpect, pytest, sys
from tests import support
from tests.support import Project, run, run_osiris

@pytest.fixture(scope="module")
def served():
    return run_osiris("mcp", cwd=".")

def helper():
    return support.run_osiris("validate", cwd=".")

def test_direct():
    run_osiris("validate", cwd=".")

def test_through_a_module_and_a_helper():
    helper()

def test_through_a_fixture(started):
    pass

def test_through_a_fixture_of_its_module(served):
    pass

def test_through_a_method():
    proj = Project()
    proj.osiris("run")

def test_in_a_pty():
    pexpect.spawn(sys.executable, ["-m", "osiris", "chat"])

def test_asks_for_a_process():
    run("run", process=True)

def test_in_process():
    run("run")

def test_a_database_is_no_cli():
    support.run_database(".")

class TestGrouped:
    def test_in_a_class(self):
        run_osiris("run", cwd=".")
'''

TEST_IN_PROCESS = '''
import pytest
from tests.support import Attack, run

@pytest.fixture
def served():  # the name of another module's fixture, which starts a process; this one does not
    return None

def test_a_fixture_of_the_same_name(served):
    pass

def test_only_in_process():
    run("validate")

def test_a_method_of_the_same_name():
    attack = Attack()
    attack.osiris("run")
'''


@pytest.fixture(scope="module")
def counter():
    return bench_script("suite_processes")


def test_each_way_to_a_child_is_counted_and_nothing_else(tmp_path: Path, counter, capsys) -> None:
    root = tmp_path / "tests"
    root.mkdir()
    for name, text in {"support.py": SUPPORT, "conftest.py": CONFTEST, "test_processes.py": TEST_PROCESSES,
                       "test_in_process.py": TEST_IN_PROCESS}.items():
        (root / name).write_text(text, encoding="utf-8")

    assert counter.main([str(root), "--tests"]) == 0

    assert capsys.readouterr().out.splitlines() == [
        "   8 of  10  tests/test_processes.py",
        "            test_direct",
        "            test_through_a_module_and_a_helper",
        "            test_through_a_fixture",
        "            test_through_a_fixture_of_its_module",
        "            test_through_a_method",
        "            test_in_a_pty",
        "            test_asks_for_a_process",
        "            TestGrouped.test_in_a_class",
        "1 of 2 test files, 8 of 13 tests start the osiris CLI as a process",
    ]
