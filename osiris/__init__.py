"""Osiris: turn plain-English data-pipeline requests into OML pipelines that validate."""

__version__ = "0.1.0"
__all__ = ["__version__"]
