"""The trust boundary's rules one by one (osiris/trust/, docs/security.md): which paths, SQL, fields
and references a pipeline may use, what a run may tell, and the DuckDB sandbox. The attacks of
issue 22 through the real CLI are in tests/test_trust_attacks.py."""

from __future__ import annotations

import errno
import os
from pathlib import Path

import duckdb
import pytest
import sqlglot

from osiris.registry import load_registry
from osiris.run.driver import RuntimeProblem
from osiris.secrets.redact import Redactor
from osiris.trust.references import connection_secrets
from osiris.trust import handles, sandbox
from osiris.trust.disclosure import conversion_problem, shorten, withhold_values
from osiris.trust.endpoints import allowed_overrides, endpoint_fields, endpoint_overrides
from osiris.trust.paths import Files, path_fields, sample_file, sample_name, static_breach
from osiris.trust.references import UnsetReference, resolve_connection, step_references
from osiris.trust.sql import outside_reach


@pytest.mark.parametrize("text, reason", [
    ("data/a.csv", None), ("./out/a.csv", None), ("a..b.csv", None),
    ("x/.osiris.yaml", "has a hidden component '.osiris.yaml' (names starting with '.' are out of reach)"),
    ("../a.csv", "goes up with '..'"), ("out/../../a.csv", "goes up with '..'"), ("..\\a.csv", "goes up with '..'"),
    ("/etc/passwd", "is an absolute path"), ("C:\\x.csv", "is an absolute path"), ("\\\\host\\x", "is an absolute path"),
    ("~/x.csv", "starts with ~ (a home folder, outside the project)"), ("~root/x", "starts with ~ (a home folder, outside the project)"),
    (".osiris.yaml", "names Osiris's own settings file"), ("./.osiris.yaml", "names Osiris's own settings file"),
    (".osiris/sessions/x.csv", "names Osiris's own folder"), ("a\0b", "holds a NUL character"),
])
def test_static_path_rule(text, reason):
    assert static_breach(text) == reason


@pytest.fixture
def tree(tmp_path: Path) -> tuple[Path, Path]:
    project, outside = tmp_path / "project", tmp_path / "outside"
    (project / "data").mkdir(parents=True)
    outside.mkdir()
    (outside / "victim.csv").write_text("planted\n")
    (project / "data" / "a.csv").write_text("id\n1\n")
    (project / "out").symlink_to(outside)
    (project / "data" / "link.csv").symlink_to(outside / "victim.csv")
    (project / "data" / "inner.csv").symlink_to(project / "data" / "a.csv")
    return project, outside


def files_of(project: Path, *protected: Path) -> Files:
    return Files.at(project, (project / ".osiris.yaml", project / ".osiris", *protected))


def oml517(files: Files, path: str, **options) -> str:
    with pytest.raises(RuntimeProblem) as raised:
        files.resolve(path, **options)
    assert raised.value.code == "OML517"
    return raised.value.message


def test_the_real_path_is_checked_after_links(tree):
    project, outside = tree
    files = files_of(project, project / "pipe.yaml")
    assert files.resolve("data/a.csv") == project.resolve() / "data" / "a.csv"
    assert oml517(files, "data/inner.csv") == (  # allowed by list: no link, even one that stays inside
        "path 'data/inner.csv' passes through a symbolic link (data/inner.csv); Osiris reads and writes no file "
        "through links: files stay inside the project")
    assert oml517(files, "out/x.csv") == ("path 'out/x.csv' leads out of the project through a symbolic link: "
                                          "files stay inside the project")
    assert "symbolic link" in oml517(files, "data/link.csv")
    assert oml517(files, "pipe.yaml").endswith("is one of Osiris's own files (settings, sessions, the pipeline): "
                                               "files stay inside the project")
    assert "own" in oml517(files, ".osiris/tmp/x.csv")
    assert "goes up" in oml517(files, "../outside/victim.csv")
    assert "writes through one" in oml517(files, "data/inner.csv", write=True)


def test_a_narrower_base_dir_stays_inside_and_listings_show_only_the_boundary(tree):
    project, outside = tree
    files = files_of(project)
    assert files.within("data").resolve("a.csv") == project.resolve() / "data" / "a.csv"
    assert files.within(None) is files
    assert "base_dir 'out'" in pytest.raises(RuntimeProblem, files.within, "out").value.message
    assert files.shows(project / "data") and not files.shows(outside) and not files.shows(project / ".osiris")


@pytest.mark.parametrize("step_id, name", [
    ("/some/dir/.ssh", "some_dir_ssh"), ("../a", "a"), ("..", "step"), ("write-csv", "write-csv"), ("x y", "x_y"),
])
def test_sample_folders_are_one_safe_name(step_id, name):
    assert sample_name(step_id) == name


@pytest.mark.parametrize("path, name", [
    ("authorized_keys", "authorized_keys"), ("../../x/.bashrc", "bashrc"), ("out/a.csv", "a.csv"),
    ("..", "output"), ("a/", "a"), ("we ird.c sv", "we_ird.c_sv"),
])
def test_sample_file_names_are_safe(path, name):
    assert sample_file(path) == name


def test_path_fields_come_from_the_specs():
    registry = load_registry()
    assert path_fields(registry.get("filesystem.csv_writer")) == ("base_dir", "path")
    assert path_fields(registry.get("rest.extractor")) == ()


def test_a_filesystem_spec_without_markers_still_has_its_path_fields():
    """A spec written for public Osiris has no `x-path`: a filesystem spec's base_dir and path count."""
    from osiris.registry.spec import spec_from_dict

    def spec(name: str, **properties: dict) -> object:
        return spec_from_dict({"name": name, "version": "1", "modes": ["extract"],
                               "configSchema": {"type": "object", "properties": properties}})

    assert path_fields(spec("filesystem.parquet_extractor", path={}, columns={})) == ("path",)
    assert path_fields(spec("filesystem.x", base_dir={}, path={}, file={"x-path": True})) == ("file",)
    assert path_fields(spec("acme.extractor", path={}, base_dir={})) == ()


def reach(sql: str) -> list[str]:
    return [r.message for r in outside_reach(sqlglot.parse_one(sql, read="duckdb"))]


@pytest.mark.parametrize("sql", [
    "SELECT * FROM input_df", "WITH a AS (SELECT 1 AS x) SELECT * FROM a", "SELECT * FROM range(3) t(i)",
    "SELECT * FROM generate_series(1, 3)", "SELECT * FROM unnest([1, 2])", "SELECT * FROM (VALUES (1)) t(x)",
    "SELECT 'https://example.com/x.csv' AS link FROM df_a",
])
def test_what_a_transform_may_read(sql):
    assert reach(sql) == []


@pytest.mark.parametrize("sql, message", [
    ("SELECT * FROM read_csv('/etc/passwd')", "the query calls read_csv, which reads files"),
    ("SELECT * FROM read_csv_auto('x')", "the query calls read_csv_auto, which reads files"),
    ("SELECT * FROM read_text('/proc/self/environ')", "the query calls read_text, which reads files"),
    ("SELECT * FROM read_blob('x')", "the query calls read_blob, which reads files"),
    ("SELECT * FROM read_parquet('x')", "the query calls read_parquet, which reads files"),
    ("SELECT * FROM glob('/root/*')", "the query calls glob, which reads files"),
    ("SELECT a FROM df_a JOIN read_json_auto('x') USING (a)", "the query calls read_json_auto, which reads files"),
    ("SELECT * FROM 'data/x.csv'", "the query reads the file 'data/x.csv'"),
    ('SELECT * FROM "x.parquet"', "the query reads the file 'x.parquet'"),
    ("SELECT * FROM 'http://127.0.0.1:9/x.csv'", "the query reads 'http://127.0.0.1:9/x.csv' from the network"),
    ("SELECT (SELECT content FROM read_text('x')) AS c FROM df_a", "the query calls read_text, which reads files"),
    ("SELECT * FROM main.df_a", "the query reads 'main.df_a', a qualified name (a file format, schema or catalog), "
                                "which is none of its inputs"),  # issue 42: no qualified name is an input
])
def test_what_a_transform_may_not_read(sql, message):
    assert reach(sql) == [message]


def test_every_source_is_checked_after_an_allowed_one_and_the_issue_points_at_it():
    assert reach("SELECT * FROM range(3) r, read_csv('x') c") == ["the query calls read_csv, which reads files"]
    from tests.validate_helpers import oml, step, validator

    text = oml(step("read", "filesystem.csv_extractor", "read", {"path": "a.csv"}),
               step("shape", "duckdb.processor", "transform", {"query": "SELECT *\nFROM input_df, glob('/x')"},
                    needs=["read"]))
    [issue] = [i for i in validator().validate(text).issues if i.code == "OML408"]
    line = next(n for n, row in enumerate(text.splitlines(), 1) if "glob(" in row)
    assert (issue.line, issue.column) == (line, text.splitlines()[line - 1].index("glob(") + 1)


def test_other_table_functions_are_not_on_the_list():
    [message] = reach("SELECT * FROM duckdb_settings()")
    assert message.startswith("the query calls the table function duckdb_settings; a transform reads only its inputs")


@pytest.mark.parametrize("text, shown", [
    ("Conversion Error: Could not convert string 'root:x:0:0' to INT32 when casting from source column a",
     "Conversion Error: could not convert a value to INTEGER when casting from source column a"),
    ('invalid input syntax for type integer: "abc"', "invalid input syntax for type integer: (value withheld)"),
    ("Incorrect integer value: 'abc' for column 'id' at row 1",
     "Incorrect integer value: (value withheld) for column 'id' at row 1"),
    ("Duplicate entry 'ada@x.org' for key 'PRIMARY'", "Duplicate entry (value withheld) for key 'PRIMARY'"),
    ("Key (id)=(5) already exists.", "Key (id)=(value withheld) already exists."),
    ("Failing row contains (5, null, x).", "Failing row contains (values withheld)."),
    ("Conversion Error: Type INT64 with value 99999 can't be cast because the value is out of range for the "
     "destination type INT32", "Conversion Error: a BIGINT value can't be cast because the value is out of range "
     "for the destination type INT32"),
    ('column "emial" does not exist', 'column "emial" does not exist'),
    ('syntax error at or near "FORM"', 'syntax error at or near "FORM"'),
])
def test_values_are_withheld_and_names_kept(text, shown):
    assert withhold_values(text) == shown


def test_a_conversion_error_says_column_type_and_line():
    csv = ("Conversion Error: CSV Error on Line: 3\nOriginal Line: z,PLANTED\nError when converting column \"a\". "
           "Could not convert string \"PLANTED\" to 'INTEGER'\n")
    assert conversion_problem(csv) == ("column 'a' holds a value that does not convert to INTEGER (line 3 of the "
                                       "file); the value is withheld")
    assert conversion_problem("Could not convert string 'PLANTED' to INT64") == (
        "a column holds a value that does not convert to BIGINT; the value is withheld")
    assert conversion_problem("Binder Error: x: 'PLANTED'\nmore") == "Binder Error: x: (value withheld)"


def test_redact_first_then_cut():
    secret = "tok-" + "s" * 40
    redact = Redactor(known_values=[secret]).text
    assert shorten(f"the token {secret} leaked", 20, redact) == "the token *** leaked"
    assert shorten(f"the token {secret} leaked", 12, redact) == "the token *…"
    # a text cut elsewhere before redaction: the head of the secret before the ellipsis is masked too
    assert redact(f"the token {secret[:17]}...") == "the token ***..."
    assert redact("an ordinary ending...") == "an ordinary ending..."


def test_endpoint_fields_come_from_the_specs_marker_and_the_default_list():
    registry = load_registry()
    assert endpoint_fields(registry.get("rest.extractor")) == {"base_url", "validate_ssl"}
    assert endpoint_fields(registry.get("postgres.writer")) == {"host", "port", "sslmode"}
    assert endpoint_fields(registry.get("supabase.writer")) == {  # and what its driver reads (Family.endpoints)
        "url", "project_id", "validate_ssl", "pg_dsn", "dsn", "sql_dsn", "host", "port", "sslmode", "pg_host",
        "pg_port", "pg_sslmode"}
    assert endpoint_fields(registry.get("duckdb.processor")) == frozenset()


def test_an_override_is_refused_unless_the_connection_allows_it_or_keeps_its_value():
    fields = frozenset({"base_url", "validate_ssl"})
    config = {"connection": "@rest.api", "base_url": "http://evil", "validate_ssl": False, "endpoint": "/x"}
    moved = endpoint_overrides(config, fields, "@rest.api", {"base_url": "https://api", "validate_ssl": True})
    assert [m.where for m in moved] == ["base_url", "validate_ssl"]
    assert moved[0].hint.endswith("add allow_override: [base_url] to connections.rest.api in .osiris.yaml")
    assert endpoint_overrides(config, fields, "@rest.api", {"allow_override": ["base_url", "validate_ssl"]}) == []
    assert endpoint_overrides({"base_url": "https://api"}, fields, "@rest.api", {"base_url": "https://api"}) == []
    assert allowed_overrides({"allow_override": "port"}) == {"port"} and allowed_overrides({}) == frozenset()


def test_references_in_a_step_are_found_at_any_depth():
    config = {"endpoint": "/x/${OTHER_SECRET}", "params": {"q": ["a", "${A}"]}, "${K}": 1, "query": "$HOME {x}",
              "connection": "@rest.api", "x-note": "${IGNORED}"}
    assert step_references(config) == [("/endpoint", "/x/${OTHER_SECRET}"), ("/params/q/1", "${A}"), ("/${K}", "${K}")]


def test_the_one_resolver_resolves_nested_references_and_knows_which_are_secret():
    fields = {"base_url": "https://${HOST}", "headers": {"X-Auth": "${API_TOKEN}", "Accept": "${ACCEPT}"},
              "auth_token": "Bearer ${PLAIN}", "allow_override": ["base_url"], "port": 5432}
    env = {"HOST": "api.example.com", "API_TOKEN": "tok-123456", "ACCEPT": "application/json", "PLAIN": "abcdef"}
    resolved = resolve_connection(fields, env, where="connections.rest.api")
    assert resolved.fields == {"base_url": "https://api.example.com", "port": 5432, "auth_token": "Bearer abcdef",
                               "headers": {"X-Auth": "tok-123456", "Accept": "application/json"}}
    assert set(resolved.secrets) == {"tok-123456", "abcdef", "Bearer abcdef"}
    with pytest.raises(UnsetReference) as unset:
        resolve_connection({"headers": {"X-Auth": "${NOPE}"}}, {}, where="connections.rest.api")
    assert str(unset.value) == "connections.rest.api.headers.X-Auth refers to ${NOPE}, which is not set"


def test_everything_under_a_secret_key_is_secret_and_an_unset_reference_is_none():
    fields = {"credentials": {"user": "${U}", "note": "plain-literal"}, "headers": {"Accept": "${U}"},
              "password": "${UNSET}"}
    resolved = resolve_connection(fields, {"U": "ada-lovelace"}, where="connections.x.y", strict=False)
    assert resolved.secrets == ("ada-lovelace", "plain-literal")
    assert resolved.fields["password"] == "${UNSET}"


def test_the_redactor_knows_nested_connection_secrets():
    connections = {"rest": {"api": {"headers": {"Authorization": "${API_TOKEN}"}, "base_url": "https://x"}}}
    assert connection_secrets(connections, {"API_TOKEN": "tok-nested-1"}) == ["tok-nested-1"]


@pytest.fixture
def locked(tmp_path: Path):
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    (tmp_path / "outside.csv").write_text("a\nplanted\n")
    (scratch / "inside.csv").write_text("a\n1\n")
    con = duckdb.connect(":memory:")
    sandbox.lock_down(con, scratch)
    yield con, scratch, tmp_path
    con.close()


def test_the_sandbox_reaches_its_scratch_directory_only_and_cannot_be_reopened(locked):
    con, scratch, outside = locked
    assert con.execute(f"SELECT a FROM read_csv('{scratch / 'inside.csv'}')").fetchall() == [(1,)]
    con.execute(f"COPY (SELECT 1 AS a) TO '{scratch / 'out.csv'}' (FORMAT csv)")
    for sql in (f"SELECT * FROM read_csv('{outside / 'outside.csv'}')", f"SELECT * FROM read_text('{scratch}/../outside.csv')",
                f"COPY (SELECT 1) TO '{outside / 'x.csv'}'", "INSTALL httpfs", "LOAD httpfs",
                "SELECT * FROM read_csv('http://127.0.0.1:9/x.csv')"):
        with pytest.raises(duckdb.PermissionException):
            con.execute(sql)
    for sql in ("SET enable_external_access = true", "SET allowed_directories = ['/']", "SET lock_configuration = false"):
        with pytest.raises(duckdb.InvalidInputException, match="locked"):
            con.execute(sql)
    con.execute("SET threads = 1")  # the two settings the JSON loader changes for one read (ADR 0065)
    con.execute("SET memory_limit = '128MB'")
    assert not (outside / "x.csv").exists()


def test_the_scratch_directory_is_inside_the_project(tmp_path):
    made, again = sandbox.scratch_dir(tmp_path), sandbox.scratch_dir(tmp_path)
    assert made.parent == again.parent == tmp_path / ".osiris" / "tmp" and made != again
    assert made.name.startswith("run-")
    assert [oct(p.stat().st_mode & 0o777) for p in (made, made.parent)] == ["0o700", "0o700"]
    (tmp_path / "file").write_text("not a folder")
    elsewhere = sandbox.scratch_dir(tmp_path / "file")  # a project that cannot hold it: the system's temp dir
    assert elsewhere.is_dir() and elsewhere.name.startswith("osiris-run-") and not elsewhere.is_relative_to(tmp_path)
    elsewhere.rmdir()


def test_staging_links_the_checked_file_and_placing_is_one_rename(tmp_path):
    source, scratch = tmp_path / "a.csv.gz", tmp_path / "scratch"
    scratch.mkdir()
    source.write_bytes(b"data")
    staged = handles.stage_from(tmp_path, ("a.csv.gz",), scratch)
    assert staged.parent == scratch and staged.name.endswith("-a.csv.gz") and os.path.samefile(staged, source)
    target = tmp_path / "t.csv"
    target.write_text("old")
    finished = scratch / "f.csv"
    finished.write_text("new")
    sandbox.place(finished, target)
    assert target.read_text() == "new" and not finished.exists()


def test_placing_across_file_systems_copies_beside_the_target_then_renames(tmp_path, monkeypatch):
    """A second file system cannot be mounted here: os.replace is made to fail with EXDEV once."""
    real = os.replace
    calls = []

    def across(source, target):
        calls.append((Path(source), Path(target)))
        if len(calls) == 1:
            raise OSError(errno.EXDEV, "Invalid cross-device link")
        return real(source, target)

    monkeypatch.setattr(sandbox.os, "replace", across)
    finished, target = tmp_path / "f.csv", tmp_path / "out" / "t.csv"
    target.parent.mkdir()
    finished.write_text("new rows")
    sandbox.place(finished, target)
    assert target.read_text() == "new rows" and not finished.exists()
    beside = calls[1][0]
    assert beside.parent == target.parent and beside.name.startswith(".t.csv.") and beside.name.endswith(".osiris-partial")
    assert sorted(p.name for p in target.parent.iterdir()) == ["t.csv"]


def test_the_boundary_of_a_project_protects_its_own_files_but_never_the_whole_project(tmp_path):
    from osiris.settings import load_settings
    from osiris.trust.boundary import Boundary

    (tmp_path / ".osiris.yaml").write_text("sessions: {dir: trail}\ncomponents: {paths: [specs, .]}\n")
    effective = load_settings(cwd=tmp_path, env={})
    boundary = Boundary.of(effective, load_registry(), pipeline=tmp_path / "p.yaml")
    assert boundary.protected == (tmp_path / "p.yaml", tmp_path / ".osiris.yaml", tmp_path / "trail", tmp_path / "specs")
    files = boundary.files({})
    assert files.resolve("out/a.csv") == tmp_path.resolve() / "out" / "a.csv"
    for own in ("trail/x.csv", "specs/x.csv", "p.yaml", "./specs"):
        assert "Osiris's own files" in pytest.raises(RuntimeProblem, files.resolve, own).value.message
    assert boundary.endpoint_fields("rest.extractor") == {"base_url", "validate_ssl"}
    assert boundary.endpoint_fields("acme.unknown") == frozenset()  # no spec: OML516 follows, not a crash
    lake = boundary.files({"base_dir": str(tmp_path / "lake")})
    assert lake.root == (tmp_path / "lake").resolve() and tmp_path.resolve() / "trail" in lake.protected
