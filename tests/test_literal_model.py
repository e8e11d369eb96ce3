"""Issue 8: one pass tells the whole truth. A scripted model that does *literally* what the retry
prompt lists (each listed error fixed as its hint says, nothing more) turns a broken legacy answer
into a valid pipeline at the second attempt, through the real engine, SDK and validator."""

from __future__ import annotations

import re
from typing import Any

from osiris.validate.canonical import Edit, canonical_text
from tests.conftest import write_settings
from tests.engine_harness import make_engine
from tests.engine_samples import fenced
from tests.fake_anthropic import Reply

REQUEST = "copy the customers from the shop database to supabase"
LEGACY = """\
oml_version: "0.1.0"
name: customers-to-supabase
tasks:
  - id: extract-customers
    type: mysql.extractor
    mode: read
    config:
      connection: "@mysql.default"
      table_name: customers
      batch_size: "5000"
  - id: write-customers
    type: supabase.writer
    mode: write
    needs: [extract-customers]
    config:
      connection: "@supabase.default"
      table_name: customers   # same name there
      write_disposition: insert
"""
FIXED = """\
oml_version: "0.1.0"
name: customers-to-supabase
steps:
  - id: extract-customers
    component: mysql.extractor
    mode: read
    config:
      connection: "@mysql.default"
      table: customers
      batch_size: 5000
  - id: write-customers
    component: supabase.writer
    mode: write
    needs: [extract-customers]
    config:
      connection: "@supabase.default"
      table: customers   # same name there
      write_mode: append
"""
_ERROR = re.compile(r"^- (OML\d{3}) (\S+): .*? \| fix: (.*)$")
_QUOTED = re.compile(r"<previous_pipeline>.*?\n(`{3,})yaml\n(.*?)\n\1\n</previous_pipeline>", re.DOTALL)


def literal_model(body: dict[str, Any]) -> Reply:
    """Apply each listed fix exactly as its hint words it, to the quoted pipeline; nothing else."""
    prompt = body["messages"][-1]["content"]
    pipeline = _QUOTED.search(prompt).group(2) + "\n"
    edits = []
    for line in prompt.splitlines():
        match = _ERROR.match(line)
        if not match:
            continue
        code, path, hint = match.groups()
        renamed = re.match(r"rename '([^']+)' to '([^']+)'", hint)
        used = re.search(r"use '([^']+)'\)?$", hint)
        if renamed:
            edits.append(Edit(path, rename_to=renamed.group(2)))
        elif used:
            edits.append(Edit(path, value=used.group(1)))
        else:
            raise AssertionError(f"the literal model cannot follow: {line}")
    return Reply(fenced(canonical_text(pipeline, edits)))


def test_a_literal_model_fixes_a_legacy_answer_in_one_retry(project, fake_api):
    write_settings(project, {"llm": {"base_url": fake_api.url, "timeout_seconds": 5},
                             "connections": {"mysql": {"default": {"host": "db", "database": "shop"}},
                                             "supabase": {"default": {"url": "https://acme.supabase.co"}}}})
    fake_api.add(Reply(fenced(LEGACY)), literal_model)
    h = make_engine(project)

    result = h.engine.run(REQUEST)

    retry = fake_api.requests[1].body["messages"][-1]["content"]
    assert result.valid, retry
    assert len(result.attempts) == 2 and len(fake_api.requests) == 2
    assert result.oml_text == FIXED
    # All three kinds of error came back in the first report, in one pass.
    assert sorted(result.attempts[0].report.error_codes) == ["OML203", "OML307"]
    assert len(result.attempts[0].report.errors) == 4
    assert "- OML307 /tasks/1/config/write_mode: write_mode is 'insert'" in retry
    assert "('insert' is called 'append' here: use 'append')" in retry
    # The quoted pipeline is the normalised one, and the prompt says what was normalised.
    assert "      table: customers\n      batch_size: 5000\n" in retry
    assert "Osiris already normalised these in the pipeline below" in retry
    assert "'table_name' is an alias of 'table'" in retry


def test_the_first_report_of_the_legacy_answer_is_complete(project):
    from tests.validate_helpers import validator

    report = validator().validate(LEGACY)

    assert [(i.code, i.path) for i in report.errors] == [
        ("OML203", "/tasks"), ("OML203", "/tasks/0/type"), ("OML203", "/tasks/1/type"),
        ("OML307", "/tasks/1/config/write_mode")]
