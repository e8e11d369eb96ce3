"""Tier 1 of validation: from raw LLM text (or a file) to one parsed YAML document."""

from osiris.extract.cut import Cut, cut_yaml
from osiris.extract.load import (
                                 MAX_CHARS,
                                 MAX_DEPTH,
                                 MAX_NODES,
                                 Loaded,
                                 Position,
                                 Problem,
                                 escape,
                                 estimated_depth,
                                 load_document,
)

__all__ = ["Cut", "Loaded", "MAX_CHARS", "MAX_DEPTH", "MAX_NODES", "Position", "Problem", "cut_yaml",
           "escape", "estimated_depth", "load_document"]
