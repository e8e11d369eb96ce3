"""`osiris chat`: the interactive REPL around the generation engine.

Everything here may import prompt_toolkit and rich; nothing outside `osiris/commands/chat.py`
imports this package, so `osiris --help` and `osiris validate` never pay for them.
"""

__all__: list[str] = []  # a namespace: import its modules (osiris.chat.<module>)
