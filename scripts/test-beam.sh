#!/usr/bin/env bash
# Tests of the beam/ module (fg-beam, sharded EP on Apache Beam; docs/beam.md).
# Separate from scripts/test.sh: the first run downloads and compiles Beam's Go
# SDK and its dependencies (about 14 minutes on 2 shared cores); with a warm
# build cache it takes about 11 s (measured).
set -euo pipefail
cd "$(dirname "$0")/../beam"
go vet ./...
../scripts/staticcheck.sh ./...
go test -count=1 -timeout 15m ./...
