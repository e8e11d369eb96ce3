"""Layered settings (docs/configuration.md): defaults < .osiris.yaml < OSIRIS_* env < command line.

    from osiris.settings import load_settings
    effective = load_settings(cli={"validation": {"retry": {"max_attempts": 0}}})
    effective.settings.validation.retry.max_attempts   # 0
    effective.source("validation.retry.max_attempts")  # "cli"
"""

from osiris.settings.loader import CONFIG_FILE_NAME, EffectiveSettings, load_settings
from osiris.settings.model import Settings

__all__ = ["CONFIG_FILE_NAME", "EffectiveSettings", "Settings", "load_settings"]
