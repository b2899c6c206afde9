# The two commands of the README: `make demo` (the main job) and `make test`.
# Both set everything up first on a fresh machine (scripts/setup.sh).
VENV ?= .venv
PY := $(VENV)/bin/python
WORKERS ?= 2
STAMP := $(VENV)/.setup-done

.PHONY: setup demo test test-fast lab release fmt fmt-check gpu-tier benchmark clean

setup: $(STAMP)

$(STAMP): pyproject.toml scripts/setup.sh
	VENV=$(VENV) bash scripts/setup.sh
	touch $@

## the main job: release the notebooks, grade the sample submissions, print scores, write feedback
demo: setup
	$(PY) -m autograder release
	$(PY) -m autograder grade --submissions examples/submissions --workers $(WORKERS) --force
	$(PY) -m autograder feedback
	$(PY) -m autograder export --to grades.csv

## the whole test suite
test: setup
	$(PY) -m pytest -n 2 --dist loadgroup -q tests

## JupyterLab on the course, for a learner
lab: setup
	$(VENV)/bin/jupyter lab --notebook-dir=. notebooks

release: setup
	$(PY) -m autograder release

fmt: setup
	$(PY) -m autograder fmt

fmt-check: setup
	$(PY) -m autograder fmt --check

## the GPU tier (tests marked gpu) on a GPU runner; results in benchmarks/results/gpu_tier.txt
gpu-tier: setup
	PY=$(PY) bash scripts/gpu_tier.sh

## grading throughput against stock nbgrader; results in benchmarks/results/ and docs/benchmarks.md
benchmark: setup
	$(PY) benchmarks/grading.py

clean:
	rm -rf autograded feedback gradebook.db grades.csv .autograder .cache
