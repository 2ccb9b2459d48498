//go:build unix

package testkit

import (
	"syscall"
	"time"
)

// CPUTime is the CPU time (user + system, all threads) the calling process
// has used so far, from getrusage(RUSAGE_SELF).
func CPUTime() (time.Duration, error) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0, err
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), nil
}
