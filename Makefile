# Two entry points, both self-installing on a fresh machine (Python 3.11+ and the package
# registries are all they need): `make run` starts Mnemo, `make test` runs every check.
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed-$(shell cat pyproject.toml | cksum | cut -d' ' -f1)
export HF_HUB_OFFLINE ?= 1
export ANONYMIZED_TELEMETRY ?= False
export TOKENIZERS_PARALLELISM ?= false
# pip compiles every module it installs: 105 s of the 213 s of set-up here, torch alone 35 s.
# With --no-compile (below) the first import compiles only what is imported, and keeps the
# .pyc files if Python may write them: some machines, these among them, forbid that in the
# environment, and every import would compile again.
unexport PYTHONDONTWRITEBYTECODE

.PHONY: run test install lint bench eval screenshots clean

$(STAMP): pyproject.toml
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	@# torch first and pinned: its CPU build is on these machines; a bare install of
	@# sentence-transformers would pull a multi-GB CUDA build instead.
	$(BIN)/python -m pip install --quiet --disable-pip-version-check --no-compile torch==2.13.0
	$(BIN)/python -m pip install --quiet --disable-pip-version-check --no-compile -e '.[dev]'
	@rm -f $(VENV)/.installed-*
	@touch $@

install: $(STAMP)

run: $(STAMP)
	$(BIN)/mnemo

test: $(STAMP)
	$(BIN)/lint-imports
	$(BIN)/ruff check assistant ui tests benchmarks
	$(BIN)/mypy
	QT_QPA_PLATFORM=offscreen $(BIN)/python -m pytest -q -p no:randomly

lint: $(STAMP)
	$(BIN)/lint-imports
	$(BIN)/ruff check assistant ui tests benchmarks
	$(BIN)/mypy

eval: $(STAMP)
	$(BIN)/mnemo eval --dataset tests/scenarios/dev.jsonl --json bench-out/eval.json

bench: $(STAMP)
	$(BIN)/mnemo bench latency --json bench-out/latency.json
	$(BIN)/mnemo bench locomo --data ../shared/data/locomo/locomo10.json --json bench-out/locomo.json

screenshots: $(STAMP)
	bash packaging/screenshots.sh

clean:
	rm -rf $(VENV) build *.egg-info
