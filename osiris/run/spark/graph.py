"""The plan both engines follow: step table names, each step's inputs, and the run order.

The one place the Spark engine imports them, so that the graph module can move (stream `contract`
moves these three into `osiris.oml.graph`) with one changed import.
"""

from osiris.run.plan import dependencies_of, run_order, table_name

__all__ = ["dependencies_of", "run_order", "table_name"]
