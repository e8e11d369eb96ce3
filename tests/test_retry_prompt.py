"""The delta retry prompt (docs/generate.md) built directly: each kind, the cap on listed errors, YAML errors
located with an excerpt, and the one-line summaries of earlier attempts (issue 15's survivors)."""

from __future__ import annotations

import pytest

from osiris.explain import compact
from osiris.prompt.retry import (
    FIX_WORDING,
    RetryKind,
    build_retry_prompt,
    retry_kind,
    summarise_attempt,
    without_previous_pipeline,
)
from osiris.validate.issue import Issue
from tests.snapshots import assert_snapshot

BROKEN = "oml_version: 0.1.0\nname: x\nsteps:\n  - id: a\n    mode: [read\n"


def syntax_error(column: int | None = 11) -> Issue:
    return Issue("OML101", 1, "error", "", "invalid YAML", "close the bracket", line=5, column=column)


def bad_mode(index: int) -> Issue:
    return Issue("OML212", 2, "error", f"/steps/{index}/mode", "bad mode", "use read", line=index + 4, column=5)


def test_a_yaml_error_is_located_with_an_excerpt_of_the_previous_pipeline():
    assert_snapshot("retry_prompt_yaml_error.txt", build_retry_prompt([syntax_error()], BROKEN, [], compact))


def test_without_a_column_the_location_is_the_line_and_without_text_there_is_no_excerpt():
    prompt = build_retry_prompt([syntax_error(column=None)], None, [], compact)
    assert "- OML101 /: invalid YAML | fix: close the bracket (line 5)\n" in prompt + "\n"
    assert "<previous_pipeline>" not in prompt and "    5 |" not in prompt


def test_only_yaml_errors_get_a_location_other_issues_are_their_compact_line():
    prompt = build_retry_prompt([bad_mode(0)], BROKEN, [], compact)
    assert "\n- OML212 /steps/0/mode: bad mode | fix: use read\n" in prompt


def test_at_most_25_errors_are_listed_and_the_rest_counted():
    lines = build_retry_prompt([bad_mode(i) for i in range(27)], None, [], compact).split("\n\n")[1].splitlines()
    assert len(lines) == 26
    assert lines[24] == "- OML212 /steps/24/mode: bad mode | fix: use read"
    assert lines[25] == "- ... and 2 more error(s) of the same kinds"
    assert len(build_retry_prompt([bad_mode(i) for i in range(25)], None, [], compact).split("\n\n")[1].splitlines()) == 25
    one_more = build_retry_prompt([bad_mode(i) for i in range(26)], None, [], compact).split("\n\n")[1].splitlines()
    assert one_more[-1] == "- ... and 1 more error(s) of the same kinds"


def test_normalised_values_and_earlier_attempts_come_after_the_errors():
    prompt = build_retry_prompt([bad_mode(0)], None, ["attempt 1: 2 errors (OML212)"], compact,
                                normalised=["port: '3306' was read as 3306"])
    assert prompt.split("\n\n")[2:] == [
        "Osiris already normalised these in the pipeline below; keep them as they are now:\n"
        "- port: '3306' was read as 3306",
        FIX_WORDING,
        "Earlier attempts (do not repeat these mistakes): attempt 1: 2 errors (OML212)",
    ]


@pytest.mark.parametrize("codes, kind", [
    (["OML106", "OML102"], RetryKind.CUT_OFF), (["OML102"], RetryKind.NO_PIPELINE),
    (["OML212"], RetryKind.FIX_ERRORS), ([], RetryKind.FIX_ERRORS),
])
def test_retry_kind(codes, kind):
    assert retry_kind(codes) is kind


def test_a_prose_answer_is_asked_for_the_pipeline_only_and_a_cut_off_one_for_a_shorter_one():
    prose = build_retry_prompt([Issue("OML102", 1, "error", "", "no pipeline")], None, ["attempt 1: 1 error (OML102)"], compact)
    assert prose.startswith("Your previous answer contained no OML pipeline.\n\nAnswer with the pipeline only")
    assert prose.endswith("\n\nEarlier attempts (do not repeat these mistakes): attempt 1: 1 error (OML102)")
    cut = build_retry_prompt([Issue("OML106", 1, "error", "", "cut off")], BROKEN, [], compact)
    assert cut.startswith("Your previous answer was cut off at the output token limit")
    assert "<previous_pipeline>" not in cut


@pytest.mark.parametrize("args, line", [
    ((1, ["OML212", "OML301", "OML212"], 3), "attempt 1: 3 errors (OML212, OML301)"),
    ((2, ["OML212"], 1), "attempt 2: 1 error (OML212)"),
    ((3, [], 0), "attempt 3: 0 errors (none)"),
])
def test_summarise_attempt(args, line):
    assert summarise_attempt(*args) == line


def test_the_previous_pipeline_can_be_left_out_of_a_saved_prompt():
    prompt = build_retry_prompt([bad_mode(0)], BROKEN, [], compact)
    stripped = without_previous_pipeline(prompt)
    assert "mode: [read" not in stripped
    assert ("<previous_pipeline> (not saved: sessions.save_failed_oml is false) </previous_pipeline>"
            in stripped)
