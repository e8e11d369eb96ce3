"""A corpus of valid DuckDB queries (issue 41): none is flagged by the name checks (OML406,
osiris/validate/sql_scopes.py). Column aliases by position (`FROM df_x AS t(a, b)`, a derived
table's or a CTE's column list), VALUES, UNNEST and table functions, struct and list access, and
DuckDB's own forms, read from two extractors with known columns and a transform that makes a
struct and a list column. The names a column list renames away are still unknown."""

from __future__ import annotations

import json

import pytest

from osiris.validate import Validator
from tests.validate_helpers import AUDIT_READS, CONNECTIONS, registry

PIPELINE = AUDIT_READS + """\
  - id: enriched
    component: duckdb.processor
    mode: transform
    needs: [audit]
    config:
      query: "SELECT audit_id, {'who': actor, 'n': 1} AS info, [1, 2, 3] AS tags FROM df_audit"
  - id: q
    component: duckdb.processor
    mode: transform
    needs: [audit, last, enriched]
    config:
      query: {query}
"""
VALIDATOR = Validator(registry(), CONNECTIONS)


def issues(query: str) -> list[tuple[str, str]]:
    report = VALIDATOR.validate(PIPELINE.replace("{query}", json.dumps(query)))
    return [(i.code, i.message) for i in report.issues]


VALID = [
    # column aliases by position
    "SELECT a, b FROM df_audit AS t(a, b)",
    "SELECT t.a, t.b FROM df_audit AS t(a, b)",
    "SELECT a FROM df_audit t(a)",
    "SELECT x.k, y.v FROM df_audit AS x(k, w) JOIN df_last AS y(v) ON x.k = y.v",
    "SELECT s.n FROM (SELECT audit_id FROM df_audit) AS s(n)",
    "WITH c(n, who) AS (SELECT audit_id, actor FROM df_audit) SELECT n, who FROM c",
    "SELECT n FROM (SELECT audit_id, actor FROM df_audit) s(n, who) WHERE who <> ''",
    # VALUES
    "SELECT * FROM (VALUES (1, 'a'), (2, 'b')) AS v(id, name)",
    "SELECT v.id, v.name FROM (VALUES (1, 'a'), (2, 'b')) v(id, name)",
    "SELECT a.actor, m.label FROM df_audit a JOIN (VALUES (1, 'one')) AS m(id, label) ON m.id = a.audit_id",
    "SELECT id FROM (VALUES (1), (2)) t(id) WHERE id > 1",
    "SELECT col0 FROM (VALUES (1), (2))",
    "WITH m(id, label) AS (VALUES (1, 'x')) SELECT a.actor, m.label FROM df_audit a JOIN m ON m.id = a.audit_id",
    # UNNEST
    "SELECT unnest([1, 2, 3]) AS n",
    "SELECT n FROM unnest([1, 2, 3]) AS t(n)",
    "SELECT audit_id, unnest(tags) AS tag FROM df_enriched",
    "SELECT t.tag FROM df_enriched, unnest(tags) AS t(tag)",
    "SELECT e.audit_id, u.tag FROM df_enriched e CROSS JOIN unnest(e.tags) AS u(tag)",
    "SELECT unnest(info) FROM df_enriched",
    "SELECT x FROM (SELECT unnest(tags) AS x FROM df_enriched) WHERE x > 1",
    "SELECT * FROM range(5) AS r(i)",
    "SELECT i FROM range(5) r(i)",
    "SELECT generate_series FROM generate_series(1, 3)",
    # struct access
    "SELECT info.who FROM df_enriched",
    "SELECT e.info.who FROM df_enriched e",
    "SELECT info['who'] AS who FROM df_enriched",
    "SELECT struct_extract(info, 'who') AS who FROM df_enriched",
    "SELECT (info).who FROM df_enriched",
    "SELECT info.who, count(*) FROM df_enriched GROUP BY info.who",
    "SELECT audit_id FROM df_enriched WHERE info.n > 0",
    "SELECT {'a': audit_id, 'b': actor} AS s FROM df_audit",
    "SELECT s.a FROM (SELECT {'a': audit_id} AS s FROM df_audit)",
    "SELECT tags[1] AS first_tag FROM df_enriched",
    "SELECT list_transform(tags, x -> x + 1) AS bumped FROM df_enriched",
    "SELECT list_filter(tags, t -> t > 1) AS big FROM df_enriched",
    # other DuckDB forms
    "SELECT * EXCLUDE (actor) FROM df_audit",
    "SELECT * REPLACE (audit_id + 1 AS audit_id) FROM df_audit",
    "SELECT COLUMNS('a.*') FROM df_audit",
    "SELECT actor, count(*) AS n FROM df_audit GROUP BY ALL ORDER BY ALL",
    "SELECT actor, count(*) AS n FROM df_audit GROUP BY actor HAVING n > 1",
    "SELECT audit_id AS id, id + 1 AS next_id FROM df_audit",
    "SELECT * FROM df_audit QUALIFY row_number() OVER (PARTITION BY actor ORDER BY audit_id) = 1",
    "SELECT actor, row_number() OVER w AS rn FROM df_audit WINDOW w AS (PARTITION BY actor ORDER BY audit_id)",
    "FROM df_audit SELECT actor",
    "FROM df_audit",
    "SELECT a.audit_id FROM df_audit a ASOF JOIN df_last l ON a.audit_id >= l.last_id",
    "SELECT * FROM df_audit POSITIONAL JOIN df_last",
    "SELECT * FROM df_audit JOIN df_last ON audit_id = last_id",
    "SELECT actor FROM df_audit USING SAMPLE 10",
    "SELECT DISTINCT ON (actor) actor, audit_id FROM df_audit ORDER BY actor, audit_id DESC",
    "SELECT audit_id::VARCHAR AS s, TRY_CAST(actor AS INTEGER) AS n FROM df_audit",
    "SELECT actor FROM df_audit WHERE actor ILIKE 'a%' AND audit_id BETWEEN 1 AND 9",
    "SELECT strftime(now(), '%Y') AS y, current_date AS d",
    "SELECT l.last_id FROM df_last l WHERE l.last_id IN (SELECT audit_id FROM df_audit)",
    "SELECT * FROM df_audit ANTI JOIN df_last ON audit_id = last_id",
    "SELECT * FROM df_audit SEMI JOIN df_last ON audit_id = last_id",
    "SELECT audit_id, actor FROM df_audit UNION BY NAME SELECT last_id AS audit_id, NULL AS actor FROM df_last",
    "SELECT max_by(actor, audit_id) AS latest, arg_min(actor, audit_id) AS first FROM df_audit",
    "SELECT actor, list(audit_id ORDER BY audit_id) AS ids FROM df_audit GROUP BY actor",
    "SELECT audit_id, CASE WHEN actor IS NULL THEN 'none' ELSE actor END AS who FROM df_audit",
    "SELECT * FROM df_audit, LATERAL (SELECT audit_id * 2 AS doubled) d",
]


def test_the_corpus_is_large_enough_to_mean_something():
    assert len(VALID) >= 40 and len(set(VALID)) == len(VALID)


@pytest.mark.parametrize("query", VALID)
def test_a_valid_duckdb_query_is_not_flagged(query):
    assert issues(query) == []


@pytest.mark.parametrize("query, column, table", [
    ("SELECT audit_id FROM df_audit AS t(a, b)", "audit_id", "df_audit (step 'audit')"),  # renamed away
    ("SELECT t.c FROM df_audit AS t(a, b)", "c", "df_audit (step 'audit')"),
    ("SELECT s.audit_id FROM (SELECT audit_id FROM df_audit) AS s(n)", "audit_id", "s"),
    ("WITH c(n) AS (SELECT audit_id FROM df_audit) SELECT audit_id FROM c", "audit_id", "c"),
    ("SELECT v.nope FROM (VALUES (1, 'a')) AS v(id, name)", "nope", "v"),
])
def test_a_name_a_column_list_does_not_give_is_still_unknown(query, column, table):
    assert issues(query) == [("OML406", f"column '{column}' is not a column of {table}")]


@pytest.mark.parametrize("query, said", [
    ("SELECT * FROM (PIVOT df_audit ON actor USING count(*))", "the query uses PIVOT"),
    ("SELECT * FROM df_audit PIVOT (count(*) FOR actor IN ('a', 'b'))", "the query uses PIVOT"),
    ("SELECT * FROM (UNPIVOT df_audit ON actor INTO NAME k VALUE v)", "the query uses UNPIVOT"),
])
def test_valid_duckdb_that_makes_columns_from_data_is_refused_by_the_list(query, said):
    # valid DuckDB, but its output columns come from cell values (docs/security.md, "SQL allowed by list")
    [(code, message)] = issues(query)
    assert code == "OML408" and message.startswith(said), message


def test_a_column_past_the_list_keeps_its_name():
    assert issues("SELECT a, actor FROM df_audit AS t(a)") == []
