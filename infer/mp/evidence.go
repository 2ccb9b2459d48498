package mp

import (
	"fmt"
	"math"

	"github.com/fg-infer/fg/families"
	"github.com/fg-infer/fg/graph"
)

// evidence is log Z_EP or, for VMP, the ELBO, at the current messages
// (see the package doc). Every belief must be proper.
func (e *engine) evidence() (float64, error) {
	vmp := e.opt.VMP()
	u := e.opt.Alpha
	if vmp {
		u = 1
	}
	A := make([]float64, len(e.belief))
	for v, b := range e.belief {
		if !e.spaces[v].Proper(b) {
			return 0, fmt.Errorf("the belief of %s is improper (%s): %w", e.net.Vars[v].Name, e.spaces[v].String(b), families.ErrImproper)
		}
		A[v] = e.spaces[v].LogNormalizer(b)
	}
	var total float64
	for i, fs := range e.fs {
		logZ, err := e.factorLogZ(fs, u, vmp)
		if err != nil {
			return 0, fmt.Errorf("%s: %w", e.net.Factors[i].Label, err)
		}
		if vmp {
			total += logZ // E log f, or the discrete part's log Σ_s exp(E log f_s) Π cavities
			for _, k := range fs.disc {
				total -= A[fs.vars[k]]
			}
			continue
		}
		t := logZ
		for _, v := range fs.vars {
			t -= A[v]
		}
		total += t / u
	}
	for v := range e.belief {
		switch {
		case !vmp:
			total += A[v]
		case e.net.Vars[v].Family == graph.Discrete:
			total += A[v]
		default:
			total += families.Entropy(e.spaces[v], e.belief[v])
		}
	}
	if math.IsNaN(total) || math.IsInf(total, 0) {
		return 0, fmt.Errorf("the evidence is %g", total)
	}
	return total, nil
}

// factorLogZ is the part of factor fs's term of the evidence that depends
// on the factor itself at the current messages: log ∫ f^u Π cavities
// against unnormalised cavities (EP, power u), or E_q log f (VMP; for a
// factor with discrete variables log Σ_s exp(E log f_s) Π cavities).
func (e *engine) factorLogZ(fs *fstate, u float64, vmp bool) (float64, error) {
	e.arena.reset()
	w := e.look(fs, u, vmp)
	res, err := e.eval(fs, w, u, vmp)
	if err != nil {
		return 0, err
	}
	_, logZ := e.weights(res)
	return logZ, nil
}
