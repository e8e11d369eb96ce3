"""Tiered OML validation (SPEC §4): syntax, structure, config, semantic."""
