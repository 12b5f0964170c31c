# Quick start: `make demo` or `make test` on a fresh Debian 12 machine. Both install the missing
# Debian packages first (when run as root), configure, build, then run.
BUILD ?= build
JOBS ?= $(shell nproc)
CMAKE_ARGS ?=
# CUDA is built when nvcc is found; look where the toolkit installs it too.
export PATH := $(PATH):/usr/local/cuda/bin

.PHONY: all setup configure build test demo gpu-check clean format format-check

all: build

setup:
	@scripts/setup.sh

configure: setup
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release $(CMAKE_ARGS)

build: configure
	cmake --build $(BUILD) -j $(JOBS)

test: build
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS)

demo: build
	$(BUILD)/apps/portla/portla info
	$(BUILD)/apps/portla/portla solve --generate poisson3d:64 --solver cg --backend auto

format-check: setup
	scripts/check-format.sh

format:
	scripts/check-format.sh --fix

clean:
	rm -rf $(BUILD)
