"""The pipeline format's shared rules: what the validator checks and the runtime obeys, written once.

- `osiris.oml.step_graph`: what a step depends on, the order steps run in, and the `df_<id>` tables.
- `osiris.oml.ids`: what a step id may be.
- `osiris.oml.pipeline`: a valid pipeline as typed objects (`Pipeline`, `Step`), what the validator hands the engines.
- `osiris.oml.values`: the types of a pipeline's values (`Value`, `Config`), to annotate with instead of `Any`.
"""

__all__: list[str] = []  # import the rules from their modules: `from osiris.oml.step_graph import run_order`
