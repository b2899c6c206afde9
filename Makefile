# The two commands of the README: `make demo` (the main job) and `make test`.
# Both set everything up first on a fresh machine (scripts/setup.sh).
VENV ?= .venv
PY := $(VENV)/bin/python
WORKERS ?= 2
STAMP := $(VENV)/.setup-done

.PHONY: setup demo test test-fast lab class release fmt fmt-check gpu-tier benchmark clean

setup: $(STAMP)

$(STAMP): pyproject.toml scripts/setup.sh
	VENV=$(VENV) bash scripts/setup.sh
	touch $@

## the main job: release the notebooks, grade the sample submissions, print scores, write feedback and an export,
## all in demo/, a private copy of the course with its own gradebook (the samples never reach a class)
demo: setup
	$(PY) -m autograder demo --workers $(WORKERS)

## the whole test suite: tests/unit (no kernel), tests/grading (a real kernel), tests/system (the tool end to
## end: nbgrader, JupyterHub, Slurm, a browser), tests/gpu (skipped, saying why, without CUDA)
test: setup
	$(PY) -m pytest -n 2 --dist loadgroup -q tests

## the unit tier alone, to run on every save: no kernel, under a minute
test-fast: setup
	$(PY) -m pytest -n 2 -q tests/unit

## JupyterLab on the course, with nbgrader's extensions on: the Validate button and the Nbgrader menu
## (assignment list, formgrader). nbgrader 0.9 ships them as the lab extension @jupyter/nbgrader and four
## server extensions, enabled here for this server whatever the environment's config says. The server runs
## in the course root (nbgrader reads ./nbgrader_config.py and the course must sit inside the server root);
## the file browser opens on notebooks/.
lab: setup
	$(VENV)/bin/jupyter labextension enable --level=sys_prefix @jupyter/nbgrader
	cd $(CURDIR) && $(VENV)/bin/jupyter lab --ServerApp.root_dir=$(CURDIR) --LabApp.default_url=/lab/tree/notebooks \
	  $(foreach e,formgrader validate_assignment assignment_list course_list,\
	    --ServerApp.jpserver_extensions nbgrader.server_extensions.$(e)=True) \
	  $(if $(filter 0,$(shell id -u)),--allow-root)

## the class server: JupyterHub with an account per roster member, nbgrader's exchange, the Assignment List
## and Validate for learners, the formgrader for the instructors (grading in the sandbox); run as root.
## `$(PY) -m autograder hub stop|status|backup` stops, checks and backs it up (docs/class-server.md).
# the class roster: username,role (not the LMS roster, lms_id,student_id, of collect, handout and export)
ROSTER ?= class-roster.csv
class: setup
	$(PY) -m autograder hub start $(if $(wildcard $(ROSTER)),--roster $(ROSTER)) $(if $(CLASS_DIR),--class-dir $(CLASS_DIR))

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
	$(PY) benchmarks/notebooks.py
	$(PY) benchmarks/grading.py

clean:
	rm -rf autograded feedback gradebook.db grades.csv .autograder .cache demo
