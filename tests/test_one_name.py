"""One name for the sample run (docs/architecture.md, "One name for each concept"): the docs, the
README and the commands' help say "sample run", never "dry run" or "tier 5", except where the flags'
older names are documented as aliases; and the aliases still do what the flags do."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.inprocess import run_inprocess

REPO = Path(__file__).resolve().parent.parent
DOCS = sorted([REPO / "README.md", *(REPO / "docs").glob("*.md")])
OTHER_NAMES = re.compile(r"dry[ -]runs?\b|tier 5\b", re.IGNORECASE)  # `dry_run`, a stored name, is not prose


def other_names(text: str) -> list[str]:
    """The lines that call the sample run by another name, without saying the name is an alias."""
    return [line.strip() for line in text.splitlines() if OTHER_NAMES.search(line) and "alias" not in line]


def test_the_docs_call_it_the_sample_run() -> None:
    found = [f"{path.relative_to(REPO)}: {line}" for path in DOCS for line in other_names(path.read_text("utf-8"))]
    assert found == []


def test_the_docs_that_name_the_old_flags_say_they_are_aliases() -> None:
    documented = [path.name for path in DOCS
                  if any("`--dry-run`" in line and "alias" in line for line in path.read_text("utf-8").splitlines())]
    assert documented == ["README.md", "architecture.md", "configuration.md", "generate.md", "sample-run.md"]


@pytest.mark.parametrize("command", ["chat", "generate", "config show"])
def test_the_help_names_the_sample_run_and_the_old_flags_only_as_aliases(command: str, tmp_path: Path) -> None:
    done = run_inprocess(*command.split(), "--help", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "[--sample-run | --no-sample-run]" in done.stdout
    assert "--sample-run, --dry-run" in done.stdout and "--no-sample-run, --no-dry-run" in done.stdout
    aliases_removed = done.stdout.replace(", --dry-run", "").replace(", --no-dry-run", "")
    assert not OTHER_NAMES.search(aliases_removed.replace("\n", " ")), done.stdout


@pytest.mark.parametrize(("flag", "alias", "value"), [("--sample-run", "--dry-run", "sample"),
                                                       ("--no-sample-run", "--no-dry-run", "off")])
def test_the_old_flag_sets_what_the_new_one_sets(flag: str, alias: str, value: str, tmp_path: Path) -> None:
    shown = [run_inprocess("config", "show", given, cwd=tmp_path) for given in (flag, alias)]
    assert [done.returncode for done in shown] == [0, 0]
    assert shown[0].stdout == shown[1].stdout
    [line] = [line for line in shown[0].stdout.splitlines() if line.startswith("validation.dry_run ")]
    assert line.split() == ["validation.dry_run", f'"{value}"', "cli"]
