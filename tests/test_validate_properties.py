"""Property tests: whatever the text, validation returns issues and never raises; and for
generated changes whose verdict is known in advance, the verdict is that one (so a validator that
says "valid" or "invalid" wrongly fails here, not only one that crashes)."""

from __future__ import annotations

import json

import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from osiris.explain import compact, friendly
from osiris.extract.scalars import fits
from osiris.validate import CODES
from tests.validate_helpers import GOOD_TEXT, csv_step, extract_step, oml, validator

VALIDATOR = validator()
SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
SECRET = "S3cr3t-Pa55word-xyz"

scalars = st.one_of(st.none(), st.booleans(), st.integers(), st.floats(allow_nan=False), st.text(max_size=20))
values = st.recursive(scalars, lambda inner: st.one_of(
    st.lists(inner, max_size=4), st.dictionaries(st.text(max_size=12), inner, max_size=4)), max_leaves=20)
KEYS = ["oml_version", "name", "steps", "id", "component", "mode", "config", "needs", "connection",
        "table", "query", "batch_size", "path", "password", "write_mode", "tasks", "type"]


def check(report) -> None:
    for issue in report.issues:
        assert issue.code in CODES
        assert issue.severity in ("error", "warning")
        assert isinstance(issue.path, str) and (issue.path == "" or issue.path.startswith("/"))
        assert "\n" not in compact(issue)
        friendly(issue)
    json.dumps([issue.to_dict() for issue in report.issues], default=str)
    assert report.valid == (not report.errors)


@SETTINGS
@given(st.text(max_size=400))
def test_random_text_never_raises(text):
    check(VALIDATOR.validate(text))


@SETTINGS
@given(st.integers(min_value=0, max_value=len(GOOD_TEXT)), st.booleans())
def test_truncated_pipelines_never_raise(cut, flag):
    check(VALIDATOR.validate(GOOD_TEXT[:cut], truncated=flag))


@SETTINGS
@given(st.lists(st.tuples(st.integers(min_value=0, max_value=len(GOOD_TEXT)),
                          st.sampled_from(["", ":", "-", " ", "\n", "  ", "[", "{", "'", '"', "&a", "*a", "\t", "#",
                                           "---", "@", "!!python/object", "\x00"])), max_size=6))
def test_mutated_pipelines_never_raise(edits):
    text = GOOD_TEXT
    for position, insert in edits:
        position = min(position, len(text))
        text = text[:position] + insert + text[position + 1:]
    check(VALIDATOR.validate(text))


@SETTINGS
@given(st.dictionaries(st.sampled_from(KEYS), values, max_size=6),
       st.lists(st.dictionaries(st.sampled_from(KEYS), values, max_size=6), max_size=4))
def test_random_documents_never_raise(top, steps):
    document = {"oml_version": "0.1.0", "name": "x", **top}
    document.setdefault("steps", steps)
    check(VALIDATOR.validate(yaml.safe_dump(document)))


@SETTINGS
@given(st.sampled_from(["mysql.extractor", "mysql.writer", "supabase.writer", "graphql.extractor",
                        "rest.extractor", "postgres.writer"]),
       st.sampled_from(["password", "key", "auth_token", "headers", "pasword", "api_key", "token"]),
       st.booleans())
def test_secret_values_never_appear_in_issues(component, field, connected):
    value = {"Authorization": SECRET} if field == "headers" else SECRET
    config = {field: value, "table": "t"}
    if connected:
        config["connection"] = f"@{component.split('.')[0]}.default"
    document = {"oml_version": "0.1.0", "name": "x",
                "steps": [{"id": "a", "component": component, "mode": "read", "config": config}]}
    report = VALIDATOR.validate(yaml.safe_dump(document))
    rendered = json.dumps([i.to_dict() for i in report.issues]) + "".join(friendly(i) + compact(i)
                                                                         for i in report.issues)
    assert SECRET not in rendered


STEP_IDS = ["extract-customers", "write-csv", "ghost", "Extract-Customers"]


@SETTINGS
@given(st.one_of(st.sampled_from(["read", "write", "transform", "extract", "READ", ""]), scalars))
def test_the_mode_verdict_is_known(mode):
    # mysql.extractor reads only: "read" is the one valid mode; anything else is an error at its mode.
    report = VALIDATOR.validate(oml(extract_step() | {"mode": mode}, csv_step()))
    assert report.valid == (mode == "read")
    if isinstance(mode, int) and not fits(mode):  # a number past 2^64 is refused as the YAML is read (issue 9), before any step
        assert [(issue.code, issue.line) for issue in report.errors] == [("OML105", 6)]  # the mode line
    elif mode != "read":
        assert "/steps/0/mode" in {issue.path for issue in report.errors}


@SETTINGS
@given(st.lists(st.sampled_from(STEP_IDS), max_size=4))
def test_the_needs_verdict_is_known(needs):
    # The writer may need the extractor (written before it) and nothing else: not itself, not an
    # unknown id (ids are case-sensitive); each wrong entry is an error at its own position. With
    # needs: [] the writer has no input at all (OML409 on needs).
    report = VALIDATOR.validate(oml(extract_step(), csv_step(needs=needs)))
    wrong = [f"/steps/1/needs/{position}" for position, need in enumerate(needs) if need != "extract-customers"]
    expected = wrong if needs else ["/steps/1/needs"]
    assert report.valid == (not expected)
    assert [issue.path for issue in report.errors] == expected


@SETTINGS
@given(st.from_regex(r"[a-z][a-z0-9]{0,10}(-[a-z0-9]{1,8}){0,3}", fullmatch=True))
def test_any_kebab_case_name_is_valid_and_kept(name):
    report = VALIDATOR.validate(oml(name=name))
    assert report.valid
    assert report.pipeline["name"] == name
