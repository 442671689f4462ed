# make play: set up a local virtual environment (once) with the terminal game and start a game.
# make test: set up the environment with every extra and the test tools, and run every check
# (ruff, mypy --strict, pytest).
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
PLAY_STAMP := $(VENV)/.installed-play
STAMP := $(VENV)/.installed-dev
CHECK_PATHS := src tests $(wildcard bench examples)
# pytest-xdist workers for make test: one more than the cores, since about a fifth of the suite's time is spent
# waiting (on server processes, browsers, timers), which the extra worker fills (two quiet cores: the cores busy
# 93% of the run instead of 78%, pytest 272 s instead of 300 s). Tests that share a costly fixture are grouped
# onto one worker (tests/conftest.py). PYTEST_WORKERS=0 runs everything in this one process.
PYTEST_WORKERS ?= $(shell $(PYTHON) -c 'import os; print(len(os.sched_getaffinity(0)) + 1)' 2>/dev/null || echo auto)

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

# mypy --strict checks on one core (about a minute from a clean cache, as in CI): it runs beside pytest instead
# of before it, so the two cores are busy together; its report follows pytest's and either failing fails.
test: $(STAMP) lint
	@log=$$(mktemp); \
	echo "$(BIN)/mypy --strict $(CHECK_PATHS) (beside pytest; its report follows)"; \
	( $(BIN)/mypy --strict $(CHECK_PATHS) >$$log 2>&1; echo $$? >$$log.rc ) & \
	$(BIN)/pytest -n $(PYTEST_WORKERS) --dist loadgroup; tests=$$?; \
	wait; cat $$log; typed=$$(cat $$log.rc); rm -f $$log $$log.rc; \
	test $$tests -eq 0 && test $$typed -eq 0

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
