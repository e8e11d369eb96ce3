"""A step skipped because the whole run stopped says so, on both engines: `skipped (the run stopped
at step 'X')`, where X is not one of its inputs. Before, it said `skipped (its input 'X' did not
complete)` of a step that never read X: a failed error-level check stops every step after it
(docs/run-again.md), and on Spark a step that fails while the run is planned stops the run before
any job (docs/spark.md)."""

from __future__ import annotations

import json

import pytest

from tests.run_helpers import ENGINES, RunProject, after, csv_step, on_engine

pytestmark = pytest.mark.xdist_group("spark")  # the Spark cells start a JVM: one worker runs them all
# A Spark cell runs `osiris run` as a child, with a Spark session of its own, as a person's run has: in a
# test process whose session earlier tests used, one such run once spun for minutes in a join none of
# its steps asks for (the first fresh-clone gate of 2026-11-28).


def project(tmp_path, engine: str) -> RunProject:
    proj = RunProject(tmp_path / "p")
    (proj.root / "people.csv").write_text("id,email\n1,a@x.org\n2,\n", encoding="utf-8")
    return on_engine(proj, engine)


@pytest.mark.parametrize("engine", sorted(ENGINES))
def test_a_failed_check_stops_the_run_and_each_skipped_step_says_why(tmp_path, engine):
    proj = project(tmp_path, engine)
    path = proj.pipeline([
        {**csv_step("checked", "read", "people.csv"), "checks": [{"not_null": ["email"]}]},
        after(csv_step("write-checked", "write", "out/checked.csv"), "checked"),
        csv_step("other", "read", "people.csv"),
        after(csv_step("write-other", "write", "out/other.csv"), "other")])
    result = proj.run(str(path), "--json", process=engine == "spark")
    assert result.returncode == 6, result.stderr
    steps = {step["id"]: step for step in json.loads(result.stdout)["steps"]}
    assert [(steps[s]["status"], steps[s]["skipped_because"], steps[s].get("halted")) for s in steps] == [
        ("failed", None, None), ("skipped", "checked", None), ("skipped", "checked", True),
        ("skipped", "other", None)]
    shown = proj.run(str(path), process=engine == "spark").stdout
    assert "write-checked  skipped (its input 'checked' did not complete)\n" in shown
    assert "other  skipped (the run stopped at step 'checked')\n" in shown
    assert "write-other  skipped (its input 'other' did not complete)\n" in shown


def test_a_step_spark_cannot_plan_stops_the_run_and_the_others_say_so(tmp_path):
    proj = project(tmp_path, "spark")
    path = proj.pipeline([csv_step("read", "read", "people.csv"),
                          after(csv_step("write", "write", "out/people.csv"), "read"),
                          csv_step("missing", "read", "missing.csv"),
                          after(csv_step("write-missing", "write", "out/missing.csv"), "missing")])
    result = proj.run(str(path), process=True)
    assert result.returncode == 6, result.stdout + result.stderr
    assert "read  skipped (the run stopped at step 'missing')\n" in result.stdout
    assert "write  skipped (its input 'read' did not complete)\n" in result.stdout
    assert "write-missing  skipped (its input 'missing' did not complete)\n" in result.stdout
    assert not (proj.root / "out").exists()
    run_json = json.loads((proj.last_session() / "artifacts" / "run.json").read_text(encoding="utf-8"))
    assert {s["id"]: s.get("halted") for s in run_json["steps"]} == {
        "read": True, "write": None, "missing": None, "write-missing": None}
