# One entry point for people and CI alike. On a fresh clone with Python 3.11+, git and make:
#   make check   lint, types and the tests that need no server or browser (under a minute)
#   make test    everything: also the end-to-end tests on loopback servers and the browser
#   make demo    the offline demo, console at http://127.0.0.1:8800/console/
#                (PORT=8871 to run it beside something else on 8800)
# Each creates .venv and installs the pinned dependencies first, and the Debian packages it
# needs (the `packages` step: as root it installs them, otherwise it names the apt-get line).
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
# Quiet: pip says nothing unless something fails.
PIP := $(BIN)/python -m pip -qq --disable-pip-version-check

# Debian packages beyond Python. chromium: the console's browser tests and the screenshot
# drive /usr/bin/chromium headless. fonts-noto-color-emoji: the console draws Slack's emoji
# in colour. postgresql: the PostgreSQL-backed tests start their own server. espeak-ng:
# an autocall's preview spoken with its Vietnamese voice (the Listen button); the tests
# that run it are in the server tier (the `espeak_ng` fixture in tests/conftest.py).
# `make check` needs no Debian package.
TEST_PACKAGES := chromium fonts-noto-color-emoji postgresql espeak-ng
DEMO_PACKAGES := fonts-noto-color-emoji espeak-ng
CHECK_PACKAGES :=
SCREENSHOT_PACKAGES := chromium fonts-noto-color-emoji
# Debian's python3 makes venvs only with python3-venv; looked for only until .venv is made.
VENV_PACKAGE = $(if $(wildcard $(STAMP)),,$(shell $(PYTHON) -c 'import ensurepip' 2>/dev/null || echo python3-venv))


.PHONY: translations catalog
.PHONY: packages install check test lint typecheck pytest pytest-check demo emulator screenshot bench lock clean

# The one place that installs Debian packages: those of $(PACKAGES) (set per goal below)
# that dpkg does not list as installed. Nothing to do costs one dpkg-query per package;
# `apt-get update` runs only when something is missing.
packages:
	@missing=""; \
	for p in $(sort $(PACKAGES) $(VENV_PACKAGE)); do \
	  dpkg-query -W -f='$${db:Status-Abbrev}' $$p 2>/dev/null | grep -q '^ii' || missing="$$missing $$p"; \
	done; \
	if [ -z "$$missing" ]; then exit 0; fi; \
	if ! command -v apt-get >/dev/null; then \
	  echo "Missing Debian packages:$$missing (no apt-get here: install their equivalents, then run make with PACKAGES= to skip this check)" >&2; exit 1; \
	elif [ "$$(id -u)" != 0 ]; then \
	  echo "Missing Debian packages; run: sudo apt-get install -y$$missing" >&2; exit 1; \
	fi; \
	echo "Installing Debian packages:$$missing"; \
	apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq$$missing >/dev/null

# requirements.lock pins the `demo` extra too (emulators, Slack stand-in, console), so every
# goal here, `make demo` and `make test` among them, gets the product and the demo alike.
install: $(STAMP)

$(STAMP): requirements.lock pyproject.toml | packages
	test -x $(BIN)/pip || $(PYTHON) -m venv $(VENV)
	$(PIP) install --upgrade "pip>=24"
	$(PIP) install -r requirements.lock
	$(PIP) install --no-deps -e '.[demo]'
	touch $(STAMP)
	$(MAKE) --no-print-directory translations

# The catalogs people read (commands/locales/*/LC_MESSAGES/callops.po) compiled to .mo;
# `make catalog` extracts new strings from the code into them first.
translations:
	$(BIN)/pybabel -q compile -d commands/locales -D callops

catalog: install
	$(BIN)/python scripts/catalog.py

lint: install
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

typecheck: install
	$(BIN)/mypy callcenter storage commands bot emulators demo tests scripts

# The test tiers are pytest markers, given to every test in tests/conftest.py.
pytest-check: install translations
	$(BIN)/pytest -m check

check: lint typecheck pytest-check

check pytest-check: PACKAGES = $(CHECK_PACKAGES)
test pytest: PACKAGES = $(TEST_PACKAGES)
pytest: install translations
	$(BIN)/pytest

test: lint typecheck pytest

demo: PACKAGES = $(DEMO_PACKAGES)
demo: install translations
	$(BIN)/callops demo $(if $(PORT),--port $(PORT))

emulator: install
	$(BIN)/callops emulator

screenshot: PACKAGES = $(SCREENSHOT_PACKAGES)
screenshot: install
	$(BIN)/python scripts/screenshot.py

bench: install
	$(BIN)/python benchmarks/client.py

# Re-pin every transitive dependency after changing pyproject.toml.
lock:
	rm -rf /tmp/callops-lock && $(PYTHON) -m venv /tmp/callops-lock
	/tmp/callops-lock/bin/pip install -qq --disable-pip-version-check --upgrade pip
	/tmp/callops-lock/bin/pip install -qq --disable-pip-version-check '.[demo,dev]'
	/tmp/callops-lock/bin/pip freeze --exclude callops > requirements.lock

clean:
	rm -rf $(VENV) build *.egg-info .mypy_cache .pytest_cache .ruff_cache
