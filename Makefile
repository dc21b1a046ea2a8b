# `make demo`, `make test` and `make bench` each create .venv and install
# requirements.txt first, so one command works on a fresh machine; `make check`
# also installs requirements-dev.txt.

PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
DEV_STAMP := $(VENV)/.installed-dev

.PHONY: demo test check bench clean

# The first run installs for about a minute: each stage says what it does,
# and pip says which package it is at.
$(STAMP): requirements.txt
	@test -x $(BIN)/python || { echo "Creating the virtualenv $(VENV) with $(PYTHON)..."; $(PYTHON) -m venv $(VENV); }
	@echo "Installing $$(grep -c '^[A-Za-z]' requirements.txt) pinned Python packages into $(VENV) (the first time: about a minute)..."
	@$(BIN)/pip install --disable-pip-version-check -r requirements.txt
	@touch $(STAMP)
	@echo "Installed: $(VENV) is ready."

$(DEV_STAMP): $(STAMP) requirements-dev.txt
	@echo "Installing the developer tools into $(VENV) (the first time only)..."
	@$(BIN)/pip install --disable-pip-version-check -r requirements-dev.txt
	@touch $(DEV_STAMP)

demo: $(STAMP)
	@$(BIN)/python -m tests.demo

# Two processes, a test file to each at a time (pytest-xdist); the tests marked
# `alone` (pytest.ini) run with nothing beside them.
test: $(STAMP)
	@$(BIN)/python -m tests.system
	$(BIN)/python -m pytest -n 2 --dist loadfile --durations=30

# The fast loop: lint, types, and the tests that start no process and are not
# slow on their own (pytest.ini's markers). `make test` runs every test.
check: $(DEV_STAMP)
	$(BIN)/ruff format --check .
	$(BIN)/ruff check .
	$(BIN)/mypy
	$(BIN)/python -m pytest -m "not system and not slow"

bench: $(STAMP)
	$(BIN)/python -m bench

clean:
	rm -rf data/demo
