package benchdata

import (
	"fmt"
	"os"
)

// LoadAvg is the machine's one-minute load average from /proc/loadavg, the
// number a measurement reports beside its CPU times (0 where /proc is not
// available).
func LoadAvg() float64 {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return 0
	}
	var l float64
	fmt.Sscan(string(b), &l)
	return l
}
