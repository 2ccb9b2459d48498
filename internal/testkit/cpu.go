package testkit

import (
	"errors"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"
)

// Stop latency measured in CPU time.
//
// fg promises that a cancellation (Ctrl-C, SIGTERM, a canceled context) is
// answered within about a second. Wall time cannot check that on a loaded
// machine — two cores shared by many processes stretch a 0.3 s stop to
// over a second — so the tests measure the CPU time the process spends
// between the cancellation and its return instead: work that ignores the
// cancellation keeps burning CPU and is caught whatever the load, while
// waiting for a core costs nothing. The work of a stop may run on up to
// StopProcs threads, so a stop within a second of wall time on an idle
// machine uses at most StopProcs CPU seconds.

// StopProcs is the GOMAXPROCS the stop-latency tests run with (the 2-core
// machine fg is tested on), so that the CPU bound is the same on any host.
const StopProcs = 2

// StopCPU is the CPU time a stop may use: one second on each of StopProcs
// threads.
const StopCPU = StopProcs * time.Second

// ProcessCPU is the CPU time (user + system, all threads) the calling
// process has used so far (CPUTime); it skips the test where the system
// cannot tell.
func ProcessCPU(t testing.TB) time.Duration {
	t.Helper()
	d, err := CPUTime()
	if errors.Is(err, errors.ErrUnsupported) {
		t.Skip("process CPU time is not available on this system")
	}
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// LimitProcs sets GOMAXPROCS to StopProcs until the test ends.
func LimitProcs(t testing.TB) {
	prev := runtime.GOMAXPROCS(StopProcs)
	t.Cleanup(func() { runtime.GOMAXPROCS(prev) })
}

// PidCPU is the CPU time (user + system, all threads) process pid has used
// so far, from /proc/PID/stat (fields 14 and 15, in USER_HZ = 100 ticks a
// second); ok is false where /proc is not available.
func PidCPU(pid int) (d time.Duration, ok bool) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, false
	}
	// The command name (field 2) is in parentheses and may hold spaces:
	// the fields counted from 3 start after the last ')'.
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return 0, false
	}
	f := strings.Fields(s[i+1:])
	if len(f) < 13 {
		return 0, false
	}
	u, err1 := strconv.ParseInt(f[11], 10, 64)
	st, err2 := strconv.ParseInt(f[12], 10, 64)
	if err1 != nil || err2 != nil {
		return 0, false
	}
	return time.Duration(u+st) * (time.Second / 100), true
}
