# The two commands a user needs: `make run` and `make test`.  `make bench` measures.
BUILD      ?= build
ASAN_BUILD ?= build-asan
JOBS       ?= $(shell nproc)
CMAKE      ?= cmake
# Ninja, not CMake's Makefile generator, which starts cmake processes of its
# own for every target's dependency scan and progress: a release build took
# 323 CPU s with Ninja against 430 (docs/performance.md, "The test suite").
GENERATOR  ?= Ninja

.PHONY: all deps build run test test-release test-sanitize test-kernels fuzz bench docs install clean

all: build

deps:
	@bash scripts/install-deps.sh

$(BUILD)/CMakeCache.txt:
	$(CMAKE) -G "$(GENERATOR)" -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release

build: deps $(BUILD)/CMakeCache.txt
	$(CMAKE) --build $(BUILD) -j $(JOBS)

# The default scenario: embedded data only.
run: build
	./$(BUILD)/dpgossip run scenarios/default.ini

test: test-release test-sanitize

test-release: build
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS)

$(ASAN_BUILD)/CMakeCache.txt:
	$(CMAKE) -G "$(GENERATOR)" -S . -B $(ASAN_BUILD) -DCMAKE_BUILD_TYPE=Debug -DDPG_SANITIZE=ON

# Same tests under AddressSanitizer + UndefinedBehaviorSanitizer (the CI step).
test-sanitize: deps $(ASAN_BUILD)/CMakeCache.txt
	$(CMAKE) --build $(ASAN_BUILD) -j $(JOBS)
	cd $(ASAN_BUILD) && ASAN_OPTIONS=detect_leaks=1:abort_on_error=1:handle_sigill=1 \
	  UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
	  ctest --output-on-failure -j $(JOBS) -LE nosanitize

# The numerical tests (ctest -L numerical) under every OpenBLAS kernel this
# CPU can execute (OPENBLAS_CORETYPE), or only under OPENBLAS_CORETYPE when it
# is set: what a numerical change runs before it lands. Not part of `test`.
test-kernels: build
	bash scripts/test-kernels.sh $(BUILD)

# A fuzzing campaign: each libFuzzer target (tests/fuzz/) for FUZZ_TIME
# seconds rather than `make test`'s few; new inputs land in the build tree.
FUZZ_TIME ?= 600
fuzz: build
	cd $(BUILD) && DPG_FUZZ_TIME=$(FUZZ_TIME) ctest --output-on-failure -j $(JOBS) -L fuzz

bench: build
	bash bench/run.sh $(BUILD)

# docs/scenarios.md from the schema (a test fails when it is out of date).
docs: build
	sh scripts/scenarios-doc.sh ./$(BUILD)/dpgossip > docs/scenarios.md

PREFIX ?= /usr/local
install: build
	$(CMAKE) --install $(BUILD) --prefix $(PREFIX)

clean:
	rm -rf $(BUILD) $(ASAN_BUILD)
