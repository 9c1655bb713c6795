#!/usr/bin/env bash
# make demo: compile the shipped example with synthase-cc, run it.
set -euo pipefail
BUILD=${1:-build}
mkdir -p "$BUILD/demo"
"$BUILD/bin/synthase-cc" -O2 examples/demo.c -o "$BUILD/demo/demo" -lm
"$BUILD/demo/demo"
