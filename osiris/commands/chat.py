"""`osiris chat`: not built yet."""

from osiris.commands.not_built import add_arguments, not_built

__all__ = ["add_arguments", "run"]


def run(args) -> int:
    raise not_built("chat")
