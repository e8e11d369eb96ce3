"""Tiered OML validation (docs/validate.md): syntax, structure, config, semantic.

    from osiris.validate import load_validator
    validator = load_validator(effective_settings)
    report = validator.validate(llm_answer_text)
    report.valid, report.error_codes, report.issues
"""

from osiris.validate.codes import CODES
from osiris.validate.issue import Issue, ValidationReport
from osiris.validate.validator import Validator, load_validator

__all__ = ["CODES", "Issue", "ValidationReport", "Validator", "load_validator"]
