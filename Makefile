# Two commands do all the set-up: `make chat` runs Osiris, `make test` runs the tests.
# Each creates the virtualenv when it is missing.
PYTHON ?= python3
VENV   ?= .venv
PY     := $(VENV)/bin/python

.PHONY: chat test lint typecheck bench clean

$(VENV)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[dev]'
	touch $@

# Exit 3 means no API key (and the offline demo was declined): a normal choice, so say how to set
# a key and end without make's "Error 3".
chat: $(VENV)/.installed
	@$(VENV)/bin/osiris chat; status=$$?; \
	if [ $$status -eq 3 ]; then \
		echo "make chat: no API key yet. Set one with: export ANTHROPIC_API_KEY=sk-ant-..." \
		     "(or run $(VENV)/bin/osiris auth login where a system keyring exists), then run make chat again."; \
		exit 0; \
	fi; exit $$status

# One worker per core (ADR 0116), each test file on one worker (a module-scoped server starts once
# per file); coverage of osiris/ with its floor (ADR 0117). The order is random (pytest-randomly, ADR
# 0204): the seed is the last line but one, and --randomly-seed=N replays it. For one file:
# $(PY) -m pytest -q tests/test_x.py
# The tests start real PostgreSQL 15 and MariaDB servers, and the Spark tests need their JDBC drivers:
# .ci/system-packages installs what is missing (as root, with apt) or says in one line how to.
test: $(VENV)/.installed
	@bash .ci/system-packages
	@$(PY) -m tests.servers.needs
	$(PY) -m pytest -q -n auto --dist loadfile --cov --cov-report=

# Bug and complexity rules (ruff, configured in pyproject.toml; ADR 0110), and the layers of
# docs/architecture.md: every import points down its table (tests/test_layers.py, a few seconds).
lint: $(VENV)/.installed
	$(VENV)/bin/ruff check .
	$(PY) -m pytest -q -p no:randomly -p no:cacheprovider tests/test_layers.py

# mypy strict on osiris/ (configured in pyproject.toml; ADR 0115).
typecheck: $(VENV)/.installed
	$(VENV)/bin/mypy

bench: $(VENV)/.installed
	$(PY) bench/startup.py
	$(PY) bench/validate.py
	$(PY) bench/retry.py
	$(PY) bench/chat_start.py
	$(PY) bench/sql.py

clean:
	rm -rf $(VENV) *.egg-info .pytest_cache
