"""The suite runs in random order (pytest-randomly, ADR 0204): `make test` shuffles the tests of each
file and the files, prints the seed last, and the seed replays the order exactly (docs/testing.md)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

from tests.support import clean_env

ROOT = Path(__file__).resolve().parent.parent
SMALL = "tests/test_duration_text.py"  # eight quick tests, no server
MANY = "tests/test_step_ids.py"  # enough tests that two seeds order them differently


def pytest(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", *args], cwd=ROOT,
                          capture_output=True, text=True, env=clean_env(), timeout=300)


def make_test_arguments() -> list[str]:
    """The pytest arguments of `make test`'s recipe, less coverage (one small file is below its floor)."""
    recipe = re.search(r"^test:.*?\n\t\$\(PY\) -m pytest (.*?)$", (ROOT / "Makefile").read_text(), re.M | re.S)
    assert recipe, "make test runs pytest"
    return [arg for arg in recipe.group(1).split() if not arg.startswith("--cov")]


def order(*args: str) -> list[str]:
    done = pytest("--collect-only", "-q", *args)
    assert done.returncode == 0, done.stdout + done.stderr
    return [line for line in done.stdout.splitlines() if "::" in line]


def test_make_test_prints_the_seed_it_ran_with_and_how_to_replay_it() -> None:
    arguments = make_test_arguments()
    assert "no:randomly" not in " ".join(arguments)
    done = pytest(*arguments, "--randomly-seed=4242", SMALL)
    assert done.returncode == 0, done.stdout + done.stderr
    lines = done.stdout.splitlines()
    assert lines[-2] == "tests ran in random order, seed 4242; replay it with: pytest --randomly-seed=4242 TESTS"
    assert lines[-1].startswith("8 passed")


def test_a_seed_replays_its_order_and_another_seed_gives_another() -> None:
    first, again, other = order("--randomly-seed=1", MANY), order("--randomly-seed=1", MANY), order("--randomly-seed=2", MANY)
    assert len(first) > 20 and first == again
    assert other != first and sorted(other) == sorted(first)



def test_a_number_of_its_own_is_found_and_one_inside_an_id_a_port_or_a_duration_is_not() -> None:
    from tests.support import shows_number

    for leaked in ("customer Ann-CANARY-7731 is locked", "entry '7731' for key", "7731", "(…)-7731 x"):
        assert shows_number(leaked, "7731"), leaked
    by_chance = "session 20261128-012501-a17731 at 127.0.0.1:37731 in 7731.2 ms, sha256 0f7731ab"
    assert not shows_number(by_chance, "7731")
    assert shows_number("'0044-03-15 BC'", "0044") and not shows_number("20261128-004412-0044ab", "0044")
