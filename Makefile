# Set-up and everyday commands. A fresh machine needs only python3 (with venv and pip).
#   make demo   answerx on the embedded defaults (the bundled local model, no key, no network):
#               extraction and verification of the bundled outputs, a reasoning run on bundled
#               questions, then the demo experiment (12 questions x 2 approaches) with its
#               report and plots
#               (+ corpus agreement when ../shared is there)
#   make test   the whole test suite (with the run viewer's browser test when Debian's
#               chromium is there or can be installed: make browser)
#   make test-fast  everything but the slow tiers (the local model, the browser, the wheel,
#               the site build and the docs' examples, harness imports, hypothesis's hunts,
#               math-verify sweeps, subprocess runs, PostgreSQL): pytest -m "not slow" -n auto
#               (a worker per core), the tiers listed in tests/conftest.py (SLOW_TIERS)
#   make lint   ruff (lint and format check) + mypy
#   make dist   the installable package: a wheel and an sdist in dist/, checked by twine
#   make docs   the documentation site into site/ (offline, --strict); make docs-serve serves it

PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
CORPUS := ../shared/data/corpus

.PHONY: .venv demo test test-fast lint clean test-integrations browser postgres dist docs docs-serve

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

# Stamp files: pip runs again only when pyproject.toml changes, so a repeated `make` is fast.
# The `local` extra compiles llama.cpp the first time (a few minutes on 2 cores); pip's
# wheel cache makes later installs quick. GGML_NATIVE=OFF keeps a cached wheel valid
# on another CPU.
export CMAKE_ARGS ?= -DGGML_NATIVE=OFF
PIP := $(BIN)/python -m pip install --disable-pip-version-check --progress-bar on

$(VENV)/.installed-dev: pyproject.toml | $(BIN)/python
	@echo "installing answerx with the dev, local and torch-free harness extras (the first build of llama.cpp takes a few minutes) ..."
	$(PIP) -e '.[dev,local,lm-eval,inspect,dspy]'
	touch $@

# PyPI has no llama-cpp-python wheel for Linux x86_64 (only an sdist): the first install
# compiles llama.cpp. Its progress is shown from pip's verbose log (all of it kept in
# .venv/install.log), the time taken printed at the end; success is checked by importing.
$(VENV)/.installed-bench: pyproject.toml | $(BIN)/python
	@echo "installing answerx with the bench and local extras; a first install compiles llama.cpp"
	@echo "(about 5 minutes on 2 cores; pip's wheel cache makes later installs quick) ..."
	@start=$$(date +%s); \
	$(PIP) -v -e '.[bench,local]' > $(VENV)/install.log 2>&1 & pid=$$!; \
	while kill -0 $$pid 2>/dev/null; do \
		sleep 10; \
		step=$$(grep -oE '\[ *[0-9]+%\]' $(VENV)/install.log | tail -n 1); \
		if [ -n "$$step" ]; then what="compiling llama.cpp $$step"; \
		else what=$$(tail -n 1 $(VENV)/install.log | cut -c 1-80); fi; \
		echo "  $$(( $$(date +%s) - start )) s ... $$what"; \
	done; \
	wait $$pid; status=$$?; \
	if [ $$status -ne 0 ] || ! $(BIN)/python -c "import answerx, llama_cpp"; then \
		tail -n 30 $(VENV)/install.log; echo "install failed (full log: $(VENV)/install.log)"; exit 1; \
	fi; \
	echo "installed in $$(( $$(date +%s) - start )) s (llama.cpp build included when it was compiled)"
	touch $@

.venv: $(VENV)/.installed-dev

# answerx demo: 1. extraction and 2. verification of the bundled outputs, 3. a short
# reasoning run on the bundled model; then 4. the demo experiment, its report and plots.
demo: $(VENV)/.installed-bench
	@start=$$(date +%s); \
	$(BIN)/answerx demo && \
	{ $(BIN)/answerx run config/experiments/demo.yaml || [ $$? -eq 1 ]; } && \
	echo && echo "A search agent (IRCoT) on the bundled fictional corpus:" && \
	$(BIN)/answerx index build --bundled --out $(VENV)/bundled.db && \
	{ $(BIN)/answerx ask "Who founded the company that operates the Tarn Valley Railway?" \
		--approach ircot --index $(VENV)/bundled.db --task text --strategy two_stage \
		--set max_steps=3 --set max_tokens=64 || [ $$? -eq 1 ]; } && \
	echo "demo done in $$(( $$(date +%s) - start )) s; the report and plots are in runs/reports/<run id>/ (paths above)"
	@if [ -d $(CORPUS) ]; then \
		echo; echo "Agreement with the models' own answers on $(CORPUS):"; \
		$(BIN)/python bench/extraction.py --agreement; \
	else \
		echo "($(CORPUS) not found: corpus agreement skipped)"; \
	fi

# The whole suite on one pytest-xdist worker per core, each test file kept on one worker
# (its module fixtures -- a local model server, a built wheel, a PostgreSQL database --
# start once) and the files of SERIAL_GROUPS in tests/worker_groups.py on one worker together:
# the slow tiers mostly wait on one-threaded subprocesses (llama.cpp gets cores - 1
# threads), so one process left a 2-core machine's other core idle (tests 25 -> 16 min).
test: $(VENV)/.installed-dev browser postgres
	$(BIN)/python -m pytest -q -n auto --dist loadgroup

# The fast tier while you work: what `make test` runs, less every test marked slow (the
# tiers of SLOW_TIERS in tests/conftest.py, local_model tests, and the tests marked one by one),
# on one pytest-xdist worker per core: a lone pytest keeps one core busy and waits on the
# others' servers and subprocesses.
test-fast: $(VENV)/.installed-dev
	$(BIN)/python -m pytest -q -m "not slow" -n auto

# The run viewer's browser test (tests/viewer/test_browser.py) drives Debian's chromium
# through Playwright, never a browser Playwright downloads. Installed here when we are root
# with apt-get; otherwise, or when the install fails, the test is skipped and says why.
CHROMIUM := /usr/bin/chromium
browser:
	@if [ -x $(CHROMIUM) ]; then \
		echo "browser test: $$($(CHROMIUM) --version 2>/dev/null | head -n 1)"; \
	elif [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
		echo "installing Debian's chromium for the browser test (apt-get) ..."; \
		{ apt-get install -y chromium >/dev/null 2>&1 || \
		  { apt-get update >/dev/null 2>&1 && apt-get install -y chromium >/dev/null 2>&1; }; } && \
		echo "browser test: $$($(CHROMIUM) --version 2>/dev/null | head -n 1)" || \
		echo "could not install chromium: the browser test will be skipped"; \
	else \
		echo "no $(CHROMIUM), and not root with apt-get to install it: the browser test will be skipped"; \
	fi

# The store's tests run on a real PostgreSQL server as well as SQLite (tests/postgres_server.py
# starts one in a temporary folder with initdb and pg_ctl). Debian's server is installed here
# when we are root with apt-get; otherwise, or when the install fails, those tests are skipped
# and say why.
postgres:
	@if ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1; then \
		echo "PostgreSQL tests: $$(ls -d /usr/lib/postgresql/*/bin | head -n 1)"; \
	elif [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
		echo "installing Debian's postgresql for the store's tests (apt-get) ..."; \
		{ apt-get install -y postgresql >/dev/null 2>&1 || \
		  { apt-get update >/dev/null 2>&1 && apt-get install -y postgresql >/dev/null 2>&1; }; } && \
		echo "PostgreSQL tests: installed" || \
		echo "could not install postgresql: the PostgreSQL store tests will be skipped"; \
	else \
		echo "no PostgreSQL server, and not root with apt-get to install it: its tests will be skipped"; \
	fi

# The plug-ins of the heavy or conflicting frameworks, end to end and offline (issue 25): each
# test drives the real framework against answerx's fake provider server and scripted replies,
# and the run ends with one line per framework, answerx's score beside the built-in's.
# `make test` never installs these. Two environments of their own:
#  - .venv-integrations: torch (CPU), TRL + transformers (a 2-step GRPOTrainer on a tiny model
#    built from a config), verl's reward managers (on a DataProto, and loaded from its composed
#    ppo_trainer config: hydra-core), OpenRLHF's rollout
#    executor (remote and file reward modes), verifiers 0.3 (its
#    Parser/Rubric API), Ray, the harnesses `make test` already has (lm-eval,
#    inspect-ai, DSPy), and the experiment trackers (mlflow-skinny with a sqlite store, W&B
#    offline: tests/integrations/test_trackers.py; not in `make test`, see DESIGN.md);
#  - .venv-lighteval: lighteval cannot share an environment with answerx's math-verify (it
#    pins an older latex2sympy2_extended).
# torch goes in first, a CPU build, so pip never fetches CUDA wheels (the machine's wheel cache
# has torch 2.13.0+cpu; elsewhere: make test-integrations
# TORCH="torch --index-url https://download.pytorch.org/whl/cpu").
TORCH ?= torch==2.13.0
INTEGRATIONS_VENV := .venv-integrations
LIGHTEVAL_VENV := .venv-lighteval
# Every download a framework might try (models, datasets, telemetry) fails at once.
OFFLINE := HF_HUB_OFFLINE=1 HF_DATASETS_OFFLINE=1 TRANSFORMERS_OFFLINE=1 HF_HUB_DISABLE_TELEMETRY=1 \
	DO_NOT_TRACK=1

$(INTEGRATIONS_VENV)/.installed: pyproject.toml
	$(PYTHON) -m venv $(INTEGRATIONS_VENV)
	$(INTEGRATIONS_VENV)/bin/python -m pip install --disable-pip-version-check $(TORCH)
	$(INTEGRATIONS_VENV)/bin/python -m pip install --disable-pip-version-check \
		-e '.[dev,lm-eval,inspect,dspy,verifiers,ray,bm25,mlflow,wandb]' 'trl>=1.16,<2' \
		'transformers>=4.56' numpy
	@# verl's reward managers and scorers, without its training stack (vLLM, Megatron, its
	@# transformers pin): what they import besides torch, numpy and Ray
	$(INTEGRATIONS_VENV)/bin/python -m pip install --disable-pip-version-check --no-deps 'verl==0.9.1'
	@# OpenRLHF's rollout executor (remote and file reward modes) and its math grading,
	@# likewise without DeepSpeed and vLLM
	$(INTEGRATIONS_VENV)/bin/python -m pip install --disable-pip-version-check --no-deps 'openrlhf==0.11.2'
	$(INTEGRATIONS_VENV)/bin/python -m pip install --disable-pip-version-check \
		tensordict omegaconf codetiming pylatexenc hydra-core
	touch $@

$(LIGHTEVAL_VENV)/.installed: pyproject.toml
	$(PYTHON) -m venv $(LIGHTEVAL_VENV)
	$(LIGHTEVAL_VENV)/bin/python -m pip install --disable-pip-version-check $(TORCH)
	$(LIGHTEVAL_VENV)/bin/python -m pip install --disable-pip-version-check -e '.[dev]'
	@# pip warns that lighteval's latex2sympy2_extended does not suit math-verify 0.9, and then
	@# that math-verify 0.5.2 (the one that works with it) is not answerx's: expected, see README
	$(LIGHTEVAL_VENV)/bin/python -m pip install --disable-pip-version-check 'lighteval==0.13.0'
	$(LIGHTEVAL_VENV)/bin/python -m pip install --disable-pip-version-check math-verify==0.5.2
	@# lighteval 0.13's three offline fixes, exactly as the README tells users (section
	@# "lighteval"): 1. a placeholder for the tinyBenchmarks file it downloads when its task
	@# registry loads; 2. HfApi.list_models(model_name=) -> (search=), the argument newer
	@# huggingface_hub releases take; 3. an xxhash that still hashes str.
	LE=$$($(LIGHTEVAL_VENV)/bin/python -c "import lighteval, pathlib; print(pathlib.Path(lighteval.__file__).parent)") && \
		touch $$LE/tasks/tasks/tinyBenchmarks.pkl && \
		sed -i 's/list_models(model_name=/list_models(search=/' $$LE/metrics/metrics_sample.py
	$(LIGHTEVAL_VENV)/bin/python -m pip install --disable-pip-version-check 'xxhash<4'
	touch $@

# Both environments' results land in one file, printed as a table at the end.
SCORES := $(INTEGRATIONS_VENV)/scores.jsonl

test-integrations: $(INTEGRATIONS_VENV)/.installed $(LIGHTEVAL_VENV)/.installed
	rm -f $(SCORES)
	$(OFFLINE) ANSWERX_INTEGRATION_SCORES=$(abspath $(SCORES)) \
		$(INTEGRATIONS_VENV)/bin/python -m pytest -q -p no:cacheprovider tests/integrations
	$(OFFLINE) ANSWERX_INTEGRATION_SCORES=$(abspath $(SCORES)) \
		$(LIGHTEVAL_VENV)/bin/python -m pytest -q -p no:cacheprovider tests/integrations/test_lighteval.py
	@$(INTEGRATIONS_VENV)/bin/python tests/integrations/scores.py $(SCORES)

# The installable package (until a package index has it: pip install dist/answerx-*.whl, or
# 'answerx[lm-eval] @ file://...'): python -m build with the dev venv's hatchling (no
# isolated build environment to download), then twine's check of what an index would get.
dist: $(VENV)/.installed-dev
	rm -rf dist
	$(BIN)/python -m build --no-isolation --outdir dist .
	$(BIN)/python -m twine check --strict dist/*

lint: $(VENV)/.installed-dev
	$(BIN)/ruff check src tests bench
	$(BIN)/ruff format --check src tests bench
	$(BIN)/mypy

clean:
	rm -rf $(VENV) $(INTEGRATIONS_VENV) $(LIGHTEVAL_VENV) .pytest_cache .mypy_cache .ruff_cache site

# The documentation site: docs/ + mkdocs.yml, built offline with --strict (a broken link or
# reference fails). tests/docs/test_site.py runs the same build inside make test.
docs: $(VENV)/.installed-dev
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs build --strict --site-dir site
	@echo "the site is in site/ (open site/index.html, or: make docs-serve)"

docs-serve: $(VENV)/.installed-dev
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs serve --dev-addr 127.0.0.1:8000
