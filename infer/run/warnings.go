package run

import (
	"fmt"
	"math"
	"slices"

	"github.com/fg-infer/fg/infer"
)

// Stan's thresholds for trusting MCMC summaries (Vehtari et al. 2021, §4):
// split R-hat at most 1.01 and an effective sample size of at least 400
// (100 per chain for 4 chains).
const (
	MaxRHat = 1.01
	MinESS  = 400
)

// warn adds the run-time warnings that every engine's result can carry:
// skipped updates and sampling diagnostics outside Stan's thresholds.
// Engine-specific warnings (quadrature error, a degenerate setting replaced
// by its limit) are added where the engine runs.
func (j *job) warn() {
	r := j.res
	if !r.Status.HasNumbers() {
		return
	}
	if r.Skipped > 0 {
		r.Warn(j.pos(), "%d of %d factor updates were skipped (improper cavity or tilted approximation); skipped factors are not moment-matched",
			r.Skipped, r.Skipped+r.Updates)
	}
	samplingWarnings(r, j.pos())
}

// warnOnce adds a warning at the infer line unless the result has it
// already (a model with several blocks reaches the same check per block).
func (j *job) warnOnce(format string, args ...any) {
	w := infer.Warning{Pos: j.pos(), Message: fmt.Sprintf(format, args...)}
	if !slices.Contains(j.res.Warnings, w) {
		j.res.Warnings = append(j.res.Warnings, w)
	}
}

// pos is the position of the infer line, for warnings.
func (j *job) pos() string {
	if !j.spec.Pos.IsValid() {
		return ""
	}
	return j.spec.Pos.String()
}

// samplingWarnings warns when any element's split R-hat exceeds MaxRHat or
// its effective sample size is below MinESS, naming the worst element.
func samplingWarnings(r *infer.Result, pos string) {
	worstR, worstE := extreme{v: MaxRHat}, extreme{v: MinESS}
	for _, v := range r.Variables {
		for i, x := range v.RHat {
			if x > worstR.v || math.IsNaN(x) && !math.IsNaN(worstR.v) {
				worstR = extreme{v: x, at: infer.ElementName(v.Name, v.Shape, i)}
			}
		}
		for i, x := range v.ESS {
			if x < worstE.v || math.IsNaN(x) && !math.IsNaN(worstE.v) {
				worstE = extreme{v: x, at: infer.ElementName(v.Name, v.Shape, i)}
			}
		}
	}
	if worstR.at != "" {
		r.Warn(pos, "split R-hat %.4g > %g at %s: the chains disagree; run more samples (or burnin)", worstR.v, MaxRHat, worstR.at)
	}
	if worstE.at != "" {
		r.Warn(pos, "effective sample size %.4g < %d at %s: Monte Carlo error is large; run more samples", worstE.v, MinESS, worstE.at)
	}
}

// extreme is the worst value of a diagnostic and the element it is at.
type extreme struct {
	v  float64
	at string
}
