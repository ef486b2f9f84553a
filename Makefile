# One entry point for people and CI alike: `make check` (lint, types and the tests that need
# no server or browser), `make test` (everything) and `make demo` work on a fresh machine
# (they create .venv and install the pinned dependencies first).
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
# Quiet: pip says nothing unless something fails.
PIP := $(BIN)/python -m pip -qq --disable-pip-version-check

.PHONY: install check test lint typecheck pytest pytest-check demo emulator bench lock clean

install: $(STAMP)

$(STAMP): requirements.lock pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(PIP) install --upgrade "pip>=24"
	$(PIP) install -r requirements.lock
	$(PIP) install --no-deps -e .
	touch $(STAMP)

lint: install
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

typecheck: install
	$(BIN)/mypy callcenter storage commands bot emulators tests scripts

# The test tiers are pytest markers, given to every test in tests/conftest.py.
pytest-check: install
	$(BIN)/pytest -m check

check: lint typecheck pytest-check

pytest: install
	$(BIN)/pytest

test: lint typecheck pytest

demo: install
	$(BIN)/callops demo

emulator: install
	$(BIN)/callops emulator

bench: install
	$(BIN)/python benchmarks/client.py

# Re-pin every transitive dependency after changing pyproject.toml.
lock:
	rm -rf /tmp/callops-lock && $(PYTHON) -m venv /tmp/callops-lock
	/tmp/callops-lock/bin/pip install -qq --disable-pip-version-check --upgrade pip
	/tmp/callops-lock/bin/pip install -qq --disable-pip-version-check '.[dev]'
	/tmp/callops-lock/bin/pip freeze --exclude callops > requirements.lock

clean:
	rm -rf $(VENV) build *.egg-info .mypy_cache .pytest_cache .ruff_cache
