package infer

import (
	"strings"
	"testing"
)

// TestBudgetOf: a quarter of the machine, at most half a data limit and a
// quarter of an address-space limit, 4 GiB when the machine's size is
// unknown.
func TestBudgetOf(t *testing.T) {
	const gib = 1 << 30
	for _, c := range []struct {
		total, data, as int64
		okT, okD, okA   bool
		want            int64
	}{
		{24 * gib, 0, 0, true, false, false, 6 * gib},
		{24 * gib, 2 * gib, 0, true, true, false, 1 * gib},
		{24 * gib, 0, 8 * gib, true, false, true, 2 * gib},
		{0, 0, 0, false, false, false, 4 * gib},
		{0, 64 << 10, 0, false, true, false, 1 << 20},
	} {
		if got := budgetOf(c.total, c.okT, c.data, c.okD, c.as, c.okA); got != c.want {
			t.Errorf("%+v: %d, want %d", c, got, c.want)
		}
	}
	if b := MemoryBudget(); b < 1<<20 {
		t.Errorf("MemoryBudget() = %d", b)
	}
}

func TestParseAndFormatBytes(t *testing.T) {
	for s, want := range map[string]int64{
		"123": 123, "64K": 64 << 10, "512m": 512 << 20, "6G": 6 << 30, "1.5G": 3 << 29, "2T": 2 << 40,
		"500MB": 500_000_000, "500MiB": 500 << 20, "500 mib": 500 << 20, "1.5GB": 1_500_000_000, "4kB": 4000,
		"100B": 100, " 2G ": 2 << 30, "0.5K": 512,
	} {
		if got, err := parseBytes(s); err != nil || got != want {
			t.Errorf("parseBytes(%q) = %d, %v", s, got, err)
		}
	}
	for _, s := range []string{"", "G", "-1", "0", "0.4", "1.2.3G", "1e9", "5X", "5MBB", "NaN", "Inf", "99999999999G"} {
		if _, err := parseBytes(s); err == nil || !strings.Contains(err.Error(), "500MB") {
			t.Errorf("parseBytes(%q): %v; want an error listing the accepted forms", s, err)
		}
	}
	for n, want := range map[int64]string{100: "100 B", 1536: "1.5 KiB", 128 << 20: "128 MiB", 6 << 30: "6 GiB", 1610612736: "1.5 GiB"} {
		if got := FormatBytes(n); got != want {
			t.Errorf("FormatBytes(%d) = %q, want %q", n, got, want)
		}
	}
}
