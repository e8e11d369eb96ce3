"""The pipeline format's shared rules: what the validator checks and the runtime obeys, written once.

- `osiris.oml.graph`: what a step depends on, the order steps run in, and the `df_<id>` tables.
"""
