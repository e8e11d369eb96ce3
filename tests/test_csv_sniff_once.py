"""A CSV read sniffs its file once and checks each number once (ADR 0205, after ADR 0166).

The one-pass read (osiris.run.csv_input) names the dialect and the columns DuckDB's `sniff_csv` found,
so a view over the file binds without reading it again; and the exactness check takes each number's
text to DOUBLE once, its first test answering most values. Neither may change a value: the check
gives the very outcomes of ADR 0166's (`_exact`, the number or a refusal) for every spelling, and a
number no double holds is still never rounded, on the fused path too. Real DuckDB, real files, real
`osiris run` processes.
"""

from __future__ import annotations

import subprocess
import sys
from decimal import Decimal
from pathlib import Path

import duckdb
import pytest

from osiris.run.csv_input import INEXACT, _checked, _exact, exact_view, read_exactly, sniff
from osiris.run.csv_output import literal
from osiris.run.drivers.filesystem import _read_options
from tests.support import clean_env

CONFIG = {"delimiter": ",", "header": True, "encoding": "utf-8", "skip_rows": 0, "compression": "infer"}


def options(types, sniffed=None):
    return _read_options(CONFIG, types, sniffed)


def test_a_view_over_a_sniffed_file_binds_without_sniffing_it_again(tmp_path: Path) -> None:
    """A fused read's view is bound again by `input_df` and by the transform's own statement: each
    bind used to sniff the file anew. Now the file is not read at bind: one whose every column a
    sniff would now type otherwise still binds to the columns first sniffed."""
    path = tmp_path / "orders.csv"
    path.write_text("id,amount,at\n" + "".join(f"{i},{i}.25,2024-01-0{i % 9 + 1}\n" for i in range(3000)))
    con = duckdb.connect()
    columns = exact_view(con, '"v"', literal(str(path)), options, ())
    assert columns == [("id", "BIGINT"), ("amount", "DOUBLE"), ("at", "DATE")]
    path.write_text("id,amount,at\n" + "".join(f"x{i},y,z\n" for i in range(3000)))  # a sniff: all VARCHAR
    con.execute("CREATE VIEW input_df AS SELECT * FROM v")  # a bind that sniffed would see id and at as VARCHAR
    assert [(row[0], row[1]) for row in con.execute("DESCRIBE input_df").fetchall()] == columns


def test_a_read_into_a_table_gives_the_sniffed_columns_and_every_value(tmp_path: Path) -> None:
    path = tmp_path / "mixed.csv"
    path.write_text('id;note;amount;day\n1;"a;b";1.5;01/02/2024\n2;"";-0;13/02/2024\n3;;1e3;\n')
    con = duckdb.connect()
    semi = {**CONFIG, "delimiter": ";"}
    read_exactly(con, '"t"', literal(str(path)), lambda types, sniffed=None: _read_options(semi, types, sniffed), "", ())
    assert [(row[0], row[1]) for row in con.execute('DESCRIBE "t"').fetchall()] == [
        ("id", "BIGINT"), ("note", "VARCHAR"), ("amount", "DOUBLE"), ("day", "DATE")]
    assert con.execute('SELECT id, note, amount::VARCHAR, day::VARCHAR FROM "t" ORDER BY id').fetchall() == [
        (1, "a;b", "1.5", "2024-02-01"), (2, "", "-0.0", "2024-02-13"), (3, None, "1000.0", None)]


DIALECTS = {  # file bytes, the step's own options
    "crlf": (b'a,b,c\r\n1,"x, y",2024-01-02\r\n2,"q""z",2024-01-03\r\n', {}),
    "cr": (b"a,b\r1,2\r3,4\r", {}),
    "bom": (b"\xef\xbb\xbfa;b\n1;2.5\n", {"delimiter": ";"}),
    "comment": (b"# note\na,b\n1,2\n#c\n3,4\n", {"comment": "#"}),
    "single quotes": (b"a|b\n1|'x|y'\n", {"delimiter": "|"}),
    "latin-1": (b"a,b\n1,caf\xe9\n", {"encoding": "latin-1"}),
    "day first": (b"a,d,t\n1,02/01/2024,02/01/2024 10:11:12\n2,13/01/2024,13/01/2024 01:02:03\n", {}),
    "skipped": (b"export v2\na,b\n1,2\n", {"skip_rows": 1}),
    "no header": (b"1,x\n2,y\n", {"header": False}),
    "typed": (b"a,b\n1,2.5\n", {"dtype": {"b": "DECIMAL(4,2)"}}),
}


@pytest.mark.parametrize("name", sorted(DIALECTS))
def test_a_file_sniffed_once_reads_as_the_sniffing_read_in_every_dialect(tmp_path: Path, name: str) -> None:
    """Line ends, quotes, a BOM, comments, an encoding, day-first dates, skipped rows, no header, a
    dtype: the read that names what `sniff_csv` found gives the columns and values of `read_csv`
    sniffing the file itself."""
    data, own = DIALECTS[name]
    path = tmp_path / "f.csv"
    path.write_bytes(data)
    config = {**CONFIG, **own}

    def step_options(types, sniffed=None):
        return _read_options(config, types, sniffed)

    con = duckdb.connect()
    source = literal(str(path))
    assert sniff(con, source, step_options) is not None  # the sniffed road, not the fallback
    read_exactly(con, '"t"', source, step_options, "", list(config.get("dtype", {})))
    expected = con.execute(f"SELECT * FROM read_csv({source}{step_options({})})")
    rows, kinds = expected.fetchall(), [str(d[1]) for d in expected.description]
    got = con.execute('SELECT * FROM "t"')
    assert (got.fetchall(), [str(d[1]) for d in got.description]) == (rows, kinds)


SPELLINGS = ["1.5", "0", "-0", "0.0e5", "+.5", "5.", "1e3", "-1e3", "1_0", "123456789012345", "1234567890123456",
             "0.30000000000000004", "0.1234567890123456789", "12345678901234567.5", "1e-310", "4.9e-324", "1e-400",
             "1e400", "-1e400", "inf", "-Infinity", "NaN", "+nan", "\tinf", " inf", "nan ", " 1.5 ", "abc", "", "1.2.3",
             ".", "-", "1,5", None]


@pytest.mark.parametrize("text", SPELLINGS)
def test_the_check_gives_adr_0166_s_outcome_for_every_spelling(text: str | None) -> None:
    """The number the check lets through, or its refusal, is `_exact`'s (ADR 0166) for each spelling:
    short and long, exponents that overflow or underflow, infinities and NaN with and without
    blanks, and texts that are no number."""
    con = duckdb.connect()

    def outcome(expression: str) -> str:
        try:
            (value,) = con.execute(f"SELECT ({expression})::VARCHAR FROM (SELECT ?::VARCHAR AS x, "
                                   "TRY_CAST(?::VARCHAR AS DOUBLE) AS d)", [text, text]).fetchone() or (None,)
        except duckdb.Error:
            return "refused"
        return f"value {value}"

    before = outcome(f"CAST(CASE WHEN {_exact('x')} THEN x ELSE error('{INEXACT}') END AS DOUBLE)")
    assert outcome(_checked("x", "d", "DOUBLE").removesuffix(" AS x")) == before


def project(root: Path, last: str, query: str = "SELECT sum(amount) AS total, count(*) AS n FROM input_df") -> Path:
    (root / "p.yaml").write_text(f"""\
oml_version: "0.1.0"
name: fused
steps:
  - {{id: read-orders, component: filesystem.csv_extractor, mode: read, config: {{path: orders.csv}}}}
  - id: totals
    component: duckdb.processor
    mode: transform
    needs: [read-orders]
    config: {{query: "{query}"}}
  - {{id: write-totals, component: filesystem.csv_writer, mode: write, needs: [totals], config: {{path: totals.csv}}}}
""")
    (root / "orders.csv").write_text("id,amount\n" + "".join(f"{i},{i % 100}.25\n" for i in range(30_000)) + f"30000,{last}\n")
    return root


def run(root: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "osiris", "run", "p.yaml"], cwd=root, env=clean_env(),
                          capture_output=True, text=True, timeout=120)


@pytest.mark.parametrize("last", ["12345678901234567.5", "0.1234567890123456789"])
def test_a_number_no_double_holds_is_never_rounded_on_the_fused_path(tmp_path: Path, last: str) -> None:
    """The fused read's check fails the transform; the read runs apart into an exact DECIMAL and the
    sum is exact (a double would have rounded both numbers)."""
    done = run(project(tmp_path, last))
    assert done.returncode == 0, done.stderr
    exact = sum(Decimal(f"{i % 100}.25") for i in range(30_000)) + Decimal(last)
    written = (tmp_path / "totals.csv").read_text().splitlines()
    assert written[0] == "total,n" and Decimal(written[1].split(",")[0]) == exact and written[1].endswith(",30001")


@pytest.mark.parametrize("last", ["1e-400", "1e400", "-1e400"])
def test_a_number_past_a_double_s_range_keeps_its_exact_text_on_the_fused_path(tmp_path: Path, last: str) -> None:
    """An exponent past a double's range (0 or infinity as a double) is no DOUBLE and no DECIMAL: the
    column is kept as the file's exact text, never as 0 or inf."""
    done = run(project(tmp_path, last, "SELECT id, amount FROM input_df WHERE id >= 29999"))
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "totals.csv").read_text() == f"id,amount\n29999,99.25\n30000,{last}\n"


@pytest.mark.parametrize("last", ["abc", "1.2.3", "+-", "1;5"])
def test_a_value_that_is_no_number_is_refused_naming_its_column_on_the_fused_path(tmp_path: Path, last: str) -> None:
    """Short texts that are no number (the check's first test sees them first) are refused by the
    reader, naming the column and the line, with nothing written."""
    done = run(project(tmp_path, last))
    assert done.returncode == 6
    assert ("OML503 step 'read-orders': cannot read orders.csv as CSV: column 'amount' holds a value that does not "
            "convert to DOUBLE (line 30002 of the file); the value is withheld") in done.stderr
    assert "Traceback" not in done.stderr and last not in done.stderr
    assert not (tmp_path / "totals.csv").exists()
