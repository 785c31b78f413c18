# pcglab: `make demo` and `make test` each install what is missing, configure, build, then run.
PRESET ?= release
BUILD_DIR := build/$(PRESET)
PCGLAB := $(BUILD_DIR)/pcglab
# One job per core; each libtorch translation unit takes ~1.3 GB, so set JOBS lower where memory is short.
JOBS ?= $(shell nproc)
# CI turns warnings into errors.
ifeq ($(CI),true)
  WERROR := -DPCGLAB_WERROR=ON
endif

.PHONY: all deps configure build test test-unit test-asan format-check demo bench format clean

all: build

deps:
	@bash scripts/install-deps.sh

configure: deps
	@cmake --preset $(PRESET) $(WERROR) >/dev/null

build: configure
	@cmake --build --preset $(PRESET) -j $(JOBS)

# Every test: unit, integration and slow.
test: build
	@ctest --preset $(PRESET) -j $(JOBS)

# Only the fast unit tests.
test-unit: build
	@ctest --preset $(PRESET) -j $(JOBS) -L unit

# The unit and integration tests again, built with AddressSanitizer and UBSan (preset `debug`);
# the benchmark programs and the slow tests, which this run does not use, are not built. Left out
# here (they run in `make test`): the two sweeps of every command's --help and option ranges,
# which start pcglab about 250 times (0.5-0.7 s each under ASan, 3 min of CPU) and exercise only
# CLI11's parsing.
ASAN_EXCLUDE := ^Cli\.(EveryOptionTakesThePrintedBoundsOfItsRange|EveryLlmVerbTakesTheSameLlmOptions)$$
test-asan: deps
	@cmake --preset debug $(WERROR) -DPCGLAB_BUILD_BENCH=OFF -DPCGLAB_SLOW_TESTS=OFF >/dev/null
	@cmake --build --preset debug -j $(JOBS)
	@ctest --preset debug -j $(JOBS) -L 'unit|integration' -E '$(ASAN_EXCLUDE)'

# Fails when a tracked C++ file is not formatted as .clang-format says (CI runs it).
format-check: deps
	@git ls-files '*.h' '*.cc' | xargs clang-format --dry-run --Werror

# The demo builds only what it runs: the executable and the libtorch modules it opens (nn's and
# birds' letter classifier), not the test programs.
DEMO_TARGETS := pcglab pcglab_torch pcglab_birds_torch

demo: configure
	@cmake --build --preset $(PRESET) -j $(JOBS) --target $(DEMO_TARGETS)
	@bash scripts/demo.sh $(PCGLAB)

bench: build
	@bash scripts/bench.sh $(BUILD_DIR)

format:
	@git ls-files '*.h' '*.cc' | xargs clang-format -i

clean:
	@rm -rf build
