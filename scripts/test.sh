#!/usr/bin/env bash
# The project's test command: formatting, vet (also for Windows), staticcheck (scripts/staticcheck.sh),
# the test suite, and the expect statements of every example (fg test examples/).
# Long experiments are behind -short guards and are not run here.
set -euo pipefail
cd "$(dirname "$0")/.."
unformatted=$(gofmt -l $(git ls-files '*.go' 2>/dev/null || find . -name '*.go'))
if [ -n "$unformatted" ]; then
  echo "gofmt would change:"; echo "$unformatted"; exit 1
fi
go vet ./...
# The module (tests included) builds beyond unix: process control, rusage and
# FIFOs stay behind //go:build unix.
GOOS=windows GOARCH=amd64 go vet ./...
./scripts/staticcheck.sh ./...
go run ./cmd/fg test examples/
go test -short -count=1 -timeout 15m ./...
