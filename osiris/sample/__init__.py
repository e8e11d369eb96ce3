"""The sample run (validation's last tier, docs/sample-run.md): after a pipeline validates, run it on a few rows
of every source, writes proven and rolled back, and turn what breaks into OML5xx issues for the
retry loop.

- `policy`: whether the tier runs (`validation.dry_run: off | ask | sample`, asked once in chat);
- `sample_run`: the sample run itself, on the `osiris run --sample` runtime, and its verdict;
- `facts`: what the sample showed (real columns of a table, the keys of an API record, rows per
  step), as lines for the retry prompt;
- `preview`: each step's first sample rows, for the person;
- `sample_trail`: `dry_run.json` and the `dry_run_start` / `dry_run_complete` events;
- `tier`: the glue the generation engine calls after an attempt validates.
"""

__all__: list[str] = []  # a namespace: import its modules (osiris.sample.<module>)
