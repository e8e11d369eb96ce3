"""What `oml_schema_get` returns: the OML document's shape as JSON Schema, the rules a checker
cannot show in a schema, and an example. Built from the validator's own constants
(osiris/validate/structure.py), so the shape shown is the shape checked (docs/oml.md)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from osiris.oml.step_graph import table_name
from osiris.oml.ids import RULE
from osiris.validate.structure import (
    LEGACY_KEYS,
    OML_MODES,
    OML_VERSION,
    OPTIONAL_KEYS,
    REQUIRED_KEYS,
    STEP_OPTIONAL,
    STEP_REQUIRED,
)

if TYPE_CHECKING:
    from osiris.oml.values import Config, Value

_EXTENSIONS = {"^x-": {"description": "an extension: allowed at any level, ignored by the checks"}}
_TOP_LEVEL: dict[str, Config] = {
    "oml_version": {"const": OML_VERSION},
    "name": {"type": "string", "description": "lowercase kebab-case, e.g. active-customers-to-csv"},
    "description": {"type": "string"},
    "metadata": {"type": "object"},
    "schedule": {"type": "string", "description": 'a quoted 5-field cron expression, e.g. "0 2 * * *"'},
}
_STEP: dict[str, Config] = {
    "id": {"type": "string", "description": f"unique in the pipeline; {RULE}; e.g. extract-orders"},
    "component": {"type": "string", "description": "a component name (components_list)"},
    "mode": {"enum": list(OML_MODES)},
    "config": {"type": "object", "description": "the component's fields (components_show)"},
    "needs": {"type": "array", "items": {"type": "string"},
              "description": "ids of earlier steps whose rows this step takes"},
    "inputs": {"type": "object", "description": 'public Osiris form {df: "${step_id.df}"}: a dependency'},
    "description": {"type": "string"},
    "name": {"type": "string"},
}
EXAMPLE = """\
oml_version: "0.1.0"
name: large-orders-to-csv
description: orders over 100 from a CSV export, as a CSV file
steps:
  - id: read-orders
    component: filesystem.csv_extractor
    mode: read
    config:
      path: data/orders.csv
  - id: keep-large
    component: duckdb.processor
    mode: transform
    needs: [read-orders]
    config:
      query: SELECT id, customer_id, total FROM df_read_orders WHERE total > 100
  - id: write-large
    component: filesystem.csv_writer
    mode: write
    needs: [keep-large]
    config:
      path: output/large_orders.csv
"""


def oml_shape() -> dict[str, object]:
    step: Config = {"type": "object", "required": list(STEP_REQUIRED),
            "properties": {key: _STEP.get(key, {}) for key in (*STEP_REQUIRED, *STEP_OPTIONAL)},
            "patternProperties": _EXTENSIONS, "additionalProperties": False}
    properties: dict[str, Value] = {key: _TOP_LEVEL.get(key, {}) for key in (*REQUIRED_KEYS, *OPTIONAL_KEYS)}
    properties["steps"] = {"type": "array", "minItems": 1, "items": step}
    return {
        "oml_version": OML_VERSION,
        "schema": {"$schema": "https://json-schema.org/draft/2020-12/schema", "title": f"OML {OML_VERSION} pipeline",
                   "type": "object", "required": list(REQUIRED_KEYS), "properties": properties,
                   "patternProperties": _EXTENSIONS, "additionalProperties": False},
        "rules": rules(),
        "example": EXAMPLE,
    }


def rules() -> list[str]:
    example = "extract-orders"
    return [
        "mode is read, write or transform: a component's extract mode is read, write is write, transform is "
        "transform; a component supports only the modes components_list shows for it.",
        f"Never use the legacy keys {', '.join(LEGACY_KEYS)}, nor a step's type key.",
        "A write or transform step without needs takes the rows of the step just before it; a read takes none; "
        "needs: [] means none. needs names earlier steps only: no unknown ids, no cycles. A writer leaves no "
        "table: no step may take its rows, and a writer takes the rows of exactly one step.",
        f"A step id is {RULE}; two ids may not differ only in - against _ or in letter case.",
        f"In a duckdb.processor query, each step in needs is the table df_<its id with every character other "
        f"than a-z, A-Z, 0-9 replaced by _> (needs: [{example}] -> {table_name(example)}); with exactly one "
        "input, input_df names it too.",
        'A step reaches a database or an API through config.connection: "@family.alias" (connections_list); '
        "the connection supplies host, user, password and the other connection fields, so leave them out.",
        "Never write a password, token or key inline: secrets come only from a connection.",
        "Check a pipeline with oml_validate, test it on sample rows with run_sample, then save it with oml_save.",
    ]
