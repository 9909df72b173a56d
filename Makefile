# Everything a newcomer needs: `make demo` and `make test`. Each sets up .venv
# when it is missing (or when the build changed: pyproject.toml, setup.py, the C
# speedups) and is quick afterwards.

PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
INSTALLED := $(VENV)/.installed

.PHONY: demo test quick lint bench clean

$(INSTALLED): pyproject.toml setup.py $(wildcard src/toolaudit/history/_*.[ch] src/toolaudit/_*speedups.c src/toolaudit/formats/_*speedups.c src/toolaudit/deep/_*speedups.c src/toolaudit/truth/_*.[ch])
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -e '.[test,dev]'
	@touch $@

# The sample holds invalid calls on purpose, so the audit exits 1: that is the
# demo working. Only exit 2 (the audit could not run) fails `make demo`.
demo: $(INSTALLED)
	@mkdir -p out; $(BIN)/toolaudit audit sample_logs/calls.jsonl --schemas sample_logs/schemas.json \
		--report out/report.jsonl --summary out/summary.json --html out/report.html; \
	status=$$?; \
	echo; echo "exit code $$status (1: invalid calls found). Wrote out/report.jsonl, out/summary.json and out/report.html"; \
	test $$status -le 1

# Both spread the tests over every core (pytest-xdist's -n auto; worksteal, so that a worker
# left with the long property runs hands some over): the whole suite in a few minutes.
# `pytest` alone runs them in one process.
test: $(INSTALLED)
	$(BIN)/python -m pytest -q -n auto --dist worksteal

# The suite without the tests marked slow (clusters, S3 servers, browsers, long
# property runs), for while you work: about a minute and a half on two cores.
quick: $(INSTALLED)
	$(BIN)/python -m pytest -q -n auto --dist worksteal -m "not slow"

# ruff (style and mistakes), ruff format (layout) and mypy (types): all must be clean.
lint: $(INSTALLED)
	$(BIN)/ruff check src tests benchmarks
	$(BIN)/ruff format --check src tests benchmarks
	$(BIN)/mypy

# Figures, not pass/fail: see benchmarks/README.md. BENCH_ARGS="--calls 200000" (and
# PROVIDERS_ARGS="--calls 200000" for the provider logs) for a quick run.
bench: $(INSTALLED)
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -e '.[bench]'
	$(BIN)/python benchmarks/run.py $(BENCH_ARGS)
	$(BIN)/python benchmarks/providers_bench.py $(PROVIDERS_ARGS)

clean:
	rm -rf $(VENV) .pytest_cache .hypothesis src/*.egg-info build
	find src -name '*.so' -delete
