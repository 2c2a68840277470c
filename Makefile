# The two commands: `make run` and `make test`. Both set up .venv themselves.
PY := $(shell command -v python3.11 || command -v python3)
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-stamp
PYTEST_WORKERS ?= 2
PEERS := bench/peers
# The pages' JavaScript tools (ESLint), installed by npm ci from the committed package-lock.json,
# again only when the lockfile changes (npm ci writes node_modules/.package-lock.json).
NODE_STAMP := node_modules/.package-lock.json

.PHONY: run test lint bench bench-peers soak clean

$(STAMP): pyproject.toml
	$(PY) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q -e '.[dev]'
	touch $(STAMP)

run: $(STAMP)
	$(BIN)/boardlog serve

$(NODE_STAMP): package-lock.json
	npm ci --no-audit --no-fund

# The pages' modules are checked like the Python: ESLint, then Node's own test runner on their
# pure parts (token layout, click-to-move, sentences), before ruff, mypy and pytest.
lint: $(STAMP) $(NODE_STAMP)
	node_modules/.bin/eslint service/pages tests/js eslint.config.js
	node --test tests/js/
	$(BIN)/ruff check .
	$(BIN)/mypy

test: $(STAMP) lint
	$(BIN)/pytest -n $(PYTEST_WORKERS) -m "not slow" --timeout 600 -q

# Benchmarks print their figures; the slow soak runs (full random-play counts) run here too.
bench: $(STAMP) $(PEERS)/node_modules/.package-lock.json
	@for f in bench/bench_*.py; do m=$$(basename $$f .py); echo "== $$m"; $(BIN)/python -m bench.$$m || exit 1; done
	$(BIN)/pytest -n $(PYTEST_WORKERS) -m slow --timeout 3600 -q

# boardlog's HTTP path beside boardgame.io 0.50 (InMemory and FlatFile), alternately in one run
# (bench/bench_peers.py); npm ci installs the peer from bench/peers/package-lock.json.
$(PEERS)/node_modules/.package-lock.json: $(PEERS)/package-lock.json
	npm ci --prefix $(PEERS) --no-audit --no-fund

bench-peers: $(STAMP) $(PEERS)/node_modules/.package-lock.json
	$(BIN)/python -m bench.bench_peers

# The chaos soak: load on games of all three types through `boardlog serve`, a kill -9 of a random
# part every 20-40 s, then every check (bench/soak_chaos.py). SOAK_MINUTES=N to change its length.
SOAK_MINUTES ?= 10
soak: $(STAMP)
	$(BIN)/python -m bench.soak_chaos --minutes $(SOAK_MINUTES)

clean:
	rm -rf $(VENV) var .pytest_cache .mypy_cache .ruff_cache $(PEERS)/node_modules node_modules
