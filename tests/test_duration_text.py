"""One rule for a duration's text (issue 37): a preview (`osiris.text_table.value_text`) and the MySQL
reader (a TIME value, handed to DuckDB as text) both write `osiris.text_table.duration_text`, which is
the text DuckDB itself prints for the same INTERVAL, so the preview, the engine's value and a CSV
file written from it read alike."""

from __future__ import annotations

from datetime import timedelta
from types import SimpleNamespace

import duckdb
import pytest

from osiris.run.drivers.mysql_types import TIME, ReadColumns
from osiris.text_table import duration_text, value_text

HOUR = 3600 * 10**6
DURATIONS = [(838 * HOUR + (59 * 60 + 59) * 10**6, "838:59:59"), (-(838 * HOUR + (59 * 60 + 59) * 10**6), "-838:59:59"),
             (-(12 * HOUR + 30 * 60 * 10**6 + 500_000), "-12:30:00.5"), (1, "00:00:00.000001"), (0, "00:00:00"),
             (25 * HOUR + 120_000, "25:00:00.12"), (-1, "-00:00:00.000001"), (HOUR + 123_456, "01:00:00.123456")]


@pytest.mark.parametrize("micros, text", DURATIONS)
def test_a_duration_reads_as_mysql_and_duckdb_print_it(micros: int, text: str) -> None:
    value = timedelta(microseconds=micros)
    assert duration_text(value) == text
    assert value_text(value) == text  # a preview
    field = SimpleNamespace(name="took", type_code=TIME, flags=0, charsetnr=33, length=10, scale=0)
    assert ReadColumns([field]).rows([(value,)]) == [(text,)]  # what the MySQL reader hands DuckDB
    printed = duckdb.connect().execute("SELECT CAST(CAST(? AS INTERVAL) AS VARCHAR)", [text]).fetchone()
    assert printed == (text,)  # DuckDB reads it as that INTERVAL and prints it back the same
