# One command each: `make run` (set up + start the app), `make test` (set up + run the tests).
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
export HF_HUB_OFFLINE ?= 1

.PHONY: setup run test bench

$(VENV)/.installed: requirements.txt requirements-dev.txt
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -r requirements-dev.txt
	touch $@

setup: $(VENV)/.installed

run: setup
	$(PY) app.py

test: setup
	$(VENV)/bin/ruff check .
	$(VENV)/bin/mypy
	$(PY) -m pytest -q -n auto --dist loadfile

bench: setup
	$(PY) -m benchmarks.extraction
