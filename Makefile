# make play: set up a local virtual environment (once) and start a game.
# make test: set up the same environment and run every check (ruff, mypy --strict, pytest).
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
CHECK_PATHS := src tests $(wildcard bench examples)

.PHONY: play test lint typecheck pytest coverage bench clean

$(STAMP): pyproject.toml
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	@touch $(STAMP)

play: $(STAMP)
	$(BIN)/fivedice play $(ARGS)

test: $(STAMP) lint typecheck pytest

lint: $(STAMP)
	$(BIN)/ruff check $(CHECK_PATHS)
	$(BIN)/ruff format --check $(CHECK_PATHS)

typecheck: $(STAMP)
	$(BIN)/mypy --strict $(CHECK_PATHS)

pytest: $(STAMP)
	$(BIN)/pytest

coverage: $(STAMP)
	$(BIN)/pytest --cov=fivedice --cov-report=term

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache
