"""The plan both engines follow: step table names, each step's inputs, and the run order.

The one place the Spark engine imports them: from `osiris.oml.graph`, the one rule the validator and
the DuckDB engine follow too (ADR 0051).
"""

from osiris.oml.graph import dependencies_of, input_tables, reads_inputs, run_order, table_name

__all__ = ["dependencies_of", "input_tables", "reads_inputs", "run_order", "table_name"]
