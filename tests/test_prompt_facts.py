"""Facts the model needs, in the prompt (issue 41): what a writer's replace and upsert do, whether
names keep their case, what a created table's columns become, how the CSV reader takes a byte-order
mark and quoted line breaks, and which steps depend on the one before them. Each fact is said where
the model reads it (the request message, for the components the request needs: `x-request-facts`
in the specs; the dependency rule in the system prompt), and the CSV facts are checked against a
real run, so that the prompt states what the driver does."""

from __future__ import annotations

from pathlib import Path

from osiris.prompt import build_system_prompt
from osiris.prompt.component_slice import ComponentSlice, request_facts
from osiris.registry import load_registry
from tests.conftest import write_settings
from tests.engine_harness import make_engine
from tests.engine_samples import VALID, fenced
from tests.fake_anthropic import Reply
from tests.run_helpers import RunProject, csv_step

CONNECTIONS = {"postgres": {"dw": {}}, "mysql": {"shop": {}}, "filesystem": {"files": {}}}


def stable_prompt() -> str:
    return build_system_prompt(load_registry(), CONNECTIONS).stable


def facts(request: str, current_oml: str | None = None) -> str:
    return request_facts(ComponentSlice.build(load_registry(), 3000, families=CONNECTIONS), request, current_oml)


def test_a_request_for_a_writer_is_told_what_replace_and_upsert_do_and_that_names_keep_their_case() -> None:
    said = facts("upsert the customers from data/customers.csv into postgres")
    assert said.startswith("What these components do (said by their drivers; rely on it):\n- postgres.writer: ")
    assert ("replace deletes every row first (DELETE in the write's own transaction): the table, its column types "
            "and keys stay, and a failed write keeps the old rows; upsert inserts new keys and, for a key that "
            "exists, updates only the columns the input has; the table's other columns keep their values; table "
            "and column names are quoted as written, so their case is kept") in said
    assert "- filesystem.csv_extractor: a UTF-8 byte-order mark at the start is skipped; a quoted field keeps its " \
           "line breaks and delimiters" in said
    mysql = facts("replace the orders table in mysql")
    assert "- mysql.writer: replace and truncate_before delete every row first (DELETE in the write's own " \
           "transaction, not TRUNCATE)" in mysql
    assert "needs a primary key or unique index on exactly upsert_keys" in mysql


def test_facts_come_only_for_the_components_a_request_needs() -> None:
    assert "mysql.writer" not in facts("upsert the customers from data/customers.csv into postgres")
    assert facts("count the rows of the posthog events") == (  # its page size only: no other component's facts
        "What these components do (said by their drivers; rely on it):\n"
        "- posthog.extractor: a page holds at most 10,000 rows (page_size 100..10000, default 1000)")
    pipeline = "steps:\n  - id: w\n    component: mysql.writer\n"
    assert "- mysql.writer:" in facts("count the rows of the posthog events", pipeline)  # the current pipeline's


def test_the_request_sent_carries_the_facts(project: Path, fake_api) -> None:
    write_settings(project, {"llm": {"base_url": fake_api.url, "timeout_seconds": 5},
                             "connections": {"postgres": {"dw": {"host": "pg", "database": "dw", "user": "etl"}}}})
    fake_api.add(Reply(fenced(VALID)))
    make_engine(project).engine.run("upsert data/customers.csv into the customers table of postgres")
    sent = fake_api.requests[0].body["messages"][-1]["content"]
    assert "- postgres.writer: replace deletes every row first" in sent


def test_the_prompt_says_which_steps_depend_on_the_one_before_them() -> None:
    prompt = " ".join(stable_prompt().split())
    assert ("A write or transform step without needs takes the step just before it; a read step without needs "
            "depends on nothing.") in prompt


def test_the_csv_reader_does_what_the_prompt_says(tmp_path: Path) -> None:
    proj = RunProject(tmp_path / "project")
    (proj.root / "data").mkdir()
    (proj.root / "data" / "notes.csv").write_bytes(b'\xef\xbb\xbfid,note,empty\n1,"two\nlines, one field",""\n2,plain,\n')
    path = proj.pipeline([csv_step("read-notes", "read", "data/notes.csv"),
                          csv_step("write-notes", "write", "out/notes.csv")])
    result = proj.run(str(path))
    assert result.returncode == 0, result.stderr
    # the mark is gone from the first column's name; the quoted field comes back whole, in quotes
    assert (proj.root / "out" / "notes.csv").read_bytes() == b'id,note,empty\n1,"two\nlines, one field",""\n2,plain,\n'
