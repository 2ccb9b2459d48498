//go:build unix

package main

import (
	"os"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// rusageSupported says whether this system reports a child's peak resident
// set size (wait4's rusage).
const rusageSupported = true

// usage is the CPU time (user + system) and the peak resident set size in
// bytes (ru_maxrss) of a process that has exited, from the rusage wait4
// returned for it.
func usage(ps *os.ProcessState) (cpu time.Duration, peak int64) {
	cpu = ps.UserTime() + ps.SystemTime()
	if ru, ok := ps.SysUsage().(*syscall.Rusage); ok {
		peak = int64(ru.Maxrss) * maxrssUnit()
	}
	return cpu, peak
}

// selfPeak is the peak resident set size in bytes of this process's own
// memory (Linux: VmHWM of /proc/self/status), a floor under every child's
// ru_maxrss: a child started by vfork and exec inherits the high-water mark
// of the memory it shared with its parent. Elsewhere, and when /proc
// cannot be read, getrusage's, which also counts the process that started
// this one (the go command under go run).
func selfPeak() int64 {
	if kb, ok := vmHWM(); ok {
		return kb << 10
	}
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return int64(ru.Maxrss) * maxrssUnit()
}

// vmHWM is the VmHWM line of /proc/self/status, in KiB.
func vmHWM() (int64, bool) {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0, false
	}
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, "VmHWM:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			return kb, err == nil
		}
	}
	return 0, false
}

// maxrssUnit is the unit of ru_maxrss: bytes on Apple's systems, KiB on
// Linux and the BSDs.
func maxrssUnit() int64 {
	if runtime.GOOS == "darwin" || runtime.GOOS == "ios" {
		return 1
	}
	return 1024
}
