"""docs/errors.md stays in step with the code table in source, and every OML example in the docs
behaves as the docs say: examples in docs/errors.md raise their code, all others validate."""

from __future__ import annotations

import re
from types import SimpleNamespace

import pytest
import yaml

from osiris.validate import CODES
from tests.validate_helpers import REPO, validator

ERRORS_DOC = REPO / "docs" / "errors.md"
_SECTION = re.compile(r"^## (OML\d{3})\n(.*?)(?=^## |\Z)", re.MULTILINE | re.DOTALL)
_YAML_BLOCK = re.compile(r"^```ya?ml\n(.*?)^```", re.MULTILINE | re.DOTALL)


def sections() -> dict[str, str]:
    return {code: body for code, body in _SECTION.findall(ERRORS_DOC.read_text())}


def test_every_code_is_documented_once_and_nothing_else():
    documented = [code for code, _ in _SECTION.findall(ERRORS_DOC.read_text())]
    assert documented == sorted(CODES)


@pytest.mark.parametrize("code", sorted(CODES))
def test_section_title_matches_the_code_table_and_has_example_and_fix(code):
    body = sections()[code]
    title = re.search(r"\*\*(.+?)\*\*", body).group(1)
    assert title.lower().startswith(CODES[code].title.lower()), (title, CODES[code].title)
    assert "```" in body or "~~~" in body
    assert "**Fix:**" in body


@pytest.mark.parametrize("code", sorted(CODES))
def test_documented_examples_raise_their_code(code):
    blocks = _YAML_BLOCK.findall(sections()[code])
    rules = [SimpleNamespace(**{"when": None, "level": "error", "message": None, **r})
             for block in blocks if block.startswith("# .osiris.yaml")
             for r in yaml.safe_load(block)["validation"]["rules"]]
    examples = [block for block in blocks if "oml_version" in block]
    for example in examples:
        assert code in [i.code for i in validator(rules).validate(example).issues], example


def oml_examples() -> list[tuple[str, str]]:
    found = []
    for path in sorted((REPO / "docs").glob("*.md")) + [REPO / "README.md"]:
        if path == ERRORS_DOC or not path.exists():
            continue
        for block in _YAML_BLOCK.findall(path.read_text()):
            if "oml_version" in block:
                found.append((path.name, block))
    return found


@pytest.mark.parametrize("name, block", oml_examples() or [pytest.param("", "", marks=pytest.mark.skip)])
def test_oml_examples_in_docs_validate(name, block):
    report = validator().validate(block)
    assert report.valid, (name, [i.to_dict() for i in report.errors])


def test_documented_limits_are_the_limits_in_the_code():
    from osiris.extract import MAX_CHARS, MAX_DEPTH, MAX_NODES
    from osiris.validate.findings import MAX_ISSUES

    section = sections()["OML105"]
    for number in (f"{MAX_CHARS:,}", str(MAX_DEPTH), f"{MAX_NODES:,}", str(MAX_ISSUES)):
        assert number in section
