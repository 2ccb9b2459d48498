#!/usr/bin/env bash
# The optional OpenBLAS build (go build -tags openblas ./cmd/fg): installs
# libopenblas-dev and liblapacke-dev when they are missing and apt-get can
# (root), then builds fg with the tag and runs the tests of the packages whose
# dense algebra goes through it: the backend comparison (OpenBLAS against
# gonum's pure Go to 1e-10), the GPML reproductions of infer/ep and
# infer/tep, and compile's golden dumps (prior covariances made through
# BLAS). Skips (exit 0, with a message) when the libraries cannot be had.
set -euo pipefail
cd "$(dirname "$0")/.."
# have: the header and a library the linker finds (a runtime-only
# libopenblas0 package, as Octave brings, registers libopenblas.so.0 with
# ldconfig but has no libopenblas.so to link against).
have() {
  [ -e /usr/include/lapacke.h ] && command -v cc >/dev/null &&
    echo 'int main(void) { return 0; }' | cc -x c - -o /dev/null -llapacke -lopenblas 2>/dev/null
}
if ! have && command -v apt-get >/dev/null && [ "$(id -u)" = 0 ]; then
  apt-get install -y -qq libopenblas-dev liblapacke-dev >/dev/null ||
    { apt-get update -qq >/dev/null && apt-get install -y -qq libopenblas-dev liblapacke-dev >/dev/null; } || true
fi
if ! have; then
  echo "scripts/test-openblas.sh: libopenblas-dev/liblapacke-dev not installed; skipping the openblas build" >&2
  exit 0
fi
go build -tags openblas -o /dev/null ./cmd/fg
./scripts/staticcheck.sh -tags openblas ./internal/openblas/
go test -tags openblas -short -count=1 ./internal/openblas/ ./infer/ep/ ./infer/tep/ ./compile/
