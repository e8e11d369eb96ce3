"""The two renderings of an issue: friendly for a person, compact and path-addressed for the LLM."""

from __future__ import annotations

from osiris.explain import compact, friendly, located
from osiris.validate import Issue


def issue(**fields):
    base = dict(code="OML307", tier=3, severity="error", path="/steps/1/config/write_mode",
                message="write_mode is 'upset', which is not one of the allowed values",
                hint="set write_mode to one of: 'append', 'replace', 'upsert' (did you mean 'upsert'?)",
                line=12, column=7, value="upset")
    return Issue(**{**base, **fields})


def test_compact_is_one_path_addressed_line():
    assert compact(issue()) == ("OML307 /steps/1/config/write_mode: write_mode is 'upset', which is not one of "
                                "the allowed values | fix: set write_mode to one of: 'append', 'replace', "
                                "'upsert' (did you mean 'upsert'?)")


def test_compact_marks_warnings_and_the_whole_document():
    text = compact(issue(code="OML102", severity="warning", path="", hint=""))
    assert text.startswith("OML102 (warning) /: ") and "| fix:" not in text


def test_friendly_names_the_place_the_problem_and_the_fix():
    lines = friendly(issue()).splitlines()
    assert lines[0] == "error OML307 in steps[1].config.write_mode (line 12, column 7): value not in enum"
    assert lines[1].strip().startswith("write_mode is 'upset'")
    assert lines[2].strip().startswith("how to fix: set write_mode to one of: 'append'")


def test_located_is_the_validate_command_form():
    assert located(issue(), "p.yaml").splitlines() == [
        "p.yaml:12:7 OML307 write_mode is 'upset', which is not one of the allowed values",
        "    hint: set write_mode to one of: 'append', 'replace', 'upsert' (did you mean 'upsert'?)"]
    assert located(issue(line=None, column=None, hint=""), "p.yaml").startswith("p.yaml OML307 ")


def test_control_characters_cannot_break_a_line():
    weird = issue(path="/steps/0/\n", message="unknown step key '\n'")
    assert "\n" not in compact(weird)
    assert len(located(weird, "p.yaml").splitlines()) == 2
