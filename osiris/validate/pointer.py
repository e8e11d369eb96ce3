"""JSON pointers for issue paths: they live in `osiris.extract.pointer`, below every package that
needs them (the redactor too); the validator's modules import them from here as before."""

from osiris.extract.pointer import join, readable, split

__all__ = ["join", "readable", "split"]
