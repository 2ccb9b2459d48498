package present

import (
	"math"
	"strconv"

	"gonum.org/v1/plot"
)

// logTicks are plot.LogTicks with labels written as powers of ten ("1e-05",
// "0.001", "100") instead of digits that show rounding noise.
type logTicks struct{}

func (logTicks) Ticks(min, max float64) []plot.Tick {
	ts := plot.LogTicks{Prec: -1}.Ticks(min, max)
	for i, t := range ts {
		if t.Label == "" {
			continue
		}
		p := math.Round(math.Log10(t.Value))
		if math.Abs(p) < 4 {
			ts[i].Label = strconv.FormatFloat(math.Pow(10, p), 'f', -1, 64)
		} else {
			ts[i].Label = "1e" + strconv.Itoa(int(p))
		}
	}
	return ts
}

// intTicks labels only whole numbers (sweeps), about eight of them.
type intTicks struct{}

func (intTicks) Ticks(min, max float64) []plot.Tick {
	lo, hi := math.Ceil(min), math.Floor(max)
	step := math.Max(1, niceStep((hi-lo)/8))
	var ts []plot.Tick
	for v := math.Ceil(lo/step) * step; v <= hi; v += step {
		ts = append(ts, plot.Tick{Value: v, Label: strconv.Itoa(int(v))})
	}
	return ts
}

// niceStep rounds x up to 1, 2 or 5 times a power of ten.
func niceStep(x float64) float64 {
	if x <= 0 {
		return 1
	}
	p := math.Pow(10, math.Floor(math.Log10(x)))
	for _, m := range []float64{1, 2, 5, 10} {
		if m*p >= x {
			return m * p
		}
	}
	return 10 * p
}
