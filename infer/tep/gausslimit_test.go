package tep

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/fg-infer/fg/factor"
	"github.com/fg-infer/fg/infer"
	"github.com/fg-infer/fg/infer/ep"
)

// epLik is a tep site's likelihood as infer/ep's (the same factor kind,
// whose Tilted rule Gaussian EP calls).
func epLik(s Site) ep.Likelihood { return s.Lik.(ep.Likelihood) }

// gaussLimitProblem returns a Bayes point machine (k = 3, 12 points) or a
// GP-shaped problem (k = n = 10, squared-exponential scale) with the given
// likelihood.
func gaussLimitProblem(gp bool, lik Site) (*Problem, *ep.Problem) {
	rng := rand.New(rand.NewPCG(11, 12))
	n, k := 12, 3
	if gp {
		n, k = 10, 10
	}
	x := make([][]float64, n)
	for i := range x {
		x[i] = []float64{rng.NormFloat64(), rng.NormFloat64(), 1}
	}
	scale := mat.NewSymDense(k, nil)
	if gp {
		for i := 0; i < n; i++ {
			for j := i; j < n; j++ {
				d := (x[i][0]-x[j][0])*(x[i][0]-x[j][0]) + (x[i][1]-x[j][1])*(x[i][1]-x[j][1])
				v := 2.0 * math.Exp(-d/2)
				if i == j {
					v += 1e-6
				}
				scale.SetSym(i, j, v)
			}
		}
	} else {
		for i := 0; i < k; i++ {
			scale.SetSym(i, i, 1.5)
		}
		scale.SetSym(0, 1, 0.3)
	}
	p := &Problem{Nu: 1e8, Scale: scale}
	q := &ep.Problem{Cov: scale}
	for i := 0; i < n; i++ {
		y := 1.0
		if x[i][0]+0.5*x[i][1]+0.3*rng.NormFloat64() < 0 {
			y = -1
		}
		s := lik
		s.Y = y
		es := ep.Site{Lik: epLik(lik), Y: y}
		if gp {
			s.Index, es.Index = i, i
		} else {
			s.Proj, es.Proj = x[i], x[i]
		}
		p.Sites = append(p.Sites, s)
		q.Sites = append(q.Sites, es)
	}
	return p, q
}

// TestGaussianLimit: with ν = 1e8 (t − 1 ≈ 2e-8) t-EP is Gaussian EP; its
// posterior means, variances and log Z_EP agree with infer/ep (an
// independent implementation, itself checked against GPML) to 1e-6.
func TestGaussianLimit(t *testing.T) {
	for _, gp := range []bool{false, true} {
		for _, lik := range []Site{{Lik: factor.Probit{}}, {Lik: factor.Step{Eps: 0.1}}, {Lik: factor.Step{}}} {
			name := fmt.Sprintf("gp=%v %s %v", gp, lik.Lik.Name(), lik.Lik.Params())
			p, q := gaussLimitProblem(gp, lik)
			// Tol 1e-8: at ν' = 1e8 gonum's Student-t CDF (regularised
			// incomplete beta with a = 5e7) is accurate to ~1e-9 only, which
			// is the floor of the convergence measure here.
			r, err := Run(context.Background(), p, infer.Settings{Tol: 1e-8, MaxIter: 500}, nil)
			if err != nil || r.Status != infer.Converged {
				t.Logf("trace %v", r.Trace[len(r.Trace)-5:])
				t.Fatalf("%s: tep %v %v", name, err, r.Status)
			}
			g, err := ep.Run(context.Background(), q, ep.Settings{Settings: infer.Settings{Tol: 1e-11, MaxIter: 500}})
			if err != nil || g.Status != infer.Converged {
				t.Fatalf("%s: ep %v %v", name, err, g.Status)
			}
			v := r.Var()
			for i := range g.Mean {
				check(t, name+" mean", r.Mean[i], g.Mean[i], 1e-6)
				check(t, name+" var", v[i], g.Var[i], 1e-6)
			}
			if !r.HasLogZ || !g.HasLogZ {
				t.Fatalf("%s: log Z missing", name)
			}
			check(t, name+" logZ", r.LogZ, g.LogZ, 1e-6)
		}
	}
}

// TestAboveGaussianNu: beyond GaussianNu t-EP is refused with an error
// naming the Gaussian limit (at nu = 1e20 it used to stop at the prior,
// converged); infer/run runs Gaussian EP there instead.
func TestAboveGaussianNu(t *testing.T) {
	p, _ := gaussLimitProblem(false, Site{Lik: factor.Probit{}})
	p.Nu = 1e20
	res, err := Run(context.Background(), p, infer.Settings{}, nil)
	if err == nil || res != nil || !strings.Contains(err.Error(), "numerically Gaussian") {
		t.Fatalf("nu = 1e20: result %v, error %v", res, err)
	}
}
