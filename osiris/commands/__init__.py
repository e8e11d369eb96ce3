"""One module per `osiris` command: `add_arguments(parser)` and `run(args) -> int`.

Keep heavy imports (anthropic, prompt_toolkit, rich) inside `run`, never at module level.
"""

__all__: list[str] = []  # a namespace: import its modules (osiris.commands.<module>)
