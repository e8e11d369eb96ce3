"""Secrets: recognising them by name, keeping the API key in the keyring, and redacting text."""

__all__: list[str] = []  # a namespace: import its modules (osiris.secrets.<module>)
