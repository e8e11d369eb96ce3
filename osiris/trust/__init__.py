"""The trust boundary: what a pipeline may reach (docs/security.md).

The person and their `.osiris.yaml` are trusted; an LLM's answer and any pipeline file are not.
Each rule lives in one module, and the validator and the runtime both call it, so that a pipeline
that skipped validation meets the same rule at run time:

- `endpoints`: a connection's secrets go only to its own endpoint (OML314; OML518 at run time);
- `references`: `${NAME}` is resolved in connections only, by the one resolver (OML316; OML518);
- `sql`: a transform reads only its inputs, never files or the network (OML408);
- `sandbox`: DuckDB runs with file and network access off, inside the run's scratch directory;
- `paths`: files stay inside the project or a declared `base_dir` (OML317; OML517);
- `disclosure`: what a run error may say: names, types and counts, never a value; redact, then cut;
- `boundary`: the facts of one project that the runtime checks against.
"""

__all__: list[str] = []  # a namespace: import its modules (osiris.trust.<module>)
