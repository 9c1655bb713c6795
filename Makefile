# Synthase top-level entry points. Every target installs missing packages, configures and builds first.
BUILD ?= build
JOBS ?= 2
LOCK := flock /tmp/synthase-build.lock

.PHONY: all deps configure build demo test bench fuzz install clean

all: build

deps:
	@bash scripts/install-deps.sh

configure: deps
	@if [ ! -f $(BUILD)/build.ninja ]; then \
	  CC=clang-22 CXX=clang++-22 cmake -S . -B $(BUILD) -G Ninja -DCMAKE_BUILD_TYPE=Release \
	    -DLLVM_DIR=/usr/lib/llvm-22/lib/cmake/llvm >/dev/null; fi

build: configure
	@$(LOCK) ninja -C $(BUILD) -j$(JOBS) >$(BUILD)/.ninja-out 2>&1 || { cat $(BUILD)/.ninja-out; exit 1; }
	@test -f $(BUILD)/lib/Synthase.so

demo: build
	@bash scripts/demo.sh $(BUILD)

test: build
	@bash scripts/run-tests.sh $(BUILD)

bench: build
	@bash scripts/bench.sh $(BUILD) $(if $(QUICK),--quick,)

fuzz: build
	@bash scripts/fuzz.sh $(BUILD) $(or $(N),200) $(or $(SEED),1)

install: build
	cmake --install $(BUILD) $(if $(PREFIX),--prefix $(PREFIX),)

clean:
	rm -rf $(BUILD)
