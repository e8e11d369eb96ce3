"""SQL scopes in the name checks (osiris/validate/sql_scopes.py, issue 24): subqueries, derived
tables and CTEs each look names up where SQL does; a correlated reference to an outer column
stays valid; a wrong name inside a subquery is blamed on the subquery's own table. The same holds
for a PostgreSQL extractor checked against its catalog, and a table missing from a fresh catalog
suggests discovering it (issue 30)."""

from __future__ import annotations

from pathlib import Path

import pytest

from osiris.catalog import Catalog, Catalogs, write_catalog
from osiris.validate import Validator
from tests.validate_helpers import AUDIT_READS, CONNECTIONS, registry, run_cli

AUDIT = AUDIT_READS + """\
  - id: new-rows
    component: duckdb.processor
    mode: transform
    needs: [audit, last]
    config:
      query: "{query}"
"""


def processor_issues(query: str) -> list[tuple[str, str, str]]:
    report = Validator(registry(), CONNECTIONS).validate(AUDIT.replace("{query}", query))
    return [(i.code, i.message, i.hint) for i in report.issues]


@pytest.mark.parametrize("query", [
    "SELECT * FROM df_audit WHERE audit_id > (SELECT last_id FROM df_last)",  # scalar subquery
    "SELECT * FROM df_audit WHERE audit_id IN (SELECT last_id FROM df_last)",
    "SELECT * FROM df_audit WHERE NOT EXISTS (SELECT 1 FROM df_last WHERE last_id = audit_id)",  # correlated
    "SELECT * FROM df_audit a WHERE EXISTS (SELECT 1 FROM df_last l WHERE l.last_id >= a.audit_id)",
    "SELECT d.last_id FROM (SELECT last_id FROM df_last) d",  # derived table
    "SELECT a.actor, m.top FROM df_audit a, (SELECT max(last_id) AS top FROM df_last) m",
    "WITH l AS (SELECT max(last_id) AS top FROM df_last) SELECT actor FROM df_audit, l WHERE audit_id > top",
    "WITH l AS (SELECT last_id FROM df_last) SELECT * FROM df_audit WHERE audit_id > (SELECT max(last_id) FROM l)",
    "SELECT audit_id FROM df_audit UNION ALL SELECT last_id FROM df_last",
])
def test_names_in_nested_scopes_are_found_where_sql_finds_them(query):
    assert processor_issues(query) == []


@pytest.mark.parametrize("query, table, hint", [
    ("SELECT * FROM df_audit WHERE audit_id > (SELECT lastid FROM df_last)", "df_last",
     "did you mean 'last_id'? columns: last_id"),
    ("SELECT * FROM df_audit WHERE audit_id IN (SELECT lastid FROM df_last)", "df_last",
     "did you mean 'last_id'? columns: last_id"),
    ("SELECT * FROM df_audit WHERE EXISTS (SELECT 1 FROM df_last WHERE lastid = audit_id)", "df_last",
     "did you mean 'last_id'? columns: last_id"),
    ("WITH l AS (SELECT lastid FROM df_last) SELECT * FROM df_audit", "df_last",
     "did you mean 'last_id'? columns: last_id"),
    ("SELECT lastid FROM df_audit WHERE audit_id > (SELECT max(last_id) FROM df_last)", "df_audit",
     "columns: audit_id, actor"),  # not a column of the outer query's table, whatever the subquery reads
])
def test_a_wrong_column_is_blamed_on_the_table_of_its_own_scope(query, table, hint):
    assert processor_issues(query) == [
        ("OML406", f"column 'lastid' is not a column of {table} (step '{table[3:]}')", hint)]


def test_a_cte_does_not_see_the_tables_of_the_query_it_belongs_to():
    query = "WITH l AS (SELECT last_id FROM df_last WHERE last_id > audit_id) SELECT * FROM df_audit, l"
    assert [code for code, *_ in processor_issues(query)] == ["OML406"]


# --- against a discovered PostgreSQL catalog -------------------------------------------------

SHOP = {
    "audit_log": {"columns": [{"name": "audit_id", "type": "integer", "nullable": False},
                              {"name": "actor", "type": "text", "nullable": True}], "primary_key": ["audit_id"]},
    "checkpoints": {"columns": [{"name": "last_id", "type": "integer", "nullable": False}], "primary_key": []},
}


def catalogs(root: Path) -> Catalogs:
    write_catalog(root, Catalog("postgres.default", "postgres", "@postgres.default", "2099-01-01T00:00:00Z", SHOP))
    return Catalogs(root, 7)


def extractor_issues(root: Path, query: str) -> list[tuple[str, str, str]]:
    text = AUDIT.split("  - id: last")[0].replace("SELECT audit_id, actor FROM audit_log", query)
    report = Validator(registry(), CONNECTIONS, catalogs=catalogs(root)).validate(text)
    return [(i.code, i.message, i.hint) for i in report.issues]


def test_a_postgres_query_with_subqueries_passes_its_catalog(tmp_path):
    query = ("SELECT a.actor FROM audit_log a WHERE a.audit_id > (SELECT max(last_id) FROM checkpoints) "
             "AND EXISTS (SELECT 1 FROM checkpoints c WHERE c.last_id < a.audit_id) "
             "AND audit_id IN (SELECT last_id FROM checkpoints)")
    assert extractor_issues(tmp_path, query) == []


def test_a_table_newer_than_a_fresh_catalog_suggests_discovering_it(tmp_path):
    assert extractor_issues(tmp_path, "SELECT * FROM audit_events") == [(
        "OML406", "table 'audit_events' is not in the catalog of @postgres.default",
        "tables: audit_log, checkpoints; if audit_events was created after the last discovery, run "
        "osiris discover @postgres.default audit_events")]


def test_osiris_validate_prints_the_discover_hint(tmp_path):
    catalogs(tmp_path)
    (tmp_path / ".osiris.yaml").write_text("connections:\n  postgres:\n    default: {host: pg, database: dw}\n")
    (tmp_path / "p.yaml").write_text(AUDIT.split("  - id: last")[0].replace("audit_log", "audit_events"))
    result = run_cli("validate", "p.yaml", cwd=tmp_path)
    assert result.returncode == 1
    assert result.stdout.splitlines()[:2] == [
        "p.yaml:9:43 OML406 table 'audit_events' is not in the catalog of @postgres.default",
        "    hint: tables: audit_log, checkpoints; if audit_events was created after the last discovery, run "
        "osiris discover @postgres.default audit_events"]
