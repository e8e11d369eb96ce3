"""Did-you-mean hints on large pipelines come from an index and stop at the issue cap (issue 14)."""

from __future__ import annotations

from osiris.registry import load_registry
from osiris.suggest import NameIndex, closest
from osiris.validate.findings import MAX_ISSUES, Findings
from osiris.validate.dependencies import check_graph
from osiris.validate.step_config import check_step_config

NAMES = [f"extract-{word}-{n}" for n in range(300) for word in ("orders", "users")]


def _steps(count: int, needs: dict[int, str]) -> list[dict]:
    steps = [{"id": f"step-{n}", "component": "mysql.extractor", "mode": "read", "config": {"table": "t"}}
             for n in range(count)]
    for index, need in needs.items():
        steps[index]["needs"] = [need]
    return steps


def test_the_index_finds_a_misspelt_name_among_hundreds() -> None:
    index = NameIndex(NAMES)
    assert index.closest("extract-oders-123") == "extract-orders-123"
    assert index.closest("EXTRACT-USERS-7") == "extract-users-7"
    assert index.closest("xtract-users-250") == "extract-users-250"
    assert index.closest("load-everything") is None


def test_the_index_only_offers_the_first_names_when_asked() -> None:
    index = NameIndex(NAMES)
    assert index.closest("extract-users-299", before=10) != "extract-users-299"
    assert NAMES.index(index.closest("extract-users-299", before=10)) < 10


def test_the_index_scans_small_sets_exactly_as_closest_does() -> None:
    names = ["path", "delimiter", "encoding", "header"]
    for word in ("pth", "delimter", "Encoding", "nothing"):
        assert NameIndex(names).closest(word) == closest(word, names)


def test_an_unknown_need_in_a_long_pipeline_names_the_closest_earlier_step() -> None:
    findings = Findings()
    check_graph(_steps(500, {400: "stepp-350", 80: "stepp-90"}), findings)
    hints = {issue.path: issue.hint for issue in findings.issues}
    assert hints["/steps/400/needs/0"].startswith("replace 'stepp-350' with 'step-350' in needs; "
                                                  "earlier steps: step-0, step-1,")
    assert hints["/steps/400/needs/0"].endswith(", ... (370 more)")
    assert "step-90" not in hints["/steps/80/needs/0"]  # a later step is not offered


def test_needs_past_the_issue_cap_are_counted_not_explained() -> None:
    findings = Findings()
    check_graph(_steps(2000, {n: f"stepp-{n - 1}" for n in range(1, 2000)}), findings)
    assert len(findings.issues) == MAX_ISSUES
    assert findings.dropped == 1999 - MAX_ISSUES
    assert findings.issues[-1].hint.startswith(f"replace 'stepp-{MAX_ISSUES - 1}' with 'step-{MAX_ISSUES - 1}' in needs;")


def test_an_unknown_component_hint_is_the_same_from_the_index() -> None:
    registry = load_registry()
    findings = Findings()
    for index in range(3):
        check_step_config(index, {"id": f"s{index}", "component": "mysql.extractr", "mode": "read", "config": {}},
                          registry, {}, findings)
    assert [issue.hint for issue in findings.issues] == ["use component: mysql.extractor"] * 3
