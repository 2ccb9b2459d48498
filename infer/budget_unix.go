//go:build unix

package infer

import (
	"math"
	"syscall"
)

// rlimitData is the soft RLIMIT_DATA in bytes, false when unlimited
// (RLIM_INFINITY is all ones, so above MaxInt64).
func rlimitData() (int64, bool) { return rlimit(syscall.RLIMIT_DATA) }

// rlimitAS is the soft RLIMIT_AS in bytes, false when unlimited.
func rlimitAS() (int64, bool) { return rlimit(syscall.RLIMIT_AS) }

func rlimit(resource int) (int64, bool) {
	var r syscall.Rlimit
	if err := syscall.Getrlimit(resource, &r); err != nil || r.Cur >= math.MaxInt64 {
		return 0, false
	}
	return int64(r.Cur), true
}
