# Two commands do all the set-up: `make chat` runs Osiris, `make test` runs the tests.
# Each creates the virtualenv when it is missing.
PYTHON ?= python3
VENV   ?= .venv
PY     := $(VENV)/bin/python

.PHONY: chat test bench clean

$(VENV)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[dev]'
	touch $@

chat: $(VENV)/.installed
	$(VENV)/bin/osiris chat

test: $(VENV)/.installed
	$(PY) -m pytest -q

bench: $(VENV)/.installed
	$(PY) bench/startup.py
	$(PY) bench/validate.py
	$(PY) bench/retry.py
	$(PY) bench/chat_start.py
	$(PY) bench/sql.py

clean:
	rm -rf $(VENV) *.egg-info .pytest_cache
