"""The sample tier inside `osiris generate`, end to end: the real SDK against the fake Messages API,
a real PostgreSQL and MariaDB, the real validator and runtime. The dry run catches what only real
data shows, and the retry prompt (the request body the LLM gets) carries what the sample showed."""

from __future__ import annotations

import json

import psycopg
import pymysql
import pytest
import yaml

from tests.fake_anthropic import Reply
from tests.run_helpers import csv_step, mysql_step, pg_step
from tests.sample_project import SampleProject, last_user_message, pipeline

REQUEST = "copy the active customers from postgres to output/active.csv"


@pytest.fixture
def pg_customers(postgres_server):
    with psycopg.connect(postgres_server.dsn(), autocommit=True) as conn:
        conn.execute("DROP TABLE IF EXISTS sample_customers")
        conn.execute("CREATE TABLE sample_customers (id integer PRIMARY KEY, email text, status text)")
        conn.execute("INSERT INTO sample_customers SELECT i, 'c' || i || '@x.org', "
                     "CASE WHEN i % 2 = 0 THEN 'active' ELSE 'gone' END FROM generate_series(1, 40) i")
        yield conn


def customers_pipeline(where: str) -> str:
    return pipeline(pg_step("extract-customers", "read", query=f"SELECT id, email FROM sample_customers {where}"),
                    csv_step("write-csv", "write", "output/active.csv"))


def wrong_then_right(column: str) -> tuple[str, str]:
    return customers_pipeline(f"WHERE {column} = 1"), customers_pipeline("WHERE status = 'active'")


def test_dry_run_catches_an_unknown_column_and_the_retry_prompt_names_the_real_ones(tmp_path, fake_api, postgres_server,
                                                                                  pg_customers):
    proj = SampleProject(tmp_path / "p", fake_api, postgres=postgres_server)
    wrong, right = wrong_then_right("active")
    fake_api.add(Reply(wrong), Reply(right))

    done = proj.osiris("generate", REQUEST, "--dry-run")

    assert done.returncode == 0, done.stderr
    assert yaml.safe_load(done.stdout)["steps"][0]["config"]["query"].endswith("WHERE status = 'active'")
    assert len(fake_api.requests) == 2
    retry = last_user_message(fake_api.requests[1])
    assert "failed when Osiris ran it on sample data (10 rows a source" in retry
    assert 'OML502 /steps/0/config: step \'extract-customers\' failed on sample rows: column "active" does not exist' in retry
    assert "- table sample_customers has columns: id integer, email text, status text" in retry
    assert "- step 'extract-customers' (postgres.extractor): failed with OML502" in retry
    assert "osiris: attempt 1/3 on sample rows: 1 error; asking the LLM to fix them" in done.stderr
    assert "osiris: testing on samples (attempt 2/3), last time: unknown column 'active' in sample_customers..." in done.stderr
    assert "osiris: attempt 2: ran on 10 sample rows a source (2 steps ok" in done.stderr
    assert "tested on 10 sample rows; tokens:" in done.stderr
    # the preview: each step's first rows, on stderr
    assert "  extract-customers: 10 rows (first 5)" in done.stderr
    assert "    id  email" in done.stderr and "    2   c2@x.org" in done.stderr
    # nothing kept: the CSV writer wrote into a temporary folder, not to its path nor the session
    assert not (proj.root / "output").exists()
    assert not list(proj.last_session().rglob("*.csv"))


def test_the_trail_records_each_dry_run_without_values(tmp_path, fake_api, postgres_server, pg_customers):
    proj = SampleProject(tmp_path / "p", fake_api, postgres=postgres_server)
    fake_api.add(*(Reply(answer) for answer in wrong_then_right("active")))

    assert proj.osiris("generate", REQUEST, "--dry-run").returncode == 0

    first, second = proj.attempt_file(1, 1, "dry_run.json"), proj.attempt_file(1, 2, "dry_run.json")
    assert first["status"] == "failed" and [i["code"] for i in first["issues"]] == ["OML502"]
    assert second["status"] == "passed" and second["values_saved"] is False
    read = second["steps"][0]
    assert (read["id"], read["status"], read["rows_out"]) == ("extract-customers", "ok", 10)
    assert read["columns"] == [{"name": "id", "type": "INTEGER"}, {"name": "email", "type": "VARCHAR"}]
    assert "sample_rows" not in read
    assert "c2@x.org" not in (proj.last_session() / "artifacts" / "cycle-1" / "attempt-2" / "dry_run.json").read_text()
    events = proj.events()
    kinds = [e["event_type"] for e in events]
    assert kinds.count("dry_run_start") == 2 and kinds.count("dry_run_complete") == 2
    complete = [e for e in events if e["event_type"] == "dry_run_complete"]
    assert [(e["attempt_index"], e["status"], e["error_codes"]) for e in complete] == [
        (1, "failed", ["OML502"]), (2, "passed", [])]
    assert [e["kind"] for e in events if e["event_type"] == "validation_attempt_start"] == ["generate", "fix_sample"]
    accepted = [e for e in events if e["event_type"] == "pipeline_accepted"]
    assert accepted[0]["dry_run"] == "passed"
    tiers = proj.trail()["tiers"]
    assert tiers["validation"] == {"attempts": 2, "failed": 0}
    assert {k: tiers["dry_run"][k] for k in ("runs", "passed", "failed", "skipped")} == {
        "runs": 2, "passed": 1, "failed": 1, "skipped": 0}


def test_save_samples_keeps_the_rows(tmp_path, fake_api, postgres_server, pg_customers):
    proj = SampleProject(tmp_path / "p", fake_api, postgres=postgres_server, sessions={"save_samples": True})
    fake_api.add(Reply(wrong_then_right("active")[1]))

    assert proj.osiris("generate", REQUEST, "--dry-run").returncode == 0

    read = proj.attempt_file(1, 1, "dry_run.json")["steps"][0]
    assert read["sample_rows"][0] == {"id": 2, "email": "c2@x.org"}


@pytest.fixture(scope="module")
def api():
    from tests.servers.http_apis import start_api

    server = start_api()
    yield server
    server.stop()


def rest_step(api_url: str, data_path: str) -> dict:
    return {"id": "fetch-items", "component": "rest.extractor", "mode": "read",
            "config": {"base_url": api_url, "endpoint": "/cursor", "data_path": data_path}}


def test_a_second_sample_failure_that_says_something_else_is_retried_within_the_default_budget(tmp_path, fake_api,
                                                                                              api):
    """Issue 26: the same code at the same path, but another message (the model moved to another
    endpoint, which has no `data` either) is progress, not `no_progress`; and the default
    dry_run_attempts (2, docs/sample-run.md) lets the third answer be tested."""
    proj = SampleProject(tmp_path / "p", fake_api)
    write = csv_step("write-csv", "write", "output/items.csv")

    def answer(endpoint: str, data_path: str) -> Reply:
        step = {**rest_step(api.url, data_path), "config": {**rest_step(api.url, data_path)["config"], "endpoint": endpoint}}
        return Reply(pipeline(step, write))
    fake_api.add(answer("/cursor", "data"), answer("/page", "data"), answer("/page", "items"))

    done = proj.osiris("generate", "copy the items API into output/items.csv", "--dry-run")

    assert done.returncode == 0, done.stderr
    assert len(fake_api.requests) == 3
    second, third = last_user_message(fake_api.requests[1]), last_user_message(fake_api.requests[2])
    assert f"no records at data_path 'data' in the response of {api.url}/cursor" in second
    assert f"no records at data_path 'data' in the response of {api.url}/page" in third
    assert proj.trail()["stop_reason"] == "valid"
    assert [e["status"] for e in proj.events() if e["event_type"] == "dry_run_complete"] == ["failed", "failed", "passed"]


@pytest.mark.parametrize("discovered", [False, True])
def test_a_wrong_data_path_goes_back_with_the_record_keys_not_their_values(tmp_path, fake_api, api, discovered):
    """A key neither the pipeline, the engines' vocabulary nor the catalog knows (`tags`) may be data
    (docs/security.md, "What an engine says"): `column_<n>`; once the API's shape is in the catalog
    (its fields, as `osiris discover` writes them), it is shown."""
    proj = SampleProject(tmp_path / "p", fake_api)
    if discovered:
        from osiris.catalog.store import Catalog, write_catalog

        fields = [{"name": "id", "type": "integer"}, {"name": "meta.tags", "type": "array"}]
        write_catalog(proj.root, Catalog("rest.items", "rest", "@rest.items", "2026-11-27T00:00:00Z",
                                         {"/cursor": {"columns": [{"name": "id", "type": "BIGINT"}], "fields": fields}}))
    write = csv_step("write-csv", "write", "output/items.csv")
    fake_api.add(Reply(pipeline(rest_step(api.url, "data"), write)), Reply(pipeline(rest_step(api.url, "results"), write)))

    done = proj.osiris("generate", "copy the items API into output/items.csv", "--dry-run")

    assert done.returncode == 0, done.stderr
    retry = last_user_message(fake_api.requests[1])
    assert "OML509 /steps/0/config: step 'fetch-items' failed on sample rows: no records at data_path 'data'" in retry
    assert "- the response body's top level is an object with keys: results (array), meta (object)" in retry
    assert ("- records at data_path 'results': 5 objects; keys of the first record (values withheld): "
            f"id (number), name (string), meta (object: rank, {'tags' if discovered else 'column_2'})") in retry
    assert "item-1" not in retry  # a value of the records
    assert "osiris: testing on samples (attempt 2/3), last time: no records at data_path 'data' in step 'fetch-items'..." in done.stderr
    assert proj.attempt_file(1, 2, "dry_run.json")["steps"][0]["rows_out"] == 5


def test_dry_run_failures_stop_at_their_own_budget_before_the_total(tmp_path, fake_api, postgres_server, pg_customers):
    proj = SampleProject(tmp_path / "p", fake_api, postgres=postgres_server,
                         validation={"retry": {"dry_run_attempts": 1}})  # below the default 2, to reach the cap
    wrong, _ = wrong_then_right("active")
    fake_api.add(Reply(wrong), Reply(wrong.replace("active = 1", "is_active")), Reply(wrong))

    done = proj.osiris("generate", REQUEST, "--dry-run")  # max_attempts 2 (3 generations), dry_run_attempts 1

    assert done.returncode == 1
    assert len(fake_api.requests) == 2
    assert done.stdout == ""
    assert ("osiris: the pipeline is still invalid after 2 attempts (it still fails on sample rows and "
            f"validation.retry.dry_run_attempts is used up); see {proj.last_session()}") in done.stderr
    trail = proj.trail()
    assert trail["stop_reason"] == "dry_run_exhausted" and trail["status"] == "invalid"
    assert trail["tiers"]["dry_run"]["failed"] == 2
    assert [e["stop_reason"] for e in proj.events() if e["event_type"] == "retry_stopped"] == ["dry_run_exhausted"]


def test_dry_run_attempts_zero_hands_off_at_the_first_sample_failure(tmp_path, fake_api, postgres_server, pg_customers):
    proj = SampleProject(tmp_path / "p", fake_api, postgres=postgres_server)
    fake_api.add(*(Reply(answer) for answer in wrong_then_right("active")))

    done = proj.osiris("generate", REQUEST, "--dry-run",
                       env={"OSIRIS_VALIDATION__RETRY__DRY_RUN_ATTEMPTS": "0"})

    assert done.returncode == 1 and len(fake_api.requests) == 1


def test_a_missing_secret_skips_the_tier_with_its_reason_and_the_pipeline_is_accepted(tmp_path, fake_api, postgres_server,
                                                                                   pg_customers):
    proj = SampleProject(tmp_path / "p", fake_api, postgres=postgres_server)
    proj.env.pop("PG_PASSWORD")
    fake_api.add(Reply(wrong_then_right("active")[0]))

    done = proj.osiris("generate", REQUEST, "--dry-run")

    assert done.returncode == 0, done.stderr
    assert len(fake_api.requests) == 1
    assert ("osiris: not tested on samples: step 'extract-customers': connections.postgres.default.password refers "
            "to ${PG_PASSWORD}, which is not set; the pipeline is valid but untested") in done.stderr
    assert "not tested on samples; tokens:" in done.stderr
    assert yaml.safe_load(done.stdout)["name"] == "sample-test"
    record = proj.attempt_file(1, 1, "dry_run.json")
    assert record["status"] == "skipped" and record["steps"] == []
    kinds = [e["event_type"] for e in proj.events()]
    assert "run_start" not in kinds  # nothing was touched
    assert [e["dry_run"] for e in proj.events() if e["event_type"] == "pipeline_accepted"] == ["skipped"]


def test_a_server_that_is_down_skips_the_tier(tmp_path, fake_api, postgres_server, pg_customers):
    from tests.servers.process import free_port

    proj = SampleProject(tmp_path / "p", fake_api, postgres=postgres_server)
    config = yaml.safe_load((proj.root / ".osiris.yaml").read_text())
    config["connections"]["postgres"]["default"]["port"] = free_port()
    (proj.root / ".osiris.yaml").write_text(yaml.safe_dump(config))
    fake_api.add(Reply(wrong_then_right("active")[0]))

    done = proj.osiris("generate", REQUEST, "--dry-run")

    assert done.returncode == 0, done.stderr
    assert "osiris: not tested on samples: step 'extract-customers': cannot connect to postgres at 127.0.0.1:" in done.stderr
    assert "connection refused; the pipeline is valid but untested" in done.stderr


def test_generate_does_not_test_unless_asked_to(tmp_path, fake_api, postgres_server, pg_customers):
    proj = SampleProject(tmp_path / "p", fake_api, postgres=postgres_server)
    fake_api.add(Reply(wrong_then_right("active")[0]))

    done = proj.osiris("generate", REQUEST)  # validation.dry_run defaults to ask: generate asks nothing

    assert done.returncode == 0 and len(fake_api.requests) == 1
    assert "sample" not in done.stderr
    assert not (proj.last_session() / "artifacts" / "cycle-1" / "attempt-1" / "dry_run.json").exists()


def test_no_dry_run_on_the_command_line_beats_the_environment_and_the_file(tmp_path, fake_api, postgres_server,
                                                                          pg_customers):
    proj = SampleProject(tmp_path / "p", fake_api, postgres=postgres_server)
    settings = proj.root / ".osiris.yaml"
    settings.write_text(settings.read_text(encoding="utf-8") + "\nvalidation:\n  dry_run: sample\n", encoding="utf-8")
    fake_api.add(Reply(wrong_then_right("active")[0]))

    done = proj.osiris("generate", REQUEST, "--no-dry-run", env={"OSIRIS_VALIDATION_DRY_RUN": "sample"})

    assert done.returncode == 0, done.stderr  # the unknown column is never found: nothing was run
    assert len(fake_api.requests) == 1 and "testing on samples" not in done.stderr
    assert not (proj.last_session() / "artifacts" / "cycle-1" / "attempt-1" / "dry_run.json").exists()
    shown = json.loads(proj.osiris("config", "show", "--json", "--no-dry-run",
                                   env={"OSIRIS_VALIDATION_DRY_RUN": "sample"}).stdout)
    assert shown["validation.dry_run"] == {"value": "off", "source": "cli"}


def test_dry_run_on_the_command_line_beats_off_in_the_environment(tmp_path, fake_api, postgres_server, pg_customers):
    proj = SampleProject(tmp_path / "p", fake_api, postgres=postgres_server)
    fake_api.add(*(Reply(answer) for answer in wrong_then_right("active")))

    done = proj.osiris("generate", REQUEST, "--dry-run", env={"OSIRIS_VALIDATION_DRY_RUN": "off"})

    assert done.returncode == 0, done.stderr
    assert len(fake_api.requests) == 2  # the sample run caught the unknown column
    assert ("osiris: testing on samples (attempt 2/3), last time: unknown column 'active' in sample_customers...\n"
            in done.stderr)


def test_mariadb_unknown_column_goes_back_with_the_table_columns(tmp_path, fake_api, mariadb_server):
    with pymysql.connect(**mariadb_server.connection(), autocommit=True) as conn, conn.cursor() as cursor:
        cursor.execute("DROP TABLE IF EXISTS sample_orders")
        cursor.execute("CREATE TABLE sample_orders (id INT PRIMARY KEY, total DECIMAL(8,2), state VARCHAR(20))")
        cursor.execute("INSERT INTO sample_orders VALUES (1, 9.50, 'paid'), (2, 3.00, 'open'), (3, 7.25, 'paid')")
    proj = SampleProject(tmp_path / "p", fake_api, mariadb=mariadb_server)
    def orders(where: str) -> str:
        return pipeline(mysql_step("extract-orders", "read", query=f"SELECT id, total FROM sample_orders WHERE {where}"),
                        csv_step("write-csv", "write", "output/paid.csv"))

    fake_api.add(Reply(orders("paid = 1")), Reply(orders("state = 'paid'")))

    done = proj.osiris("generate", "paid orders from mysql to output/paid.csv", "--dry-run")

    assert done.returncode == 0, done.stderr
    retry = last_user_message(fake_api.requests[1])
    assert "step 'extract-orders' failed on sample rows: column \"paid\" does not exist" in retry
    assert "- table sample_orders has columns: id int(11), total decimal(8,2), state varchar(20)" in retry
    assert "  extract-orders: 2 rows" in done.stderr


def test_json_output_carries_the_dry_run_verdict_without_values(tmp_path, fake_api, postgres_server, pg_customers):
    proj = SampleProject(tmp_path / "p", fake_api, postgres=postgres_server)
    fake_api.add(Reply(wrong_then_right("active")[1]))

    done = proj.osiris("generate", REQUEST, "--dry-run", "--json")

    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert result["dry_run"]["status"] == "passed" and result["dry_run"]["sample_rows"] == 10
    assert result["dry_run"]["steps"] == [{"id": "extract-customers", "status": "ok", "rows_out": 10},
                                          {"id": "write-csv", "status": "ok", "rows_out": 10}]
    assert result["attempts"][0]["dry_run"] == "passed"
    assert "c2@x.org" not in done.stdout  # the preview is on stderr only
    assert "c2@x.org" in done.stderr


def test_the_same_sample_error_twice_stops_early_as_no_progress(tmp_path, fake_api, postgres_server, pg_customers):
    proj = SampleProject(tmp_path / "p", fake_api, postgres=postgres_server,
                         validation={"retry": {"dry_run_attempts": 2}})
    wrong, right = wrong_then_right("active")
    fake_api.add(Reply(wrong), Reply(wrong), Reply(right))

    done = proj.osiris("generate", REQUEST, "--dry-run")

    assert done.returncode == 1 and len(fake_api.requests) == 2
    assert "(no progress between attempts)" in done.stderr
    assert proj.trail()["stop_reason"] == "no_progress"


def test_a_writer_is_proven_and_rolled_back_and_a_missing_upsert_key_goes_back(tmp_path, fake_api, postgres_server,
                                                                              pg_customers):
    pg_customers.execute("DROP TABLE IF EXISTS sample_targets")
    pg_customers.execute("CREATE TABLE sample_targets (id integer PRIMARY KEY, email text)")
    pg_customers.execute("INSERT INTO sample_targets VALUES (1, 'kept@x.org')")
    proj = SampleProject(tmp_path / "p", fake_api, postgres=postgres_server)

    def copy(key: str) -> str:
        return pipeline(pg_step("extract-customers", "read", query="SELECT id, email FROM sample_customers"),
                        pg_step("upsert-targets", "write", table="sample_targets", write_mode="upsert", primary_key=[key]))

    fake_api.add(Reply(copy("customer_id")), Reply(copy("id")))

    done = proj.osiris("generate", "upsert the customers into sample_targets", "--dry-run")

    assert done.returncode == 0, done.stderr
    retry = last_user_message(fake_api.requests[1])
    assert "OML512 /steps/1/config: step 'upsert-targets' failed on sample rows: the upsert key 'customer_id'" in retry
    assert "- table sample_targets has columns: id integer, email text" in retry
    assert "  upsert-targets: wrote 10 rows (rolled back, nothing kept)" in done.stderr
    assert pg_customers.execute("SELECT * FROM sample_targets").fetchall() == [(1, "kept@x.org")]  # nothing kept
