package infer

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
)

// The memory budget bounds the largest allocations whose size a model
// controls — the draws a sampler keeps (KeptDrawsLimit), EP's dense
// site-space and projection matrices (infer/ep) — in bytes, so that a
// model is refused with a message before it allocates instead of ending
// in a Go runtime "out of memory" fatal error. It is
//
//	budget = min(MemTotal/4, RLIMIT_DATA/2, RLIMIT_AS/4),
//
// MemTotal read from /proc/meminfo (DefaultMemoryBudget when it cannot be
// read), the resource limits from getrlimit (ignored when unlimited). A
// quarter of the machine leaves room for the rest of the run, other
// programs and the garbage collector, which lets the heap grow to about
// twice its live size (GOGC = 100): that is also why a data limit is
// halved. An address-space limit is quartered because the Go runtime
// reserves address space it never touches. On a 24 GiB machine the budget
// is 6 GiB; under the bad-input corpus's `ulimit -d 2097152` (2 GiB) it is
// 1 GiB, so every refusal happens below the limit.
//
// FG_MEMORY_BUDGET replaces the whole computation: bytes, or with a unit
// (512M, 500MB, 1.5GiB: parseBytes; M and MiB are 2²⁰ bytes, MB 10⁶).
func MemoryBudget() int64 { return budget() }

// CheckBudgetEnv reports an FG_MEMORY_BUDGET that is set but not a
// positive size, which MemoryBudget would otherwise ignore: fg refuses to
// start with it rather than fall back silently.
func CheckBudgetEnv() error {
	if s, ok := os.LookupEnv("FG_MEMORY_BUDGET"); ok {
		_, err := parseBytes(s)
		return err
	}
	return nil
}

// DefaultMemoryBudget is the budget when /proc/meminfo cannot be read.
const DefaultMemoryBudget = 4 << 30

var budget = sync.OnceValue(func() int64 {
	if s := os.Getenv("FG_MEMORY_BUDGET"); s != "" {
		if b, err := parseBytes(s); err == nil {
			return b
		}
	}
	t, okT := memTotal()
	d, okD := rlimitData()
	a, okA := rlimitAS()
	return budgetOf(t, okT, d, okD, a, okA)
})

// budgetOf is the budget formula (MemoryBudget) for a machine of total
// bytes with the given data and address-space limits (ok false: unknown
// or unlimited); at least 1 MiB.
func budgetOf(total int64, okTotal bool, data int64, okData bool, as int64, okAS bool) int64 {
	b := int64(DefaultMemoryBudget)
	if okTotal {
		b = total / 4
	}
	if okData {
		b = min(b, data/2)
	}
	if okAS {
		b = min(b, as/4)
	}
	return max(b, 1<<20)
}

// memTotal reads MemTotal (in bytes) from /proc/meminfo.
func memTotal() (int64, bool) {
	data, err := os.ReadFile("/proc/meminfo")
	if err != nil {
		return 0, false
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		var kb int64
		if n, _ := fmt.Sscanf(sc.Text(), "MemTotal: %d kB", &kb); n == 1 && kb > 0 {
			return kb << 10, true
		}
	}
	return 0, false
}

// budgetForms lists the sizes FG_MEMORY_BUDGET accepts, for its error.
const budgetForms = "a positive number of bytes, optionally with a unit: K, M, G, T or KiB, MiB, GiB, TiB (powers of 1024), KB, MB, GB, TB (powers of 1000), B; e.g. 1073741824, 512M, 500MB, 1.5GiB"

// byteUnits are the unit suffixes of a size, in lower case: a bare letter
// and the IEC -iB forms are powers of 1024 (M = MiB = 2²⁰, as ulimit and
// Go's GOMEMLIMIT read them), the SI -B forms powers of 1000 (MB = 10⁶).
var byteUnits = map[string]float64{
	"": 1, "b": 1,
	"k": 1 << 10, "kib": 1 << 10, "kb": 1e3,
	"m": 1 << 20, "mib": 1 << 20, "mb": 1e6,
	"g": 1 << 30, "gib": 1 << 30, "gb": 1e9,
	"t": 1 << 40, "tib": 1 << 40, "tb": 1e12,
}

// parseBytes reads a size: a number (decimals allowed: 1.5G) with an
// optional unit of byteUnits, case-insensitive, a space allowed before it
// ("123", "64K", "512M", "500MB", "500MiB", "1.5G"), rounded down to whole
// bytes.
func parseBytes(s string) (int64, error) {
	if s == "" {
		return 0, fmt.Errorf("FG_MEMORY_BUDGET is empty; want %s", budgetForms)
	}
	t := strings.TrimSpace(s)
	i := strings.IndexFunc(t, func(r rune) bool { return (r < '0' || r > '9') && r != '.' })
	if i < 0 {
		i = len(t)
	}
	unit, ok := byteUnits[strings.ToLower(strings.TrimSpace(t[i:]))]
	v, err := strconv.ParseFloat(t[:i], 64)
	if !ok || err != nil || !(v*unit >= 1) || v*unit > 1<<62 {
		return 0, fmt.Errorf("FG_MEMORY_BUDGET %q: want %s", s, budgetForms)
	}
	return int64(v * unit), nil
}

// FormatBytes writes n bytes in the largest binary unit below n, with one
// decimal when it is not whole: "1.5 GiB", "128 MiB".
func FormatBytes(n int64) string {
	v, u := float64(n), 0
	for v >= 1024 && u < 4 {
		v /= 1024
		u++
	}
	return strings.TrimSuffix(fmt.Sprintf("%.1f", v), ".0") + " " + [...]string{"B", "KiB", "MiB", "GiB", "TiB"}[u]
}

// KeptDrawsLimit is the number of float64 draws a sampler may keep over
// all chains and quantities: the memory budget at 16 bytes per draw (8 for
// the draw, as much again for the diagnostics' working copies and the
// collector's headroom). 6 GiB gives 402653184 ≈ 2²⁸·⁶; 1 GiB, 2²⁶.
func KeptDrawsLimit() int { return int(MemoryBudget() / 16) }
