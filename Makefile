# One entry point for people and CI alike: `make test` and `make demo` work on a fresh
# machine (they create .venv and install the pinned dependencies first).
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
# Quiet: pip says nothing unless something fails.
PIP := $(BIN)/python -m pip -qq --disable-pip-version-check

.PHONY: install test lint typecheck pytest demo emulator bench lock clean

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
