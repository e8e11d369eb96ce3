"""The exact bytes `filesystem.csv_writer` writes for each option its spec allows (quoting,
encoding, newline, delimiter, header), through `osiris run` in-process; and the one line a run
prints when a value cannot be written in the chosen encoding, with the old file left as it was."""

from __future__ import annotations

import codecs
from pathlib import Path
from typing import Any

import pytest

from tests.run_helpers import RunProject, csv_step, sql_step

# Every kind of field: a number, text needing quotes, NULL, a decimal, an empty string, a boolean,
# a date, and a non-ASCII letter; a header name with a space.
SHAPE = ("SELECT id, CASE WHEN id = 2 THEN 'Bob, \"B\"' ELSE name END AS \"full name\", "
         "NULLIF(city, 'Rome') AS city, id * 1.5 AS amount, '' AS blank, id = 1 AS first, "
         "DATE '2024-01-02' + CAST(id AS INTEGER) AS day FROM input_df ORDER BY id")
MINIMAL = ('id,full name,city,amount,blank,first,day\n'
           '1,Zoë,Oslo,1.5,"",true,2024-01-03\n'
           '2,"Bob, ""B""",,3.0,"",false,2024-01-04\n')
NONNUMERIC_ROWS = ('1,"Zoë","Oslo",1.5,"","true","2024-01-03"\n'
                   '2,"Bob, ""B""",,3.0,"","false","2024-01-04"\n')


@pytest.fixture
def proj(tmp_path: Path) -> RunProject:
    project = RunProject(tmp_path / "project")
    (project.root / "people.csv").write_text("id,name,city\n1,Zoë,Oslo\n2,Bob,Rome\n", encoding="utf-8")
    return project


def written(proj: RunProject, **options: Any) -> bytes:
    path = proj.pipeline([csv_step("read", "read", "people.csv"), sql_step("shape", SHAPE),
                          csv_step("write", "write", "out/people.csv", **options)])
    result = proj.run(str(path))
    assert result.returncode == 0, result.stderr
    assert sorted(p.name for p in (proj.root / "out").iterdir()) == ["people.csv"]  # no partial file left
    return (proj.root / "out" / "people.csv").read_bytes()


def test_minimal_quoting_is_the_default(proj: RunProject) -> None:
    assert written(proj) == MINIMAL.encode()
    assert written(proj, quoting="minimal", encoding="utf-8", newline="lf") == MINIMAL.encode()


def test_all_quotes_every_field_and_header_name_but_not_null(proj: RunProject) -> None:
    assert written(proj, quoting="all") == (
        '"id","full name","city","amount","blank","first","day"\n'
        '"1","Zoë","Oslo","1.5","","true","2024-01-03"\n'
        '"2","Bob, ""B""",,"3.0","","false","2024-01-04"\n').encode()


def test_nonnumeric_quotes_text_dates_booleans_and_every_header_name(proj: RunProject) -> None:
    header = '"id","full name","city","amount","blank","first","day"\n'
    assert written(proj, quoting="nonnumeric") == (header + NONNUMERIC_ROWS).encode()
    assert written(proj, quoting="nonnumeric", header=False) == NONNUMERIC_ROWS.encode()


def test_latin_1_and_ascii_write_one_byte_a_character(proj: RunProject) -> None:
    assert written(proj, encoding="latin-1") == MINIMAL.encode("latin-1")
    assert b"Zo\xeb" in MINIMAL.encode("latin-1")
    (proj.root / "people.csv").write_text("id,name,city\n1,Zoe,Oslo\n2,Bob,Rome\n", encoding="utf-8")
    assert written(proj, encoding="ascii") == MINIMAL.replace("Zoë", "Zoe").encode("ascii")


def test_utf_16_is_little_endian_after_a_byte_order_mark(proj: RunProject) -> None:
    data = written(proj, encoding="utf-16", newline="crlf")
    assert data == codecs.BOM_UTF16_LE + MINIMAL.replace("\n", "\r\n").encode("utf-16-le")
    assert data.decode("utf-16") == MINIMAL.replace("\n", "\r\n")  # what a reader sees


def test_every_option_at_once(proj: RunProject) -> None:
    assert written(proj, quoting="nonnumeric", delimiter=";", encoding="latin-1", newline="crlf") == (
        '"id";"full name";"city";"amount";"blank";"first";"day"\r\n'
        '1;"Zoë";"Oslo";1.5;"";"true";"2024-01-03"\r\n'
        '2;"Bob, ""B""";;3.0;"";"false";"2024-01-04"\r\n').encode("latin-1")


def test_re_encoding_in_blocks_splits_no_character(proj: RunProject, monkeypatch: pytest.MonkeyPatch) -> None:
    """Blocks of 2 bytes cut the two bytes of 'ë' (bytes 45 and 46) apart: the decoder joins them."""
    monkeypatch.setattr("osiris.run.csv_output.TRANSCODE_BYTES", 2)
    assert written(proj, encoding="utf-16") == codecs.BOM_UTF16_LE + MINIMAL.encode("utf-16-le")


def test_a_character_the_encoding_lacks_is_one_line_and_the_old_file_stays(proj: RunProject) -> None:
    target = proj.root / "out" / "people.csv"
    target.parent.mkdir()
    target.write_bytes(b"old,file\n")
    (proj.root / "people.csv").write_text("id,name,city\n1,Ann,Oslo\n2,Bob,Rome\n3,Zoë,Oslo\n", encoding="utf-8")
    path = proj.pipeline([csv_step("read", "read", "people.csv"), sql_step("shape", SHAPE),
                          csv_step("write", "write", "out/people.csv", encoding="ascii")])
    result = proj.run(str(path))
    assert result.returncode == 6
    assert result.stderr.splitlines()[:2] == [
        f"{path} OML504 step 'write': a value does not fit the file's encoding ascii: 'ë' (U+00EB) on line 4 "
        "of the file",
        "    hint: set encoding: utf-8 (the default) or utf-16, or replace the character in a duckdb.processor "
        "step before this one; nothing was written"]
    assert target.read_bytes() == b"old,file\n"
    assert sorted(p.name for p in target.parent.iterdir()) == ["people.csv"]


def test_sample_output_has_the_same_format(proj: RunProject) -> None:
    (proj.root / ".osiris.yaml").write_text("sessions: {save_samples: true}\n")  # else nothing is kept
    path = proj.pipeline([csv_step("read", "read", "people.csv"), sql_step("shape", SHAPE),
                          csv_step("write", "write", "out/people.csv", quoting="nonnumeric", encoding="latin-1")])
    result = proj.run(str(path), "--sample", "1")
    assert result.returncode == 0, result.stderr
    sample = proj.last_session() / "artifacts" / "sample-output" / "write" / "people.csv"
    assert sample.read_bytes() == ('"id","full name","city","amount","blank","first","day"\n'
                                   + NONNUMERIC_ROWS.splitlines(keepends=True)[0]).encode("latin-1")
