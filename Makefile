# The README's two commands, and the build steps under them.
#   make demo   install what is missing, build, run the main job
#   make test   install what is missing, build, run the whole test suite
BUILD ?= build
JOBS ?= $(shell nproc 2>/dev/null || echo 2)
CMAKE_FLAGS ?=
# ctest runs JOBS tests at once on as many cores: OpenMP threads that spin
# while they wait then starve each other (test_mg_dist under ASan: 3.6 s
# alone, over 35 s beside two busy cores, 7 s with passive waits).
OMP_WAIT ?= passive

.PHONY: all deps configure build test demo install test-asan clean

all: build

deps:
	@bash tools/install-deps

$(BUILD)/CMakeCache.txt:
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release $(CMAKE_FLAGS)

configure: $(BUILD)/CMakeCache.txt

build: deps configure
	cmake --build $(BUILD) -j $(JOBS)

test: build
	cd $(BUILD) && OMP_WAIT_POLICY=$(OMP_WAIT) ctest --output-on-failure -j $(JOBS)

demo: build
	$(BUILD)/bin/fdx demo --output fdx-demo

# make install [PREFIX=/opt/fdx] [DESTDIR=/stage]: the default prefix is
# CMake's (/usr/local); PREFIX picks another at install time, no rebuild.
PREFIX ?=
install: build
	cmake --install $(BUILD) $(if $(PREFIX),--prefix "$(PREFIX)")

# The CPU tests under AddressSanitizer and UBSan (CUDA off: the sanitizers
# and the CUDA runtime do not mix).  The emulator tests reuse the programs
# that make test compiled (the same kernels, already under ASan there), and
# the CPU kernels it compiled (below).
test-asan: deps
	cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=Debug -DFDX_SANITIZE=ON -DFDX_CUDA=OFF \
	  $(if $(wildcard $(BUILD)/emu-cache),-DFDX_TEST_EMU_CACHE=$(abspath $(BUILD))/emu-cache)
	cmake --build build-asan -j $(JOBS)
	@# A first sanitizer run starts from the release run's compiled kernels
	@# (the same -O3 objects, the key that signs them): only the tuning
	@# results are left out, so that the tuners run under the sanitizers.
	@if [ -d $(BUILD)/test-cache ] && [ ! -e build-asan/test-cache ]; then \
	  cp -a $(BUILD)/test-cache build-asan/test-cache && rm -f build-asan/test-cache/*.tune build-asan/test-cache/*.utune; fi
	cd build-asan && OMP_WAIT_POLICY=$(OMP_WAIT) ASAN_OPTIONS=detect_leaks=1:allocator_may_return_null=1 UBSAN_OPTIONS=print_stacktrace=1 ctest --output-on-failure -j $(JOBS)

clean:
	rm -rf $(BUILD) build-asan
