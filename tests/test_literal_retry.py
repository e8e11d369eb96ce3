"""Retry prompts true for a literal reader (issue 24): a scripted model that applies only the fixes the
retry prompt lists, each exactly as its hint words it, ends valid after one retry for each of the
three first answers that a model reading literally got wrong before: inline credentials, a broken
graph, and an answer holding a sketch block next to the complete pipeline. Through the real engine,
SDK, validator and the fake Messages API.

The scripted model knows a handful of phrases ("remove X from the step", "use connection: ...",
"replace 'a' with 'b' in needs", "write needs: [...]", "read T instead of U", "use mode: m",
"rename 'k' to 'n'", "set f (...): what it holds, e.g. f: v", "write schedule: "...", "use name: n");
a hint it cannot follow fails the test, so every hint in these prompts must be one it can follow.
Issue 41 adds three first answers: hints on one step that disagreed (OML401 and OML407), fields a
constraint requires, and keys and a schedule from other formats with a name that is not kebab-case.
"""

from __future__ import annotations

import re
from typing import Any

import yaml

from tests.conftest import write_settings
from tests.engine_harness import make_engine
from tests.engine_samples import fenced
from tests.fake_anthropic import Reply

_ERROR = re.compile(r"^- (OML\d{3})(?: \(warning\))? (\S+): .*? \| fix: (.*)$")
_QUOTED = re.compile(r"<previous_pipeline>.*?\n(`{3,})yaml\n(.*?)\n\1\n</previous_pipeline>", re.DOTALL)
_STEP = re.compile(r"^/steps/(\d+)")


class LiteralModel:
    """Applies each listed fix to the quoted pipeline, literally; records what it did."""

    def __init__(self) -> None:
        self.applied: list[str] = []

    def __call__(self, body: dict[str, Any]) -> Reply:
        prompt = body["messages"][-1]["content"]
        pipeline = yaml.safe_load(_QUOTED.search(prompt).group(2))
        for line in prompt.splitlines():
            match = _ERROR.match(line)
            if match:
                self.follow(pipeline, *match.groups())
        return Reply(fenced(yaml.safe_dump(pipeline, sort_keys=False)))

    def follow(self, pipeline: dict[str, Any], code: str, path: str, hint: str) -> None:
        steps = pipeline["steps"]
        at_step = _STEP.match(path)
        step = steps[int(at_step.group(1))] if at_step else pipeline
        clauses = [c.strip() for c in re.split(r"; |, and ", hint)]
        for clause in clauses:
            if self.apply(clause, path, step, pipeline) or (at_step and self.apply_to_step(clause, path, step)):
                self.applied.append(f"{code} {path}: {clause}")
        if not any(f"{code} {path}:" in done for done in self.applied):
            raise AssertionError(f"the literal model cannot follow: {code} {path}: {hint}")

    def apply(self, clause: str, path: str, where: dict[str, Any], pipeline: dict[str, Any]) -> bool:
        """The phrases that edit the mapping the path is in (a step, or the pipeline's top level)."""
        if match := re.match(r"rename '([^']+)' to '([^']+)'", clause):
            key = path.rsplit("/", 1)[1]
            assert key == match.group(1) and match.group(2) not in where, clause
            where[match.group(2)] = where.pop(key)
        elif match := re.match(r'write schedule: "([^"]+)"', clause):
            pipeline["schedule"] = match.group(1)
        elif match := re.match(r"use name: ([a-z0-9-]+)$", clause):
            pipeline["name"] = match.group(1)
        else:
            return False
        return True

    def apply_to_step(self, clause: str, path: str, step: dict[str, Any]) -> bool:
        config = step.setdefault("config", {})
        if clause.startswith("remove it from the step"):
            config.pop(path.rsplit("/", 1)[1])
        elif match := re.match(r'.*use connection: "(@[\w.-]+)"', clause):
            config["connection"] = match.group(1)
        elif match := re.match(r"remove ([\w, ]+) from the step as well", clause):
            for name in re.split(r", | and ", match.group(1)):
                config.pop(name)
        elif match := re.match(r"remove '([^']+)' from needs", clause):
            step["needs"].remove(match.group(1))
        elif match := re.match(r"replace '([^']+)' with '([^']+)' in needs", clause):
            step["needs"] = [match.group(2) if n == match.group(1) else n for n in step["needs"]]
        elif match := re.match(r"write needs: \[([^\]]*)\]", clause):
            step["needs"] = [n.strip() for n in match.group(1).split(",") if n.strip()]
        elif match := re.match(r"read (\w+) instead of (\w+)", clause):
            config["query"] = re.sub(rf"(?<![\w.]){match.group(2)}(?!\w)", match.group(1), config["query"])
        elif match := re.match(r"use mode: (\w+)", clause):
            step["mode"] = match.group(1)
        elif match := re.match(r"set (\w+) \(needed when [^)]*\): .*\be\.g\. \1: (.+)$", clause):
            config[match.group(1)] = yaml.safe_load(match.group(2))  # the spec's example, literally
        else:
            return False
        return True


def run_literally(project, fake_api, first_answer: str, connections: dict[str, Any]) -> tuple[Any, LiteralModel, str]:
    """Run the engine on `first_answer`, the literal model answering the retry; the result must be
    valid at the second attempt."""
    write_settings(project, {"llm": {"base_url": fake_api.url, "timeout_seconds": 5}, "connections": connections})
    model = LiteralModel()
    fake_api.add(Reply(first_answer), model)
    result = make_engine(project).engine.run("copy the customers' order totals to a CSV")
    retry = fake_api.requests[1].body["messages"][-1]["content"]
    assert result.valid, retry
    assert len(result.attempts) == 2 and len(fake_api.requests) == 2
    return result, model, retry


MYSQL = {"mysql": {"default": {"host": "db.internal", "database": "shop", "user": "reader",
                               "password": "${MYSQL_PASSWORD}"}}}


def test_inline_credentials_are_fixed_in_one_retry_because_the_hint_names_everything_the_connection_supplies(
        project, fake_api):
    first = fenced("""\
oml_version: "0.1.0"
name: inline-credentials
steps:
  - id: extract-customers
    component: mysql.extractor
    mode: read
    config:
      host: db.internal
      user: reader
      database: shop
      password: hunter2-inline
      table: customers
  - id: write-csv
    component: filesystem.csv_writer
    mode: write
    needs: [extract-customers]
    config:
      path: out/customers.csv
""")
    result, model, retry = run_literally(project, fake_api, first, MYSQL)
    assert model.applied == [
        "OML310 /steps/0/config/password: remove it from the step",
        'OML310 /steps/0/config/password: secrets come from a connection: use connection: "@mysql.default" '
        "(configured aliases: default)",
        "OML310 /steps/0/config/password: remove host, database, user from the step as well: the connection "
        "supplies them",
    ]
    assert "hunter2-inline" not in retry
    assert yaml.safe_load(result.oml_text)["steps"][0]["config"] == {"table": "customers",
                                                                    "connection": "@mysql.default"}


def test_a_broken_graph_is_fixed_in_one_retry_without_a_cycle_or_a_wrong_table(project, fake_api):
    first = fenced("""\
oml_version: "0.1.0"
name: order-totals
steps:
  - id: customers
    component: mysql.extractor
    mode: read
    config: {connection: "@mysql.default", table: customers}
  - id: orders
    component: mysql.extractor
    mode: read
    needs: [totals]
    config: {connection: "@mysql.default", table: orders}
  - id: totals
    component: duckdb.processor
    mode: transform
    needs: [customers]
    config:
      query: SELECT c.id, sum(o.total) AS spent FROM input_df c JOIN orders o ON o.customer_id = c.id GROUP BY c.id
  - id: write-csv
    component: filesystem.csv_writer
    mode: write
    needs: [totals]
    config: {path: out/totals.csv}
""")
    result, model, retry = run_literally(project, fake_api, first, MYSQL)
    assert "move step" not in retry  # moving 'totals' above 'orders' would make a cycle: totals reads orders
    assert model.applied == [
        "OML401 /steps/1/needs/0: remove 'totals' from needs: 'totals' takes the rows of 'orders' (directly or "
        "through other steps), so it must run after it",
        "OML407 /steps/2/config/query: write needs: [customers, orders]",
        "OML407 /steps/2/config/query: read df_orders instead of orders (the rows of step 'orders')",
        "OML407 /steps/2/config/query: read df_customers instead of input_df: with two inputs there is no input_df",
    ]
    totals = yaml.safe_load(result.oml_text)["steps"][2]
    assert totals["needs"] == ["customers", "orders"]
    assert totals["config"]["query"] == ("SELECT c.id, sum(o.total) AS spent FROM df_customers c JOIN df_orders o "
                                         "ON o.customer_id = c.id GROUP BY c.id")


def test_the_complete_pipeline_next_to_a_sketch_is_the_one_validated_and_quoted(project, fake_api):
    complete = """\
oml_version: "0.1.0"
name: customers-to-csv
steps:
  - id: read-customers
    component: filesystem.csv_extractor
    mode: extract
    config: {path: data/customers.csv}
  - id: write-csv
    component: filesystem.csv_writer
    mode: write
    needs: [read-customers]
    config: {path: out/customers.csv}
"""
    sketch = "steps:\n  - read customers.csv\n  - write the active ones\n"
    first = f"The plan:\n\n```yaml\n{sketch}```\n\nThe pipeline:\n\n```yaml\n{complete}```\n"
    result, model, retry = run_literally(project, fake_api, first, {})
    assert model.applied == ["OML212 /steps/0/mode: use mode: read"]
    assert "name: customers-to-csv" in _QUOTED.search(retry).group(2)
    assert "read customers.csv" not in retry
    assert yaml.safe_load(result.oml_text)["steps"][0]["mode"] == "read"


def test_an_unknown_need_and_the_table_it_meant_get_one_fix_not_two_that_disagree(project, fake_api):
    first = fenced("""\
oml_version: "0.1.0"
name: order-totals
steps:
  - id: customers
    component: mysql.extractor
    mode: read
    config: {connection: "@mysql.default", table: customers}
  - id: orders
    component: mysql.extractor
    mode: read
    config: {connection: "@mysql.default", table: orders}
  - id: totals
    component: duckdb.processor
    mode: transform
    needs: [customers, order]
    config:
      query: SELECT c.id, sum(o.total) AS spent FROM df_customers c JOIN orders o ON o.customer_id = c.id GROUP BY c.id
  - id: write-csv
    component: filesystem.csv_writer
    mode: write
    needs: [totals]
    config: {path: out/totals.csv}
""")
    result, model, retry = run_literally(project, fake_api, first, MYSQL)
    assert "order, orders" not in retry  # OML407 no longer keeps the unknown id in the needs it writes
    assert model.applied == [
        "OML401 /steps/2/needs/1: replace 'order' with 'orders' in needs",
        "OML407 /steps/2/config/query: read df_orders instead of orders (the rows of step 'orders')",
    ]
    totals = yaml.safe_load(result.oml_text)["steps"][2]
    assert totals["needs"] == ["customers", "orders"]
    assert "JOIN df_orders o" in totals["config"]["query"]


def test_fields_a_constraint_requires_are_set_from_what_the_hint_says_they_hold(project, fake_api):
    first = fenced("""\
oml_version: "0.1.0"
name: contacts-to-postgres
steps:
  - id: read-contacts
    component: rest.extractor
    mode: read
    config: {connection: "@rest.crm", endpoint: /contacts, pagination: cursor, data_path: results}
  - id: write-contacts
    component: postgres.writer
    mode: write
    needs: [read-contacts]
    config: {connection: "@postgres.default", table: contacts, write_mode: upsert}
""")
    connections = {"rest": {"crm": {"base_url": "https://crm.example.com/api"}},
                   "postgres": {"default": {"host": "pg.internal", "database": "dw", "user": "etl"}}}
    result, model, retry = run_literally(project, fake_api, first, connections)
    assert model.applied == [
        "OML309 /steps/0/config/cursor_path: set cursor_path (needed when pagination is 'cursor'): Dotted path to "
        "the next cursor in each response, e.g. cursor_path: meta.next_cursor",
        "OML309 /steps/1/config/primary_key: set primary_key (needed when write_mode is 'upsert'): Key column(s) "
        "that identify a row, for upsert and replace, e.g. primary_key: id",
    ]
    steps = yaml.safe_load(result.oml_text)["steps"]
    assert steps[0]["config"]["cursor_path"] == "meta.next_cursor"
    assert steps[1]["config"]["primary_key"] == "id"


def test_a_key_and_a_schedule_from_other_formats_are_renamed_and_keep_their_timing(project, fake_api):
    first = fenced("""\
oml_version: "0.1.0"
name: Hourly_Customers
schedule: "0 0 * * * *"
steps:
  - id: read-customers
    component: filesystem.csv_extractor
    mode: read
    config: {path: data/customers.csv}
  - id: write-csv
    component: filesystem.csv_writer
    mode: write
    depends_on: [read-customers]
    config: {path: out/customers.csv}
""")
    result, model, retry = run_literally(project, fake_api, first, {})
    assert model.applied == [
        'OML213 /schedule: write schedule: "0 * * * *" (the same times without the seconds field, which 5-field '
        "cron does not have)",
        "OML209 /steps/1/depends_on: rename 'depends_on' to 'needs' (OML lists the ids of the earlier steps a step "
        "depends on under needs)",
        "OML211 /name: use name: hourly-customers",
    ]
    assert "Fix these warnings as well" in retry
    pipeline = yaml.safe_load(result.oml_text)
    assert (pipeline["name"], pipeline["schedule"]) == ("hourly-customers", "0 * * * *")  # still hourly
    assert pipeline["steps"][1]["needs"] == ["read-customers"]
    assert result.attempts[-1].report.issues == []  # no warning left behind
