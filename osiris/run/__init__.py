"""The runtime: run a validated pipeline on an embedded DuckDB engine (`osiris run`).

The data flow is: the engine orders the steps, each step's driver reads, writes or transforms rows,
and every step's output is a DuckDB table named `df_<step id>`. Drivers live in `osiris.run.drivers`,
one module per component family.
"""

__all__: list[str] = []  # a namespace: import its modules (osiris.run.<module>)
