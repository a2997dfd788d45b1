# rewardbox: the two commands are `make serve` (the service) and `make test`.
# `make images` builds the sandboxes; `make eval` scores HumanEval's canonical
# solutions; `make bench` prints the benchmark figures.
VENV ?= .venv
BIN := $(VENV)/bin
PYTHON ?= python3

.PHONY: install images serve eval test test-fast lint bench clean

install: $(BIN)/rewardbox
$(BIN)/rewardbox: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install -q -e '.[dev,client,train,hf]'
	touch $@

images:
	sandbox_images/build.sh

serve: install
	$(BIN)/rewardbox serve

eval: install
	$(BIN)/rewardbox eval humaneval --solutions canonical

test: install
	$(BIN)/pytest -q -rs

test-fast: install
	$(BIN)/pytest -q -rs -m "not slow"

lint: install
	$(BIN)/ruff check service trainer_client tests bench
	$(BIN)/mypy service trainer_client

bench: install
	$(BIN)/python bench/bench_core.py
	$(BIN)/python bench/bench_gateway.py
	$(BIN)/python bench/bench_languages.py

clean:
	$(BIN)/rewardbox cleanup || true
