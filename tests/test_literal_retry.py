"""Retry prompts true for a literal reader (issue 24): a scripted model that applies only the fixes the
retry prompt lists, each exactly as its hint words it, ends valid after one retry for each of the
three first answers that a model reading literally got wrong before: inline credentials, a broken
graph, and an answer holding a sketch block next to the complete pipeline. Through the real engine,
SDK, validator and the fake Messages API.

The scripted model knows a handful of phrases ("remove X from the step", "use connection: ...",
"replace 'a' with 'b' in needs", "write needs: [...]", "read T instead of U", "use mode: m"); a hint
it cannot follow fails the test, so every hint in these prompts must be one it can follow.
"""

from __future__ import annotations

import re
from typing import Any

import yaml

from tests.conftest import write_settings
from tests.engine_harness import make_engine
from tests.engine_samples import fenced
from tests.fake_anthropic import Reply

_ERROR = re.compile(r"^- (OML\d{3}) (\S+): .*? \| fix: (.*)$")
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
        step = steps[int(_STEP.match(path).group(1))]
        clauses = [c.strip() for c in re.split(r"; |, and ", hint)]
        for clause in clauses:
            if self.apply(clause, path, step, steps):
                self.applied.append(f"{code} {path}: {clause}")
        if not any(f"{code} {path}:" in done for done in self.applied):
            raise AssertionError(f"the literal model cannot follow: {code} {path}: {hint}")

    def apply(self, clause: str, path: str, step: dict[str, Any], steps: list[dict[str, Any]]) -> bool:
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
        else:
            return False
        return True


def run_literally(project, fake_api, first_answer: str, connections: dict[str, Any]) -> tuple[Any, LiteralModel, str]:
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
