package ep

import (
	"errors"
	"fmt"

	"github.com/fg-infer/fg/families"
	"github.com/fg-infer/fg/infer"
)

// finishCanceled ends a canceled run without refactorising (an O(M³) step
// that could hold a Ctrl-C for seconds): the partial result is the current
// posterior as the last sweep left it. The marginals of w are reported when
// they are at hand without a factorisation (weight-space path, or a GP's
// site space where f = w with the full Σ_f of a sequential sweep);
// otherwise only the projections' means FMean.
func (e *engine) finishCanceled(res *Result, msg string) *Result {
	res.Status, res.Message = infer.Canceled, msg
	res.Sites = append([]families.Gaussian(nil), e.sites...)
	res.B = append([]float64(nil), e.b...)
	res.Stats = e.stats
	st := e.st
	if st == nil {
		return res
	}
	res.FMean = append([]float64(nil), st.mu...)
	switch {
	case st.w != nil:
		res.Mean = append([]float64(nil), st.w.mu...)
		res.Var = make([]float64, len(st.w.mu))
		for i := range res.Var {
			res.Var[i] = st.w.sigma.At(i, i)
		}
	case e.pr.identity && (st.sigma != nil || st.sdiag != nil):
		res.FVar = make([]float64, len(st.mu))
		for i := range res.FVar {
			res.FVar[i] = st.variance(i)
		}
		res.Mean, res.Var = append([]float64(nil), res.FMean...), append([]float64(nil), res.FVar...)
	}
	return res
}

// errCanceled reports a refactorisation abandoned because the run's context
// is done.
var errCanceled = errors.New("ep: canceled during a refactorisation")

// refactor is recompute that a canceled context interrupts. The site-space
// factorisations check the run's done channel between their blocks
// (chol.go) and return errCanceled; the weight-space recomputation (one
// Cholesky of an N×N matrix, N < M) cannot, so it runs on its own
// goroutine and, when the context is done first, is abandoned (it finishes
// in the background and its result is dropped).
func (e *engine) refactor(sites []families.Gaussian, full bool) (*state, error) {
	if e.done == nil || !e.pr.weight {
		return e.recompute(sites, full)
	}
	type out struct {
		st  *state
		err error
	}
	ch := make(chan out, 1)
	go func() {
		defer func() {
			if r := recover(); r != nil {
				ch <- out{nil, fmt.Errorf("ep: internal error: %v", r)}
			}
		}()
		st, err := e.recompute(sites, full)
		ch <- out{st, err}
	}()
	select {
	case o := <-ch:
		return o.st, o.err
	case <-e.done:
		return nil, errCanceled
	}
}
