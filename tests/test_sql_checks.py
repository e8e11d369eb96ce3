"""SQL in pipelines (issue 13): parse errors at their YAML position (OML405), unknown tables and
columns against a schema catalog or a processor's inputs (OML406), tables that are not inputs (OML407)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path


from osiris.catalog import Catalog, Catalogs, write_catalog
from osiris.registry import load_registry
from osiris.validate import Validator
from tests.inprocess import run_inprocess as run_osiris  # in-process: tests/inprocess.py
from tests.support import REPO, clean_env
from tests.validate_helpers import CONNECTIONS, registry

SHOP_TABLES = {
    "customers": {"columns": [{"name": "id", "type": "int", "nullable": False},
                              {"name": "email", "type": "varchar(255)", "nullable": True},
                              {"name": "active", "type": "tinyint(1)", "nullable": True}],
                  "primary_key": ["id"]},
    "orders": {"columns": [{"name": "id", "type": "int", "nullable": False},
                           {"name": "customer_id", "type": "int", "nullable": True},
                           {"name": "total", "type": "decimal(10,2)", "nullable": True}],
               "primary_key": ["id"]},
}


def catalogs(root: Path, discovered_at: str = "2099-01-01T00:00:00Z", max_age_days: float = 7) -> Catalogs:
    write_catalog(root, Catalog("mysql.default", "mysql", "@mysql.default", discovered_at, SHOP_TABLES))
    return Catalogs(root, max_age_days)


def check(text: str, found: Catalogs | None = None) -> list[tuple]:
    report = Validator(registry(), CONNECTIONS, catalogs=found).validate(textwrap.dedent(text))
    return [(i.code, i.severity, i.line, i.column, i.message, i.hint) for i in report.issues]


HEAD = """\
    oml_version: "0.1.0"
    name: sql-checks
    steps:
"""


# --- OML405: the position inside the YAML file, per dialect and scalar style --------------------

def test_mysql_syntax_error_in_a_plain_scalar_points_at_the_yaml_column():
    issues = check(HEAD + """\
      - id: extract
        component: mysql.extractor
        mode: read
        config:
          connection: "@mysql.default"
          query: SELECT id FROM customers WHERE active = = 1
    """)
    assert issues == [("OML405", "error", 9, 54,
                       "SQL syntax error in step 'extract' (MySQL): '=' is missing an operand, "
                       "near \"customers WHERE active = = 1\"",
                       "correct the SQL at this position; it must be one MySQL query "
                       "(SELECT ... or WITH ... SELECT ...)")]


def test_postgres_syntax_error_in_a_double_quoted_scalar_with_escapes():
    issues = check(HEAD + """\
      - id: extract
        component: postgres.extractor
        mode: read
        config:
          connection: "@postgres.default"
          query: "SELECT \\"id\\", total FROM orders WHERE total IN (1, 2"
    """)
    code, severity, line, column, message, _ = issues[0]
    assert (code, line, column) == ("OML405", 9, 67)  # the last "2": the list is never closed
    assert message.startswith("SQL syntax error in step 'extract' (PostgreSQL): expected ')'")


def test_duckdb_syntax_error_in_a_block_scalar_on_its_own_line():
    issues = check(HEAD + """\
      - id: extract
        component: mysql.extractor
        mode: read
        config:
          connection: "@mysql.default"
          table: customers
      - id: shape
        component: duckdb.processor
        mode: transform
        needs: [extract]
        config:
          query: |
            SELECT id,
                   email
            FROM input_df
            WHERE id > 10 AND AND email IS NOT NULL
    """)
    assert [(c, line, col) for c, _, line, col, *_ in issues] == [("OML405", 19, 27)]
    assert issues[0][4].startswith("SQL syntax error in step 'shape' (DuckDB): 'AND' is missing an operand")


def test_single_quoted_and_folded_plain_scalars_keep_their_columns():
    issues = check(HEAD + """\
      - id: extract
        component: mysql.extractor
        mode: read
        config:
          connection: "@mysql.default"
          query: 'SELECT id, ''x'' AS tag FROM customers WHERE (active = 1'
      - id: extract-2
        component: mysql.extractor
        mode: read
        config:
          connection: "@mysql.default"
          query: SELECT id
            FROM customers
            WHERE active = = 1
    """)
    assert [(c, line, col) for c, _, line, col, *_ in issues] == [("OML405", 9, 70), ("OML405", 17, 24)]


def test_not_a_query_and_several_statements_are_syntax_errors():
    issues = check(HEAD + """\
      - id: extract
        component: mysql.extractor
        mode: read
        config:
          connection: "@mysql.default"
          query: "SELEC * FORM customers"
      - id: extract-2
        component: mysql.extractor
        mode: read
        config:
          connection: "@mysql.default"
          query: "SELECT 1; DROP TABLE customers"
    """)
    assert [(c, line, col) for c, _, line, col, *_ in issues] == [("OML405", 9, 15), ("OML405", 15, 15)]
    assert issues[0][4].endswith("'SELEC' does not start a query")
    assert issues[1][4].endswith("the field holds 2 statements; it takes exactly one query")


def test_an_unclosed_quote_points_at_where_it_opens():
    issues = check(HEAD + """\
      - id: extract
        component: mysql.extractor
        mode: read
        config:
          connection: "@mysql.default"
          query: "SELECT id FROM customers WHERE email = 'a@b.com"
    """)
    assert [(c, line, col) for c, _, line, col, *_ in issues] == [("OML405", 9, 54)]
    assert "a quoted string or name is never closed" in issues[0][4]


def test_graphql_query_is_not_sql():
    issues = check(HEAD + """\
      - id: extract
        component: graphql.extractor
        mode: read
        config:
          endpoint: https://countries.trevorblades.com/
          query: "query { countries { code name } }"
          data_path: data.countries
    """)
    assert [i for i in issues if i[0].startswith("OML4")] == []


# --- OML406: names against the connection's catalog ----------------------------------------------

def test_unknown_table_and_column_against_the_catalog_with_suggestions(tmp_path):
    issues = check(HEAD + """\
      - id: extract
        component: mysql.extractor
        mode: read
        config:
          connection: "@mysql.default"
          query: "SELECT c.id, c.emial FROM customers AS c JOIN ordrs o ON o.customer_id = c.id"
    """, catalogs(tmp_path))
    assert issues == [
        ("OML406", "error", 9, 30, "column 'emial' is not a column of customers (the catalog of @mysql.default)",
         "did you mean 'email'? columns: id, email, active"),
        ("OML406", "error", 9, 61, "table 'ordrs' is not in the catalog of @mysql.default",
         "did you mean 'orders'? tables: customers, orders; if ordrs was created after the last discovery, run "
         "osiris discover @mysql.default ordrs"),
    ]


def test_known_names_pass_and_aliases_ctes_and_select_aliases_are_understood(tmp_path):
    issues = check(HEAD + """\
      - id: extract
        component: mysql.extractor
        mode: read
        config:
          connection: "@mysql.default"
          query: |
            WITH big AS (SELECT customer_id, SUM(total) AS spent FROM orders GROUP BY customer_id)
            SELECT c.id, c.email, big.spent AS total_spent
            FROM shop.customers c JOIN big ON big.customer_id = c.id
            WHERE c.active = 1 ORDER BY total_spent DESC
    """, catalogs(tmp_path))
    assert issues == []


def test_a_stale_catalog_turns_unknown_names_into_warnings_that_say_its_age(tmp_path):
    found = catalogs(tmp_path, discovered_at="2020-01-01T00:00:00Z")
    report = Validator(registry(), CONNECTIONS, catalogs=found).validate(textwrap.dedent(HEAD + """\
      - id: extract
        component: mysql.extractor
        mode: read
        config:
          connection: "@mysql.default"
          query: "SELECT id, emial FROM customers"
    """))
    assert report.valid
    [issue] = report.issues
    age = found.get("mysql.default").age_text()
    assert age.endswith("days")
    assert (issue.code, issue.severity) == ("OML406", "warning")
    assert issue.message == (f"column 'emial' is not a column of customers (the catalog of @mysql.default); "
                             f"the catalog of @mysql.default is {age} old, so this may have changed")
    assert issue.hint.endswith("; run osiris discover @mysql.default --refresh")


def test_a_fresh_catalog_within_max_age_days_keeps_the_error(tmp_path):
    found = catalogs(tmp_path, discovered_at="2020-01-01T00:00:00Z", max_age_days=3650)
    issues = check(HEAD + """\
      - id: extract
        component: mysql.extractor
        mode: read
        config:
          connection: "@mysql.default"
          query: "SELECT id, emial FROM customers"
    """, found)
    assert [(c, s) for c, s, *_ in issues] == [("OML406", "error")]


def test_without_a_catalog_names_are_not_checked():
    assert check(HEAD + """\
      - id: extract
        component: mysql.extractor
        mode: read
        config:
          connection: "@mysql.default"
          query: "SELECT nothing FROM nowhere"
    """) == []


# --- duckdb.processor: inputs and their columns --------------------------------------------------

def test_a_processor_reading_a_table_that_is_not_an_input():
    issues = check(HEAD + """\
      - id: extract-customers
        component: mysql.extractor
        mode: read
        config:
          connection: "@mysql.default"
          table: customers
      - id: shape
        component: duckdb.processor
        mode: transform
        needs: [extract-customers]
        config:
          query: SELECT id, email FROM customers
    """)
    assert issues == [("OML407", "error", 15, 36,
                       "step 'shape' reads table 'customers', which is not one of its inputs",
                       "read df_extract_customers instead of customers (the rows of step 'extract-customers')")]


def test_processor_inputs_follow_needs_and_the_previous_step_rule():
    issues = check(HEAD + """\
      - id: a
        component: mysql.extractor
        mode: read
        config: {connection: "@mysql.default", table: customers}
      - id: b-2
        component: postgres.extractor
        mode: read
        config: {connection: "@postgres.default", table: orders}
      - id: join
        component: duckdb.processor
        mode: transform
        needs: [a, b-2]
        config:
          query: SELECT * FROM df_a JOIN df_b_2 USING (id)
      - id: after
        component: duckdb.processor
        mode: transform
        config:
          query: SELECT * FROM input_df JOIN df_join USING (id) JOIN df_a USING (id)
    """)
    assert [(c, line, col, m) for c, _, line, col, m, _ in issues] == [
        ("OML407", 22, 66, "step 'after' reads table 'df_a', which is not one of its inputs")]


def test_unknown_columns_of_an_input_derived_from_the_upstream_query():
    issues = check(HEAD + """\
      - id: extract
        component: mysql.extractor
        mode: read
        config:
          connection: "@mysql.default"
          query: "SELECT id, email AS mail FROM customers"
      - id: shape
        component: duckdb.processor
        mode: transform
        needs: [extract]
        config:
          query: "SELECT id, lower(email) AS m FROM input_df"
    """)
    assert issues == [("OML406", "error", 15, 32, "column 'email' is not a column of df_extract (step 'extract')",
                       "did you mean 'mail'? columns: id, mail")]


def test_unknown_columns_of_an_input_from_the_upstream_table_in_the_catalog(tmp_path):
    issues = check(HEAD + """\
      - id: extract
        component: mysql.extractor
        mode: read
        config: {connection: "@mysql.default", table: orders}
      - id: shape
        component: duckdb.processor
        mode: transform
        config:
          query: SELECT i.customer_id, sum(i.totl) AS spent FROM input_df AS i GROUP BY 1
    """, catalogs(tmp_path))
    assert [(c, line, col, m, h) for c, _, line, col, m, h in issues] == [
        ("OML406", 12, 42, "column 'totl' is not a column of df_extract (step 'extract')",
         "did you mean 'total'? columns: id, customer_id, total")]


# --- the x-sql annotation, and the import cost -------------------------------------------------

def test_a_field_marked_x_sql_in_a_custom_spec_is_parsed_in_its_dialect(tmp_path):
    spec_dir = tmp_path / "components" / "acme.sqlrunner"
    spec_dir.mkdir(parents=True)
    (spec_dir / "spec.yaml").write_text(textwrap.dedent("""\
        name: acme.sqlrunner
        version: 1.0.0
        modes: [transform]
        capabilities: {}
        configSchema:
          type: object
          properties:
            statement: {type: string, x-sql: postgres}
            note: {type: string}
          required: [statement]
          additionalProperties: false
    """))
    found = load_registry([tmp_path / "components"])
    assert not found.problems
    text = textwrap.dedent(HEAD + """\
      - id: run
        component: acme.sqlrunner
        mode: transform
        config:
          note: "SELECT ((("
          statement: "SELECT 1 +"
    """)
    issues = Validator(found, CONNECTIONS).validate(text).issues
    assert [(i.code, i.path, i.line) for i in issues] == [("OML405", "/steps/0/config/statement", 9)]


def test_x_sql_must_name_a_known_dialect(tmp_path):
    spec_dir = tmp_path / "components" / "acme.bad"
    spec_dir.mkdir(parents=True)
    (spec_dir / "spec.yaml").write_text(textwrap.dedent("""\
        name: acme.bad
        version: 1.0.0
        modes: [transform]
        capabilities: {}
        configSchema:
          type: object
          properties:
            statement: {type: string, x-sql: oracle9}
    """))
    assert [p for p in load_registry([tmp_path / "components"]).problems if "x-sql" in str(p)]


def _imports_sqlglot(text: str) -> bool:
    code = ("import sys; from osiris.validate import Validator; from osiris.registry import load_registry; "
            f"Validator(load_registry(), {{'mysql': {{'default': {{}}}}}}).validate({text!r}); "
            "print('sqlglot' in sys.modules)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO, check=True)
    return done.stdout.strip() == "True"


def test_sqlglot_is_imported_only_when_the_pipeline_has_sql():
    table_only = textwrap.dedent(HEAD + """\
      - id: extract
        component: mysql.extractor
        mode: read
        config: {connection: "@mysql.default", table: customers}
    """)
    assert _imports_sqlglot(table_only) is False
    assert _imports_sqlglot(table_only.replace("table: customers", "query: SELECT 1")) is True


# --- through the command line ----------------------------------------------------------------------

def test_osiris_validate_uses_the_project_catalog(tmp_path):
    root = tmp_path / "project"
    root.mkdir()
    (root / ".osiris.yaml").write_text(
        "connections:\n  mysql:\n    default: {host: db, database: shop, user: r, password: \"${PW}\"}\n")
    catalogs(root)
    (root / "p.yaml").write_text(textwrap.dedent(HEAD + """\
      - id: extract
        component: mysql.extractor
        mode: read
        config:
          connection: "@mysql.default"
          query: SELECT id FROM custmers
    """))
    done = run_osiris("validate", "p.yaml", "--json", cwd=root, env=clean_env())
    assert done.returncode == 1, done.stderr
    [issue] = json.loads(done.stdout)["files"][0]["issues"]
    assert (issue["code"], issue["line"], issue["column"]) == ("OML406", 9, 29)
    assert issue["hint"] == ("did you mean 'customers'? tables: customers, orders; if custmers was created after the "
                             "last discovery, run osiris discover @mysql.default custmers")
    os.utime(root / ".osiris" / "catalog" / "mysql.default.json")  # the file is only read, never changed


def test_positions_count_from_the_extracted_pipeline_not_the_raw_llm_answer():
    """Issue 8: lines count from the pipeline as extracted and saved, not the answer's preamble."""
    answer = ("Here is the pipeline:\n\n```yaml\n" + textwrap.dedent(HEAD + """\
      - id: extract
        component: mysql.extractor
        mode: read
        config:
          connection: "@mysql.default"
          query: SELECT a FROM t WHERE a IN (1, 2
    """) + "```\nIt reads table t.\n")
    report = Validator(registry(), CONNECTIONS).validate(answer)
    assert [(i.code, i.line, i.column) for i in report.issues] == [("OML405", 9, 45)]
    assert report.oml_text.splitlines()[8][44] == "2"


def test_a_catalog_written_during_a_session_is_used_by_the_same_validator(tmp_path):
    found = Catalogs(tmp_path)
    validator = Validator(registry(), CONNECTIONS, catalogs=found)
    text = textwrap.dedent(HEAD + """\
      - id: extract
        component: mysql.extractor
        mode: read
        config: {connection: "@mysql.default", query: "SELECT id FROM custmers"}
    """)
    assert validator.validate(text).issues == []
    catalogs(tmp_path)
    assert [i.code for i in validator.validate(text).issues] == ["OML406"]


def test_an_extractor_table_and_columns_are_checked_against_the_catalog(tmp_path):
    issues = check(HEAD + """\
      - id: extract
        component: mysql.extractor
        mode: read
        config:
          connection: "@mysql.default"
          table: customers
          columns: [id, emial]
      - id: extract-2
        component: mysql.extractor
        mode: read
        config: {connection: "@mysql.default", table: ordres}
    """, catalogs(tmp_path))
    assert issues == [
        ("OML406", "error", 10, 21, "column 'emial' is not a column of customers (the catalog of @mysql.default)",
         "did you mean 'email'? columns: id, email, active"),
        ("OML406", "error", 14, 44, "table 'ordres' is not in the catalog of @mysql.default",
         "did you mean 'orders'? tables: customers, orders; if ordres was created after the last discovery, run "
         "osiris discover @mysql.default ordres"),
    ]


def test_a_cursor_or_check_column_the_catalog_does_not_know_is_oml406(tmp_path):
    issues = check(HEAD + """\
      - id: extract
        component: mysql.extractor
        mode: read
        config:
          connection: "@mysql.default"
          table: customers
          incremental: {cursor: updated_at}
        checks: [{not_null: [emial]}, {unique: [id]}]
    """, catalogs(tmp_path))
    assert [(code, message, hint) for code, _, _, _, message, hint in issues] == [
        ("OML406", "column 'updated_at' is not a column of step 'extract'", "columns: id, email, active"),
        ("OML406", "column 'emial' is not a column of step 'extract'", "did you mean 'email'? columns: id, email, active")]
