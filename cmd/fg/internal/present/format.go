// Package present turns inference results (infer.Result) into what people and
// programs read: an aligned comparison table, JSON (schema in docs/json.md and
// docs/result.schema.json), CSV, and PNG plots. It performs no inference; every
// number it prints comes from a Result.
package present

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// Dash marks a value a method does not define (e.g. log evidence of mcmc).
const Dash = "—"

// num renders a float compactly with 4 significant digits; a non-finite
// value is not a number to report and prints as Dash, as JSON prints null
// (e.g. the infinite variance of a Student-t with nu ≤ 2).
func num(x float64) string {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return Dash
	}
	if x == 0 {
		return "0"
	}
	a := math.Abs(x)
	if a >= 1e-3 && a < 1e6 {
		s := strconv.FormatFloat(x, 'f', decimalsFor(a), 64)
		return trimZeros(s)
	}
	return strconv.FormatFloat(x, 'e', 3, 64)
}

// decimalsFor chooses the decimals that give 4 significant digits for a in [1e-3, 1e6).
func decimalsFor(a float64) int {
	d := 3 - int(math.Floor(math.Log10(a)))
	if d < 0 {
		return 0
	}
	return d
}

func trimZeros(s string) string {
	if !strings.Contains(s, ".") {
		return s
	}
	s = strings.TrimRight(s, "0")
	return strings.TrimSuffix(s, ".")
}

// meanSD renders "m ± sd" from a mean and a variance. A negative or
// infinite variance shows as "m ± —", never silently clipped (JSON has null).
func meanSD(m, v float64) string {
	return num(m) + " ± " + num(math.Sqrt(v))
}

// seconds renders a duration in seconds with sensible precision.
func seconds(d time.Duration) string {
	s := d.Seconds()
	switch {
	case s < 0.01:
		return fmt.Sprintf("%.2gms", s*1000)
	case s < 10:
		return fmt.Sprintf("%.3gs", s)
	}
	return fmt.Sprintf("%.1fs", s)
}
