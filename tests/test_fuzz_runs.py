"""A bounded slice of the runs fuzz (tests/fuzz_runs.py, issue 25): 40 fuzzed valid pipelines
through a real `osiris run` (files, a local API, the test PostgreSQL and MariaDB); none may exit 5, show a
Python exception's name or a traceback, or end with a library error no driver mapped. The big
campaign is `bench/fuzz.py --runs N` (docs/reliability.md)."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

from tests.fuzz_runs import FuzzApi, findings, load_sources, run_one, runs

COUNT, SEED = 40, 25


def test_fuzzed_valid_runs_end_with_a_code_and_one_line(tmp_path: Path, postgres_server, mariadb_server) -> None:
    load_sources(postgres_server, mariadb_server)
    codes: Counter[int] = Counter()
    found = []
    with FuzzApi() as api:
        for number, pipeline, files in runs(SEED, COUNT, api.url, postgres=True, mysql=True):
            code, stdout, stderr = run_one(tmp_path / "project", pipeline, files, postgres_server, mariadb_server)
            codes[code] += 1
            found += [(number, finding, stderr) for finding in findings(code, stdout, stderr)]
    assert found == []
    assert codes[0] and codes[6], codes  # the slice reaches both ends: runs that work and runs that fail


def test_the_findings_see_what_they_look_for() -> None:
    assert findings(5, "", "osiris: internal error: osiris/run/x.py:3 (a bug in Osiris)") == ["exit 5"]
    assert findings(6, "", "p.yaml OML503 step 'r': ValueError: embedded null byte") == ["raw name 'ValueError'"]
    assert findings(5, "", "p.yaml OML105 step 'r': the rest.extractor driver stopped at an internal error "
                           "(KeyError in osiris/run/http.py:3)") == ["exit 5", "raw name 'KeyError'", "unmapped library error"]
    assert findings(6, "", "p.yaml OML504 step 'r': a value does not fit: Conversion Error: x") == []
