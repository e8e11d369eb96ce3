"""Real servers for the runtime's tests, started once per test session on loopback ports."""
