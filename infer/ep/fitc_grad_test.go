package ep

import (
	"context"
	"math"
	"testing"

	"github.com/fg-infer/fg/infer"
	"github.com/fg-infer/fg/stdlib/kernel"
	"gonum.org/v1/gonum/mat"
)

// TestFITCGradLogZ: the O(n m²) gradient of log Z_EP equals central
// differences of log Z_EP from converged FITC EP runs (tol 1e-12) at
// perturbed log hyperparameters of covSEiso, with GPML's jitter rule, on
// the pima FITC case; the input derivatives ∂K_uu, ∂K_fu, ∂k_ii come from
// the kernel by central differences (smooth closed forms, error ~1e-10).
func TestFITCGradLogZ(t *testing.T) {
	c := loadFITC(t, "pima_ripley_fitc20")
	X := c.X.Slice(0, 120, 0, 7).(*mat.Dense)
	y := c.y[:120]
	hyp := c.k.Hyper()
	at := func(h []float64) (*FITCProblem, kernel.Kernel) {
		k, err := c.k.WithHyper(h)
		if err != nil {
			t.Fatal(err)
		}
		return fitcProblem(k, X, c.Z, y, Probit{}), k
	}
	s := Settings{Settings: infer.Settings{Tol: 1e-12, MaxIter: 500}}
	p0, _ := at(hyp)
	res, err := RunFITC(context.Background(), p0, s)
	if err != nil || res.Status != infer.Converged {
		t.Fatalf("%v %v", err, res.Status)
	}
	const h = 1e-5
	var ds []FITCDeriv
	var fd []float64
	for j := range hyp {
		hp, hm := append([]float64(nil), hyp...), append([]float64(nil), hyp...)
		hp[j] += h
		hm[j] -= h
		pp, _ := at(hp)
		pm, _ := at(hm)
		d := FITCDeriv{Kuu: mat.NewSymDense(pp.Kuu.SymmetricDim(), nil), Kfu: mat.NewDense(120, 20, nil),
			Kdiag: make([]float64, 120), Jitter: (pp.Jitter - pm.Jitter) / (2 * h)}
		for a := 0; a < 20; a++ {
			for b := a; b < 20; b++ {
				d.Kuu.SetSym(a, b, (pp.Kuu.At(a, b)-pm.Kuu.At(a, b))/(2*h))
			}
		}
		d.Kfu.Sub(pp.Kfu, pm.Kfu)
		d.Kfu.Scale(1/(2*h), d.Kfu)
		for i := range d.Kdiag {
			d.Kdiag[i] = (pp.Kdiag[i] - pm.Kdiag[i]) / (2 * h)
		}
		ds = append(ds, d)
		rp, err1 := RunFITC(context.Background(), pp, s)
		rm, err2 := RunFITC(context.Background(), pm, s)
		if err1 != nil || err2 != nil || !rp.HasLogZ || !rm.HasLogZ {
			t.Fatal(err1, err2)
		}
		fd = append(fd, (rp.LogZ-rm.LogZ)/(2*h))
	}
	g, err := res.GradLogZ(ds)
	if err != nil {
		t.Fatal(err)
	}
	for j := range g {
		if !(math.Abs(g[j]-fd[j]) <= 1e-5*math.Max(1, math.Abs(fd[j]))) {
			t.Errorf("∂ log Z/∂h%d = %.10g, differences %.10g", j, g[j], fd[j])
		}
	}
	t.Logf("gradient %v, differences %v", g, fd)
}
