"""One module per `osiris` command: `add_arguments(parser)` and `run(args) -> int`.

Keep heavy imports (anthropic, prompt_toolkit, rich) inside `run`, never at module level.
"""
