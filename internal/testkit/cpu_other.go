//go:build !unix

package testkit

import (
	"errors"
	"time"
)

// CPUTime is the CPU time the calling process has used so far; without
// getrusage it is not available (errors.ErrUnsupported).
func CPUTime() (time.Duration, error) { return 0, errors.ErrUnsupported }
