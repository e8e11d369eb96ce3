"""Tier 1: cutting YAML out of LLM answers, and parsing hostile input safely."""

from __future__ import annotations

from osiris.extract import MAX_CHARS, cut_yaml, estimated_depth, load_document
from tests.validate_helpers import GOOD_TEXT, validator


def test_fenced_yaml_is_cut_out_of_prose():
    answer = "Sure! Here it is:\n\n```yaml\noml_version: \"0.1.0\"\nname: x\n```\nAnything else?"
    cut = cut_yaml(answer)
    assert cut.text == 'oml_version: "0.1.0"\nname: x\n'
    assert cut.first_line == 3


def test_the_fence_holding_the_pipeline_wins_over_other_fences():
    answer = "```bash\nosiris validate p.yaml\n```\n```yaml\nfoo: 1\n```\n```yml\noml_version: \"0.1.0\"\n```\n"
    assert cut_yaml(answer).text == 'oml_version: "0.1.0"\n'


def test_plain_yaml_with_preamble_and_trailing_prose():
    answer = "Here you go:\noml_version: \"0.1.0\"\nsteps:\n  - id: a\n\nLet me know if it works."
    cut = cut_yaml(answer)
    assert cut.text.startswith("oml_version") and "Let me know" not in cut.text
    assert cut.first_line == 1


def test_prose_only_and_empty_answers_hold_no_yaml():
    assert cut_yaml("I can't help with that request.") is None
    assert cut_yaml("   \n\n") is None


def test_an_unclosed_fence_marks_the_answer_as_cut_off():
    cut = cut_yaml("```yaml\noml_version: \"0.1.0\"\nsteps:\n  - id: a\n    compo")
    assert cut.unclosed_fence


def test_line_numbers_refer_to_the_extracted_pipeline():
    # Issue 8 changed this: lines count from the pipeline as saved, not from the raw answer.
    answer = "Intro line\n```yaml\noml_version: \"0.1.0\"\nname: x\nname: y\n```\n"
    report = validator().validate(answer)
    duplicate = next(i for i in report.issues if i.code == "OML104")
    assert (duplicate.line, duplicate.column) == (3, 1)
    assert report.oml_text.splitlines()[2] == "name: y"


def test_positions_are_recorded_for_every_pointer():
    loaded = load_document("a: 1\nb:\n  - x\n  - {c: 2}\n")
    assert loaded.positions["/b/1/c"].line == 4
    assert loaded.value == {"a": 1, "b": ["x", {"c": 2}]}


def test_duplicate_keys_are_reported_with_their_line():
    loaded = load_document("a: 1\nb: 2\na: 3\n")
    assert [(p.code, p.position.line) for p in loaded.problems] == [("OML104", 3)]


def test_yaml_1_1_surprises_are_parsed_as_yaml_says():
    assert load_document("a: 012\nb: no\n").value == {"a": 10, "b": False}


def test_billion_laughs_is_stopped_by_the_node_budget():
    bomb = "a: &a [lol, lol, lol, lol, lol, lol, lol, lol, lol]\n"
    for previous, name in zip("abcdefgh", "bcdefghi"):
        bomb += f"{name}: &{name} [{', '.join(['*' + previous] * 9)}]\n"
    loaded = load_document(bomb)
    assert [p.code for p in loaded.problems] == ["OML105"]


def test_deep_nesting_never_reaches_libyaml():
    # libyaml crashes the whole process (SIGSEGV) on nesting this deep; it must be refused first.
    for text in ("[" * 100_000, "- " * 100_000 + "x", "{a: " * 50_000):
        assert estimated_depth(text) > 256
        assert [p.code for p in load_document(text).problems] == ["OML105"]


def test_recursive_alias_is_a_limit_not_a_crash():
    assert [p.code for p in load_document("a: &x [*x]\n").problems] == ["OML105"]


def test_oversized_input_is_refused_before_parsing():
    report = validator().validate("a: b\n" * (MAX_CHARS // 4))
    assert [i.code for i in report.issues] == ["OML105"]


def test_binary_garbage_is_a_syntax_error():
    report = validator().validate("\x00\x01\x02\xff\xfe oml_version: x")
    assert report.issues and report.issues[0].code in ("OML101", "OML102")
    assert not report.valid


def test_truncated_flag_reports_oml106_even_for_parseable_yaml():
    report = validator().validate(GOOD_TEXT, truncated=True)
    assert [i.code for i in report.issues] == ["OML106"]
    assert not report.valid


def test_several_documents():
    report = validator().validate(GOOD_TEXT + "---\n" + GOOD_TEXT)
    assert [i.code for i in report.issues] == ["OML103"]


def test_keys_are_read_as_written():
    loaded = load_document("on: 1\n1: a\ntrue: b\nnull: c\n")
    assert loaded.value == {"on": 1, "1": "a", "true": "b", "null": "c"} and loaded.problems == []


def test_merge_keys_are_not_expanded():
    loaded = load_document("base: &b {x: 1}\nother:\n  <<: *b\n")
    assert loaded.value["other"] == {"<<": {"x": 1}}


def test_a_huge_flat_document_is_refused_before_it_is_built():
    report = validator().validate("a: b\n" * 190_000)
    assert [i.code for i in report.issues] == ["OML105"]


def test_issues_are_capped_with_a_closing_count():
    report = validator().validate("".join(f"key{n}: v\n" for n in range(5000)))
    assert len(report.issues) == 201
    closing = next(i for i in report.issues if i.code == "OML105")
    assert "more issues were found" in closing.message


def test_json_and_quoted_keys_are_yaml_too():
    import json

    import yaml

    document = yaml.safe_load(GOOD_TEXT)
    assert validator().validate(json.dumps(document, indent=2)).valid
    assert validator().validate("Here it is:\n" + json.dumps(document)).valid
    quoted = GOOD_TEXT.replace("oml_version:", '"oml_version":')
    assert validator().validate(quoted).valid


def test_two_pipelines_in_one_answer_are_ambiguous():
    answer = f"First try:\n```yaml\n{GOOD_TEXT}```\nOr maybe:\n```yaml\n{GOOD_TEXT}```\n"
    assert [i.code for i in validator().validate(answer).issues] == ["OML103"]
