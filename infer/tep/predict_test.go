package tep

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/stat/distmv"
	"gonum.org/v1/gonum/stat/distuv"

	"github.com/fg-infer/fg/factor"
	"github.com/fg-infer/fg/infer"
)

// TestPredictTPAtTrainingInput: at a training input (k* = K e_i,
// k** = K_ii) the conditional part vanishes and PredictTP must return the
// posterior marginal of f_i exactly.
func TestPredictTPAtTrainingInput(t *testing.T) {
	p := tpProblem(30, 6)
	// The identity holds for any posterior; 20 sweeps suffice.
	r, err := Run(context.Background(), p, infer.Settings{MaxIter: 20}, nil)
	if err != nil || r.Mean == nil {
		t.Fatalf("%v %v", err, r.Status)
	}
	t.Logf("status %v, trace tail %.3g", r.Status, r.Trace[len(r.Trace)-3:])
	v := r.Var()
	for _, i := range []int{0, 7, 29} {
		ks := mat.Col(nil, i, p.Scale)
		pr, err := r.PredictTP(ks, p.Scale.At(i, i), 0, factor.Step{Eps: 0.05})
		if err != nil {
			t.Fatal(err)
		}
		check(t, "mean", pr.Mean, r.Mean[i], 1e-9)
		check(t, "var", pr.Var, v[i], 1e-9)
		// p(y=+1) = ε + (1−2ε) P(f_i > 0) with f_i ~ St(ν, μ_i, Σ_ii).
		want := 0.05 + 0.9*distuv.StudentsT{Mu: r.Mean[i], Sigma: math.Sqrt(r.Scale.At(i, i)), Nu: 6}.Survival(0)
		check(t, "prob", pr.Prob, want, 1e-9)
	}
}

// TestPredictTPMonteCarlo checks the predictive mean and variance at a new
// input against sampling f ~ q(f) = St(ν, μ, Σ), then f* | f from the
// Student-t process conditional St(ν+n, k*ᵀK⁻¹f, (ν + fᵀK⁻¹f)/(ν+n)·(k** −
// k*ᵀK⁻¹k*)), 4·10⁵ draws, tolerance 5 standard errors.
func TestPredictTPMonteCarlo(t *testing.T) {
	n, nu := 6, 7.0
	p := tpProblem(n, nu)
	// A new input: correlated with the training points but not one of them.
	ks := make([]float64, n)
	for i := range ks {
		ks[i] = 0.5 * p.Scale.At(i, 0) * math.Exp(-0.1*float64(i))
	}
	kss := 1.0
	r, err := Run(context.Background(), p, infer.Settings{Tol: 1e-10}, nil)
	if err != nil {
		t.Fatal(err)
	}
	pr, err := r.PredictTP(ks, kss, 0, factor.Probit{})
	if err != nil {
		t.Fatal(err)
	}
	var ch mat.Cholesky
	ch.Factorize(p.Scale)
	var kinv mat.VecDense
	ch.SolveVecTo(&kinv, mat.NewVecDense(n, ks))
	resid := kss - mat.Dot(mat.NewVecDense(n, ks), &kinv)
	src := rand.NewPCG(31, 32)
	q, _ := distmv.NewStudentsT(r.Mean, r.Scale, nu, src)
	std := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: nu + float64(n), Src: src}
	const draws = 400000
	f := make([]float64, n)
	var s1, s2 float64
	for d := 0; d < draws; d++ {
		q.Rand(f)
		var u mat.VecDense
		ch.SolveVecTo(&u, mat.NewVecDense(n, f))
		beta := floats.Dot(f, u.RawVector().Data)
		m := floats.Dot(kinv.RawVector().Data, f)
		x := m + math.Sqrt((nu+beta)/(nu+float64(n))*resid)*std.Rand()
		s1 += x
		s2 += x * x
	}
	mean := s1 / draws
	vr := s2/draws - mean*mean
	seM := math.Sqrt(vr / draws)
	if !(math.Abs(pr.Mean-mean) <= 5*seM) {
		t.Errorf("mean %g, Monte Carlo %g ± %g", pr.Mean, mean, seM)
	}
	// The sample variance of a t_ν mixture has a heavy-tailed error; 3%.
	if !(math.Abs(pr.Var-vr) <= 0.03*vr) {
		t.Errorf("var %g, Monte Carlo %g", pr.Var, vr)
	}
}

// TestPredictProj: at a training projection the predictive latent is the
// posterior marginal St(ν, aᵀμ, aᵀΣa).
func TestPredictProj(t *testing.T) {
	p := mixtureBPM(50, 5, 9)
	r, err := Run(context.Background(), p, infer.Settings{Tol: 1e-10}, nil)
	if err != nil {
		t.Fatal(err)
	}
	a := p.Sites[3].Proj
	pr, err := r.PredictProj(a, factor.Step{})
	if err != nil {
		t.Fatal(err)
	}
	av := mat.NewVecDense(2, a)
	check(t, "mean", pr.Mean, floats.Dot(a, r.Mean), 1e-10)
	check(t, "scale", pr.Scale, mat.Inner(av, r.Scale, av), 1e-10)
	want := distuv.StudentsT{Mu: pr.Mean, Sigma: math.Sqrt(pr.Scale), Nu: 5}.Survival(0)
	check(t, "prob", pr.Prob, want, 1e-10)
}
