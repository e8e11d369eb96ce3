"""docs/architecture.md says where each rule lives: every file it names exists, and every name it
cites next to a file is defined there, so a move that leaves the map behind fails here (as
tests/test_errors_doc.py keeps docs/errors.md and the codes in step). The layer table is checked by
tests/test_layers.py, the counts of rules written twice by tests/test_rules_once.py."""

from __future__ import annotations

import re
from pathlib import Path

from tests.test_rules_once import PROBLEMS

REPO = Path(__file__).resolve().parent.parent
DOC = (REPO / "docs" / "architecture.md").read_text(encoding="utf-8")
PATH = re.compile(r"`((?:osiris/|tests/|bench/)?[\w/.]+(?:\.py|/))`")
CITED = re.compile(r"`((?:osiris/)?[\w/]+\.py)` \(`(\w+)[`.]")


def located(written: str) -> Path | None:
    """The file or folder a doc path names: from the repository, else from osiris/."""
    for base in (REPO, REPO / "osiris"):
        if (base / written).exists():
            return base / written
    return None


def test_every_file_the_map_names_exists() -> None:
    missing = sorted({path for path in PATH.findall(DOC) if "<" not in path and located(path) is None})
    assert missing == []


def test_every_name_cited_next_to_a_file_is_defined_there() -> None:
    wrong = []
    for path, name in CITED.findall(DOC):
        found = located(path)
        text = found.read_text(encoding="utf-8") if found else ""
        if not re.search(rf"^\s*(?:class|def) {name}\b|^{name}\b.*=", text, re.MULTILINE):
            wrong.append(f"{path}: {name}")
    assert wrong == []
    assert len(CITED.findall(DOC)) >= 6


def test_the_map_names_the_module_problems_are_built_in() -> None:
    row = next(line for line in DOC.splitlines() if line.startswith("| runtime problems (OML5xx)"))
    assert f"`{PROBLEMS}`" in row


def test_the_map_makes_no_claim_of_work_in_progress() -> None:
    assert "being built" not in DOC
