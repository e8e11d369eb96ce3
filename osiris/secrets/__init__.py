"""Secrets: recognising them by name, keeping the API key in the keyring, and redacting text."""
