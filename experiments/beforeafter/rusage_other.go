//go:build !unix

package main

import (
	"os"
	"time"
)

// rusageSupported is false: without wait4's rusage there is no peak
// resident set size of a child to report, and the command refuses to run.
const rusageSupported = false

func usage(ps *os.ProcessState) (cpu time.Duration, peak int64) {
	return ps.UserTime() + ps.SystemTime(), 0
}

func selfPeak() int64 { return 0 }
