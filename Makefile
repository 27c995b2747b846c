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

.PHONY: run test install lint bench eval screenshots clean app package smoke smoke-run

$(STAMP): pyproject.toml
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	@# torch first and pinned: its CPU build is on these machines; a bare install of
	@# sentence-transformers would pull a multi-GB CUDA build instead.
	$(BIN)/python -m pip install --quiet --disable-pip-version-check --no-compile torch==2.13.0
	$(BIN)/python -m pip install --quiet --disable-pip-version-check --no-compile -e '.[dev,package]'
	@rm -f $(VENV)/.installed-*
	@touch $@

install: $(STAMP)

run: $(STAMP)
	$(BIN)/mnemo

test: $(STAMP)
	$(BIN)/lint-imports
	$(BIN)/ruff check assistant ui tests benchmarks packaging
	$(BIN)/mypy
	QT_QPA_PLATFORM=offscreen $(BIN)/python -m pytest -q -p no:randomly --durations=15

lint: $(STAMP)
	$(BIN)/lint-imports
	$(BIN)/ruff check assistant ui tests benchmarks packaging
	$(BIN)/mypy

# LoCoMo's data is not in the repository (CC BY-NC): get data/locomo10.json from
# https://github.com/snap-research/locomo and run `make bench LOCOMO=path/to/locomo10.json`.
LOCOMO ?= locomo10.json

eval: $(STAMP)
	$(BIN)/mnemo eval --dataset tests/scenarios/dev.jsonl --json bench-out/eval.json

bench: $(STAMP)
	$(BIN)/mnemo bench latency --json bench-out/latency.json
	$(BIN)/mnemo bench locomo --data $(LOCOMO) --json bench-out/locomo.json

screenshots: $(STAMP)
	bash packaging/screenshots.sh

# The packaged app (packaging/README.md): `make app` the one-folder build in dist/mnemo/,
# `make package` that and dist/mnemo-<version>-linux-<arch>.tar.gz, `make smoke` the checks
# of the BUILT app (tests/packaging/test_frozen_app.py), `make smoke-run` those on the last build.
APP := dist/mnemo/mnemo

app: $(STAMP)
	PYTHONPATH=$(CURDIR) $(BIN)/pyinstaller --noconfirm --log-level WARN \
		--workpath build/pyinstaller --distpath dist packaging/mnemo.spec
	bash packaging/archive.sh $(BIN)/python

package: app
	bash packaging/archive.sh $(BIN)/python --tar

smoke: app
	$(MAKE) smoke-run

smoke-run: $(STAMP)
	@test -x $(APP) || { echo "error: $(APP) is missing: run \`make app\` first." >&2; exit 2; }
	MNEMO_FROZEN_APP=$(CURDIR)/$(APP) QT_QPA_PLATFORM=offscreen \
		$(BIN)/python -m pytest -q -p no:randomly tests/packaging/test_frozen_app.py

clean:
	rm -rf $(VENV) build dist *.egg-info
