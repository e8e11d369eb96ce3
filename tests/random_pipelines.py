"""Seeded random pipelines over local CSV files, for the validate-versus-run differential test
(tests/test_contract_differential.py) and its big campaign (bench/differential.py).

Every pipeline reads CSV files of one shape (id, city), transforms with SQL that keeps that shape,
and writes CSV files, inside a project directory; so whatever `osiris validate` accepts can run.
The forms vary: ids that collide as tables or are not plain names, every way of writing a
dependency (`needs` with earlier, later, unknown and repeated ids, `needs: []`, `inputs` as
`${id.df}`, `${id.rows}`, `${ id.df }`, both keys, neither), queries reading `input_df`, `df_<id>`
of an input or of another step, and steps shuffled out of order.
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

from osiris.oml.step_graph import table_name

DATA = {"data/people.csv": "id,city\n1,Oslo\n2,Rome\n3,Oslo\n", "data/places.csv": "id,city\n7,Lima\n8,Oslo\n"}
IDS = ["read-a", "read_b", "readC", "t1", "t-2", "T1", "mix", "w", "w-2", "w_2", "out", "load1", "x.y", "bad id"]
MODES = ["read", "read", "read", "transform", "transform", "transform", "write", "write"]


def write_data(root: Path) -> None:
    """The CSV files every random pipeline reads."""
    for name, text in DATA.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text, encoding="utf-8")


def random_pipeline(seed: int) -> dict[str, Any]:
    """The pipeline for `seed`: the same document for the same seed, on every machine."""
    rng = random.Random(seed)
    count = rng.randint(1, 6)
    ids: list[str] = []
    for position in range(count):
        twin = ids and rng.random() < 0.1  # the same table under another spelling: x-1 and x_1, T1 and t1
        ids.append(rng.choice(ids).replace("-", "_").swapcase() if twin else _an_id(rng, position))
    steps = [_step(rng, step_id, n, ids) for n, step_id in enumerate(ids)]
    if rng.random() < 0.2:
        rng.shuffle(steps)
    return {"oml_version": "0.1.0", "name": f"random-{seed}", "steps": steps}


def _an_id(rng: random.Random, position: int) -> str:
    return rng.choice(IDS) if rng.random() < 0.25 else f"{rng.choice(IDS[:12])}-{position}"


def _step(rng: random.Random, step_id: str, position: int, ids: list[str]) -> dict[str, Any]:
    mode = rng.choice(MODES) if position else rng.choice(["read", "read", "read", "transform", "write"])
    step: dict[str, Any] = {"id": step_id}
    step.update(_dependencies(rng, position, ids))
    if mode == "read":
        step.update(component="filesystem.csv_extractor", mode="read", config={"path": rng.choice(list(DATA))})
    elif mode == "write":
        step.update(component="filesystem.csv_writer", mode="write", config={"path": f"out/{position}.csv"})
    else:
        step.update(component="duckdb.processor", mode="transform", config={"query": _query(rng, step, ids)})
    return step


def _dependencies(rng: random.Random, position: int, ids: list[str]) -> dict[str, Any]:
    earlier = ids[:position]
    form = rng.choice(["none", "none", "none", "empty", "needs", "needs", "needs", "inputs", "both", "anywhere"])
    if form == "none":
        return {}
    if form == "empty":
        return {"needs": []}
    if form == "anywhere":  # later, unknown or itself: validation's business
        return {"needs": [rng.choice([*ids, "ghost"])]}
    if not earlier:
        return {"needs": []} if rng.random() < 0.5 else {}
    chosen = rng.sample(earlier, k=min(len(earlier), rng.choice([1, 1, 1, 2])))
    if form == "needs":
        return {"needs": chosen + ([chosen[0]] if rng.random() < 0.1 else [])}
    reference = rng.choice(["${{{}.df}}", "${{{}.rows}}", "${{ {}.df }}"])
    if form == "inputs":
        return {"inputs": {f"in{n}": reference.format(name) for n, name in enumerate(chosen)}}
    return {"needs": chosen[:1], "inputs": {"df": reference.format(chosen[-1])}}


def _query(rng: random.Random, step: dict[str, Any], ids: list[str]) -> str:
    named = [str(n) for n in step.get("needs") or []] + [
        v.strip("${} ").rsplit(".", 1)[0] for v in (step.get("inputs") or {}).values()]
    pool = named or ids
    choice = rng.choice(["input_df", "input_df", "one", "two", "constant"])
    if choice == "input_df":
        return "SELECT id, city FROM input_df"
    if choice == "constant":
        return "SELECT 1 AS id, 'Oslo' AS city"
    first = table_name(rng.choice(pool))
    if choice == "one":
        return f"SELECT id, city FROM {first} WHERE id > 1"
    second = table_name(rng.choice(pool))
    return f"SELECT id, city FROM {first} UNION ALL SELECT id, city FROM {second}"
