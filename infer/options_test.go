package infer

import (
	"strings"
	"testing"
)

// TestOptionRanges checks every range at its bounds: the last accepted
// value on each side is accepted, the first rejected one is rejected with
// a message naming the option.
func TestOptionRanges(t *testing.T) {
	cases := []struct {
		name string
		err  error
		ok   bool
	}{
		{"damping 1", CheckDamping(1), true},
		{"damping 1e-7 (below MinDamping)", CheckDamping(1e-7), false},
		{"damping 0", CheckDamping(0), false},
		{"damping 1.0000001", CheckDamping(1.0000001), false},
		{"tol 1e-300", CheckTol(1e-300), true},
		{"tol 0", CheckTol(0), false},
		{"max_iter 1", CheckMaxIter(1), true},
		{"max_iter max", CheckMaxIter(MaxSweeps), true},
		{"max_iter 0", CheckMaxIter(0), false},
		{"max_iter max+1", CheckMaxIter(MaxSweeps + 1), false},
		{"passes 0", CheckPasses(0), false},
		{"seed 0", CheckSeed(0), true},
		{"seed -1", CheckSeed(-1), false},
		{"alpha 1", CheckDivergence(Alpha{A: 1}), true},
		{"alpha 1e-20", CheckDivergence(Alpha{A: 1e-20}), true},
		{"alpha 0 (VMP)", CheckDivergence(Alpha{A: 0}), true},
		{"alpha -0.1", CheckDivergence(Alpha{A: -0.1}), false},
		{"alpha 1.5", CheckDivergence(Alpha{A: 1.5}), false},
		{"relaxed 0", CheckDivergence(RelaxedKL{C: 0}), false},
		{"t 0", CheckDivergence(T{Nu: 0}), false},
		{"kl", CheckDivergence(KL{}), true},
		{"samples 4", CheckSamples(MinSamples), true},
		{"samples 3", CheckSamples(3), false},
		{"burnin 0", CheckBurnin(0), true},
		{"burnin -1", CheckBurnin(-1), false},
		{"chains max", CheckChains(MaxChains), true},
		{"chains max+1", CheckChains(MaxChains + 1), false},
		{"learn max_iter 0", CheckLearnIter(0), false},
		{"learn options", LearnOptions{Method: BFGS, MaxIter: 10, Tol: 1e-3}.Check(), true},
		{"learn method", LearnOptions{Method: "newton"}.Check(), false},
	}
	for _, c := range cases {
		if (c.err == nil) != c.ok {
			t.Errorf("%s: error %v, want ok = %v", c.name, c.err, c.ok)
		}
	}
}

func TestParseOptions(t *testing.T) {
	if s, err := ParseScheme("gh", 32); err != nil || s != (Scheme{Kind: SchemeGH, N: 32}) || s.String() != "gh(n = 32)" {
		t.Errorf("gh(32): %v %v", s, err)
	}
	for _, n := range []int{1, 5000} {
		if _, err := ParseScheme("gh", n); err == nil || !strings.Contains(err.Error(), "2 ≤ n ≤ 1000") {
			t.Errorf("gh(%d): %v", n, err)
		}
	}
	if s, err := ParseScheme("laplace", 7); err != nil || s.N != 0 || !s.Numerical() {
		t.Errorf("laplace: %v %v", s, err)
	}
	if s, err := ParseScheme("exact", 0); err != nil || s.Numerical() {
		t.Errorf("exact: %v %v", s, err)
	}
	if _, err := ParseScheme("simpson", 0); err == nil || !strings.Contains(err.Error(), "gh, laplace, quick_laplace, gq, vq, exact") {
		t.Errorf("unknown scheme: %v", err)
	}
	if f, err := ParseFamily("factorized"); err != nil || f != FamilyFactorized || f.String() != "factorized" {
		t.Errorf("family: %v %v", f, err)
	}
	if m, err := ParseMethod("mcmc"); err != nil || m != MethodMCMC {
		t.Errorf("method: %v %v", m, err)
	}
	if _, err := ParseMethod("vi"); err == nil || !strings.Contains(err.Error(), "ep, bp, exact, mcmc") {
		t.Errorf("unknown method: %v", err)
	}
	if err := CheckSchedule("ep", Residual, EPSchedules); err == nil || !strings.Contains(err.Error(), "sequential, parallel, random") {
		t.Errorf("residual for ep: %v", err)
	}
}
