# make play: set up a local virtual environment (once) with the terminal game and start a game.
# make test: set up the environment with every extra and the test tools, and run every check
# (ruff, mypy --strict, pytest).
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
PLAY_STAMP := $(VENV)/.installed-play
STAMP := $(VENV)/.installed-dev
CHECK_PATHS := src tests $(wildcard bench examples)
# pytest-xdist workers for make test (auto: one per core); tests that share a costly fixture are grouped
# onto one worker (tests/conftest.py). PYTEST_WORKERS=0 runs everything in this one process.
PYTEST_WORKERS ?= auto

.PHONY: play test lint typecheck pytest coverage bench clean

$(VENV)/bin/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

# The game needs only the core and the `tui` extra (the terminal game and its high scores).
$(PLAY_STAMP): pyproject.toml | $(VENV)/bin/python
	$(BIN)/python -m pip install --quiet -e '.[tui]'
	@touch $(PLAY_STAMP)

# The checks need every extra (`all`) and the test tools: the `dev` extra.
$(STAMP): pyproject.toml | $(VENV)/bin/python
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	@touch $(STAMP) $(PLAY_STAMP)

play: $(PLAY_STAMP)
	$(BIN)/fivedice play $(ARGS)

test: $(STAMP) lint typecheck pytest

lint: $(STAMP)
	$(BIN)/ruff check $(CHECK_PATHS)
	$(BIN)/ruff format --check $(CHECK_PATHS)

typecheck: $(STAMP)
	$(BIN)/mypy --strict $(CHECK_PATHS)

pytest: $(STAMP)
	$(BIN)/pytest -n $(PYTEST_WORKERS) --dist loadgroup

coverage: $(STAMP)
	$(BIN)/pytest --cov=fivedice --cov-report=term

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache
