# `make demo`, `make test` and `make bench` each create .venv and install
# requirements.txt first, so one command works on a fresh machine.

PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: demo test bench clean

$(STAMP): requirements.txt
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	@echo "Installing Python packages into $(VENV) (first run only)..."
	@$(BIN)/pip install --quiet --disable-pip-version-check -r requirements.txt
	@touch $(STAMP)

demo: $(STAMP)
	@$(BIN)/python -m tests.demo

test: $(STAMP)
	@$(BIN)/python -m tests.system
	$(BIN)/python -m pytest

bench: $(STAMP)
	$(BIN)/python -m bench

clean:
	rm -rf data/demo
