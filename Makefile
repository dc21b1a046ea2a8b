# `make demo`, `make test` and `make bench` each create .venv and install
# requirements.txt first, so one command works on a fresh machine; `make check`
# also installs requirements-dev.txt.

PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
DEV_STAMP := $(VENV)/.installed-dev

.PHONY: demo test check bench clean

$(STAMP): requirements.txt
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	@echo "Installing Python packages into $(VENV) (first run only)..."
	@$(BIN)/pip install --quiet --disable-pip-version-check -r requirements.txt
	@touch $(STAMP)

$(DEV_STAMP): $(STAMP) requirements-dev.txt
	@echo "Installing the developer tools into $(VENV) (first run only)..."
	@$(BIN)/pip install --quiet --disable-pip-version-check -r requirements-dev.txt
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
