# The README's commands live here: `make demo`, `make test` and `make image`.
# Each installs its own packages first, so each works alone on a fresh Debian 12 machine.
BUILD_DIR ?= build
ASAN_DIR  ?= build-asan
TSAN_DIR  ?= build-tsan
FUZZ_DIR  ?= build-fuzz
FUZZ_SECONDS ?= 30
JOBS      ?= $(shell nproc)
CMAKE_GEN := $(shell command -v ninja >/dev/null 2>&1 && echo "-G Ninja")
# ccache hits across checkouts (CI builds a fresh clone): paths relative to the checkout, and the
# directory left out of the hash of debug builds.
export CCACHE_BASEDIR := $(CURDIR)
export CCACHE_NOHASHDIR := 1

.PHONY: deps configure build test unit check asan tsan fuzz demo image bench format clean

deps:
	bash scripts/install-deps.sh

configure: deps
	cmake -S . -B $(BUILD_DIR) $(CMAKE_GEN) -DCMAKE_BUILD_TYPE=RelWithDebInfo

build: configure
	cmake --build $(BUILD_DIR) -j $(JOBS)

# The whole suite: the tree's checks, the release build with every label, then the unit tests
# again under ASan+UBSan, those that start threads under TSan, and every fuzz target for
# FUZZ_SECONDS each.
test: build
	FUZZ_SECONDS=$(FUZZ_SECONDS) bash scripts/run-tests.sh $(BUILD_DIR) $(ASAN_DIR) $(TSAN_DIR) $(FUZZ_DIR)

unit: build
	cd $(BUILD_DIR) && ctest -L unit --output-on-failure -j $(JOBS)

# clang-format and the include order (docs/conventions.md), without building.
check: deps
	bash scripts/check-format.sh
	bash scripts/check-include-order.sh

asan: deps
	cmake -S . -B $(ASAN_DIR) $(CMAKE_GEN) -DCMAKE_BUILD_TYPE=Debug -DTAILOR_SANITIZE=address -DTAILOR_BUILD_BENCH=OFF
	cmake --build $(ASAN_DIR) --target unit-tests -j $(JOBS)
	cd $(ASAN_DIR) && ctest -L unit --output-on-failure -j $(JOBS)

tsan: deps
	cmake -S . -B $(TSAN_DIR) $(CMAKE_GEN) -DCMAKE_BUILD_TYPE=Debug -DTAILOR_SANITIZE=thread -DTAILOR_BUILD_BENCH=OFF
	cmake --build $(TSAN_DIR) --target thread-tests -j $(JOBS)
	cd $(TSAN_DIR) && TSAN_OPTIONS="suppressions=$(CURDIR)/tests/tsan.supp" ctest -L unit-threads --output-on-failure --no-tests=error -j $(JOBS)

# The libFuzzer targets of fuzz/ (clang), each for FUZZ_SECONDS on its corpus: `make fuzz
# FUZZ_SECONDS=600` for a longer campaign.
fuzz: deps
	CC=clang-14 CXX=clang++-14 cmake -S . -B $(FUZZ_DIR) $(CMAKE_GEN) -DCMAKE_BUILD_TYPE=Debug -DTAILOR_FUZZ=ON -DTAILOR_BUILD_TESTS=OFF -DTAILOR_BUILD_BENCH=OFF
	cmake --build $(FUZZ_DIR) --target fuzz-targets -j $(JOBS)
	bash scripts/run-fuzz.sh $(FUZZ_DIR) $(FUZZ_SECONDS)

# Only what the demo runs, so a fresh machine does not build every test and benchmark first.
IMAGE_TARGETS := tailor tailor-controller tailor-node-agent
DEMO_TARGETS := $(IMAGE_TARGETS) tailor-cluster
demo: configure
	cmake --build $(BUILD_DIR) -j $(JOBS) --target $(DEMO_TARGETS)
	bash scripts/demo.sh $(BUILD_DIR)

# The OCI image the chart runs, $(BUILD_DIR)/image/tailor-<appVersion>.oci.tar (as root: buildah).
image: configure
	cmake --build $(BUILD_DIR) -j $(JOBS) --target $(IMAGE_TARGETS)
	bash scripts/image/build.sh $(BUILD_DIR) $(BUILD_DIR)/image

bench: build
	bash scripts/run-bench.sh $(BUILD_DIR)

format:
	git ls-files '*.cpp' '*.h' | xargs clang-format -i

clean:
	rm -rf $(BUILD_DIR) $(ASAN_DIR) $(TSAN_DIR) $(FUZZ_DIR)
