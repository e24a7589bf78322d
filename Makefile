# One command each: `make run` (set up + start the app), `make test` (set up + run the checks and tests).
# Each installs only what it needs, once: the app's requirements.txt (a stamp of its own, so `make run`
# never waits for the test set), and for `make test` requirements-dev.txt on top (the first time it
# compiles llama-cpp-python from source).
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
export HF_HUB_OFFLINE ?= 1

.PHONY: setup run test bench

$(PY):
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip

$(VENV)/.installed-run: requirements.txt | $(PY)
	$(PY) -m pip install -q -r requirements.txt
	touch $@

$(VENV)/.installed-test: requirements-dev.txt $(VENV)/.installed-run
	$(PY) -m pip install -q -r requirements-dev.txt
	touch $@

setup: $(VENV)/.installed-test

run: $(VENV)/.installed-run
	$(PY) app.py

test: $(VENV)/.installed-test
	$(VENV)/bin/ruff check .
	$(VENV)/bin/mypy
	$(PY) -m pytest -q -n auto --dist loadfile

bench: $(VENV)/.installed-run
	$(PY) -m benchmarks.extraction
