"""One failing and one passing case for every issue code of docs/errors.md."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from osiris.validate import CODES
from tests.validate_helpers import csv_step, extract_step, oml, step, validator

GOOD = oml()
FENCED = "Here is your pipeline:\n```yaml\n" + GOOD + "```\nLet me know if you need changes."


def rule(**fields):
    return SimpleNamespace(**{"when": None, "level": "error", "message": None, **fields})


def query_step(query):
    return step("extract-customers", "mysql.extractor", "read", {"connection": "@mysql.default", "query": query})


def kebab_name():
    return oml(name="Customers To CSV")


CASES: dict[str, tuple[str, str, dict]] = {
    "OML101": ("oml_version: '0.1.0'\nsteps: [\n", GOOD, {}),
    "OML102": ("I am sorry, I cannot build that pipeline.", FENCED, {}),
    "OML103": (GOOD + "---\n" + GOOD, GOOD, {}),
    "OML104": (GOOD + "name: again\n", GOOD, {}),
    "OML105": ("a: &a [x, x, x, x, x, x, x, x, x, x]\n" + "".join(
        f"{n}: &{n} [{', '.join(['*' + p] * 10)}]\n" for p, n in zip("abcdef", "bcdefg")), GOOD, {}),
    "OML106": ("```yaml\n" + GOOD[:60], FENCED, {}),
    "OML201": ("- oml_version: '0.1.0'\n  name: a-list\n", GOOD, {}),
    "OML202": (oml(name=None), GOOD, {}),
    "OML203": (oml(tasks=[]), GOOD, {}),
    "OML204": (oml(owner="me"), oml(description="a known key")),
    "OML205": (oml(oml_version=0.1), GOOD, {}),
    "OML206": (oml(oml_version="2.0"), GOOD, {}),
    "OML207": (oml(steps=[]), GOOD, {}),
    "OML208": (oml({"id": "a", "component": "duckdb.processor", "config": {"query": "select 1"}}), GOOD, {}),
    "OML209": (oml(step("q", "duckdb.processor", "transform", {"query": "select 1"}, retries=3)), GOOD, {}),
    "OML210": (oml(extract_step(), {**extract_step()}, csv_step()), GOOD, {}),
    "OML211": (kebab_name(), GOOD, {}),
    "OML212": (oml(step("e", "mysql.extractor", "extract", {"connection": "@mysql.default", "table": "t"})),
               GOOD, {}),
    "OML213": (oml(schedule="every night"), oml(schedule="0 2 * * *"), {}),
    "OML214": (oml({**extract_step(), "id": "extract customers"}, csv_step()), GOOD, {}),
    "OML215": (oml(extract_step(), csv_step(), {**csv_step(), "id": "write_csv"}),
               oml(extract_step(), csv_step(), {**csv_step(), "id": "write_csv-2"}), {}),
    "OML216": (oml(params={"source-table": {"default": "customers"}}),
               oml(params={"source_table": {"default": "customers", "description": "the table"}}), {}),
    "OML217": (oml({**extract_step(), "checks": [{"not_nul": ["email"]}]}, csv_step()),
               oml({**extract_step(), "checks": [{"not_null": ["email"]}]}, csv_step()), {}),
    "OML301": (oml(step("e", "mysql.extractr", "read", {"connection": "@mysql.default", "table": "t"})), GOOD, {}),
    "OML302": (oml(step("e", "mysql.extractor", "write", {"connection": "@mysql.default", "table": "t"})), GOOD, {}),
    "OML303": (oml(step("e", "mysql.extractor", "read", {"table": "t"})), GOOD, {}),
    "OML304": (oml(extract_step(colour="blue"), csv_step()), GOOD, {}),
    "OML305": (oml(extract_step(columns={"a": 1}), csv_step()), oml(extract_step(columns=["a"]), csv_step()), {}),
    "OML306": (oml(extract_step(batch_size=50), csv_step()), oml(extract_step(batch_size=500), csv_step()), {}),
    "OML307": (oml(extract_step(), csv_step(encoding="klingon")), oml(extract_step(), csv_step(encoding="ascii")), {}),
    "OML308": (oml(step("g", "graphql.extractor", "read", {"endpoint": "not a url", "query": "{ a }"})),
               oml(step("g", "graphql.extractor", "read", {"endpoint": "https://x.io/graphql", "query": "{ a }"})), {}),
    "OML309": (oml(extract_step(), step("w", "mysql.writer", "write", {"connection": "@mysql.default", "table": "t",
                                                                       "mode": "upsert"})),
               oml(extract_step(), step("w", "mysql.writer", "write", {"connection": "@mysql.default", "table": "t",
                                                                       "mode": "upsert", "upsert_keys": ["id"]})), {}),
    "OML310": (oml(step("e", "mysql.extractor", "read", {"host": "h", "database": "d", "user": "u",
                                                          "password": "hunter2", "table": "t"})), GOOD, {}),
    "OML311": (oml(extract_step(connection="mysql.default"), csv_step()), GOOD, {}),
    "OML312": (oml(extract_step(connection="@mysql.replica"), csv_step()), GOOD, {}),
    "OML313": (oml(extract_step(connection="@postgres.default"), csv_step()), GOOD, {}),
    # port was the passing override before issue 22: it says where the connection goes, so it is OML314 now
    "OML314": (oml(extract_step(database="other"), csv_step()), oml(extract_step(schema="sales"), csv_step()), {}),
    "OML315": (oml(extract_step(batch_size="500"), csv_step()), oml(extract_step(batch_size=500), csv_step()), {}),
    "OML316": (oml(extract_step(), csv_step(path="out/${USER}.csv")), GOOD, {}),
    "OML317": (oml(extract_step(), csv_step(path="../outside.csv")), oml(extract_step(), csv_step(path="out/a.csv")), {}),
    "OML318": (oml(extract_step(table="${params.table}"), csv_step()),
               oml(extract_step(table="${params.table}"), csv_step(), params={"table": {"default": "customers"}}), {}),
    "OML319": (oml(extract_step(incremental={"cursor": "id"}, limit=10), csv_step()),
               oml(extract_step(incremental={"cursor": "id"}), csv_step()), {}),
    "OML320": (oml(extract_step(incremental={"cursor": "updated_at"}, columns=["id", "email"]), csv_step()),
               oml(extract_step(incremental={"cursor": "updated_at"}, columns=["id", "updated_at"]), csv_step()), {}),
    "OML321": (oml(extract_step(pool_size=10), csv_step()), GOOD, {}),  # every such field: tests/test_no_effect_fields.py
    "OML401": (oml(extract_step(), csv_step(needs=["extract-customer"])), GOOD, {}),
    "OML402": (oml(step("a", "duckdb.processor", "transform", {"query": "select 1"}, needs=["b"]),
                   step("b", "duckdb.processor", "transform", {"query": "select 1"}, needs=["a"])), GOOD, {}),
    "OML403": (oml(step("a", "duckdb.processor", "transform", {"query": "select 1"}, needs=["a"])), GOOD, {}),
    "OML404": (oml(extract_step(), csv_step(delimiter=";")), GOOD,
               {"rules": [rule(name="comma-csv", when="step.component == 'filesystem.csv_writer'",
                               expr="step.config.delimiter is None or step.config.delimiter == ','")]}),
    "OML405": (oml(query_step("SELECT id FROM customers WHERE = 1"), csv_step()),
               oml(query_step("SELECT id FROM customers WHERE active = 1"), csv_step()), {}),
    "OML406": (oml(query_step("SELECT id, email FROM customers"),
                   step("shape", "duckdb.processor", "transform", {"query": "SELECT id, emial FROM input_df"},
                        needs=["extract-customers"])),
               oml(query_step("SELECT id, email FROM customers"),
                   step("shape", "duckdb.processor", "transform", {"query": "SELECT id, email FROM input_df"},
                        needs=["extract-customers"])), {}),
    "OML407": (oml(extract_step(), step("shape", "duckdb.processor", "transform",
                                        {"query": "SELECT id FROM customers"}, needs=["extract-customers"])),
               oml(extract_step(), step("shape", "duckdb.processor", "transform",
                                        {"query": "SELECT id FROM df_extract_customers"}, needs=["extract-customers"])),
               {}),
    "OML408": (oml(extract_step(), step("shape", "duckdb.processor", "transform",
                                        {"query": "SELECT * FROM read_text('/proc/self/environ')"},
                                        needs=["extract-customers"])),
               oml(extract_step(), step("shape", "duckdb.processor", "transform",
                                        {"query": "SELECT i FROM range(3) t(i)"}, needs=["extract-customers"])), {}),
    "OML409": (oml(extract_step(), csv_step(), {**csv_step(needs=[]), "id": "write-copy"}),
               oml(extract_step(), csv_step(), {**csv_step(), "id": "write-copy"}), {}),
    "OML416": (oml(step("get", "graphql.extractor", "read", {
                   "endpoint": "https://api.example.com/graphql", "pagination_enabled": True,
                   "query": "query($after: String) { items { nodes { id } pageInfo { hasNextPage endCursor } } }"})),
               oml(step("get", "graphql.extractor", "read", {
                   "endpoint": "https://api.example.com/graphql", "pagination_enabled": True,
                   "query": "query($after: String) { items(after: $after) { nodes { id } pageInfo { hasNextPage "
                            "endCursor } } }"})), {}),
}
# A tuple of two means no extra arguments.
CASES = {code: case if len(case) == 3 else (*case, {}) for code, case in CASES.items()}


SPARK_ENGINE_CODES = ("OML412", "OML413", "OML414")  # the Spark engine's own checks: tests/test_spark.py


def test_every_code_has_cases():
    """Tiers 1-4; tier 5 (OML5xx) is raised only by running a pipeline: tests/test_run_*.py; the
    checks of `run.engine: spark` (osiris.run.spark.transpile) in tests/test_spark.py."""
    assert sorted(CASES) == sorted(code for code, info in CODES.items()
                                   if info.tier < 5 and code not in SPARK_ENGINE_CODES)


@pytest.mark.parametrize("code", sorted(CASES))
def test_bad_input_reports_the_code(code):
    bad, _, options = CASES[code]
    report = validator(options.get("rules", ())).validate(bad)
    found = [issue for issue in report.issues if issue.code == code]
    assert found, f"{code} not reported; got {[i.code for i in report.issues]}"
    issue = found[0]
    assert issue.tier == CODES[code].tier
    assert issue.message and issue.hint
    if CODES[code].severity == "error" and code not in ("OML314",):
        assert not report.valid


@pytest.mark.parametrize("code", sorted(CASES))
def test_good_input_does_not_report_the_code(code):
    _, good, options = CASES[code]
    report = validator(options.get("rules", ())).validate(good)
    assert code not in [issue.code for issue in report.issues]
    assert report.valid, [issue.to_dict() for issue in report.errors]
