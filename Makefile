# Two entry points on a fresh machine: `make report` and `make test`.
# Both create (once) and reuse a virtual environment in $(VENV).
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed
REPORT_DIR ?= report
# Two workers: the CI machine has two cores.
PYTEST_WORKERS ?= 2

.PHONY: venv report test clean

venv: $(STAMP)

$(STAMP): pyproject.toml constraints-test.txt
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --disable-pip-version-check -c constraints-test.txt -e '.[test,report]'
	touch $(STAMP)

report: $(STAMP)
	$(VENV)/bin/flashio report --out $(REPORT_DIR)

test: $(STAMP)
	TRITON_INTERPRET=1 $(PY) -m pytest -n $(PYTEST_WORKERS) -q tests

clean:
	rm -rf $(VENV) $(REPORT_DIR) .pytest_cache
