package factor

import (
	"testing"

	"github.com/fg-infer/fg/graph"
	"github.com/fg-infer/fg/stdlib"
)

// TestPriorKinds checks what each PriorKind says about itself against its
// builtin's signature, an independent description of the same prior: a
// Student-t family takes degrees of freedom (a nu parameter), a process
// prior a kernel and inputs, and only a Gaussian without either is
// independent per element. Every other real-latent prior is a kind of
// the typed factor graph (beta, gamma, ...).
func TestPriorKinds(t *testing.T) {
	var names []string
	for _, k := range All() {
		p, ok := k.(graph.PriorKind)
		if !ok {
			if k.Role() == Prior && k.Builtin().Domains[0] == graph.Real && !has[NetKind](k) {
				t.Errorf("%s: a real-latent prior that is neither a PriorKind nor a NetKind", KeyOf(k))
			}
			continue
		}
		names = append(names, p.Name())
		b := k.Builtin()
		if k.Role() != Prior || b.Domains[0] != graph.Real {
			t.Errorf("%s: a PriorKind must be a prior on real latents", KeyOf(k))
		}
		_, nu := b.Param("nu")
		kern, process := b.Param("kernel")
		_, inputs := b.Param("X")
		if process && (kern.Type != stdlib.KernelT || !inputs) {
			t.Errorf("%s: kernel parameter %v, X present %v", KeyOf(k), kern.Type, inputs)
		}
		switch f := p.Family(); {
		case f != graph.Gaussian && f != graph.StudentT:
			t.Errorf("%s: family %v, want gaussian or student_t", KeyOf(k), f)
		case (f == graph.StudentT) != nu:
			t.Errorf("%s: family %v but a nu parameter: %v", KeyOf(k), f, nu)
		}
		if p.Process() != process {
			t.Errorf("%s: Process() = %v, kernel parameter %v", KeyOf(k), p.Process(), process)
		}
		if want := p.Family() == graph.Gaussian && !process && b.Name == (NormalPrior{}).Name(); p.Independent() != want {
			t.Errorf("%s: Independent() = %v, want %v", KeyOf(k), p.Independent(), want)
		}
	}
	want := []string{"normal", "mvnormal", "gp", "student_t", "tp"}
	if len(names) != len(want) {
		t.Fatalf("PriorKinds %v, want %v", names, want)
	}
	for i := range want {
		if names[i] != want[i] {
			t.Fatalf("PriorKinds %v, want %v", names, want)
		}
	}
}

// TestPriorRules checks the rule cells derived from a prior's family: a
// Gaussian prior under Gaussian EP, the gold standards and learn; a
// Student-t prior under t-EP and (its Gaussian limit) ep kl only.
func TestPriorRules(t *testing.T) {
	cases := []struct {
		k    Kind
		c    Column
		via  string
		none bool
	}{
		{GP{}, epKL, "GaussianPrior", false},
		{MVNormal{}, exact, "GaussianPrior", false},
		{NormalPrior{}, learn, "GaussianPrior", false},
		{GP{}, epT, "", true},
		{TP{}, epT, "TPrior", false},
		{StudentTPrior{}, epKL, "GaussianLimit", false},
		{StudentTPrior{}, epAlpha, "", true},
		{TP{}, exact, "", true},
	}
	for _, c := range cases {
		r, ok := Support(c.k, c.c)
		if ok == c.none || r.Via != c.via {
			t.Errorf("%s under %s: rule %q (%v), want %q", KeyOf(c.k), c.c, r.Via, ok, c.via)
		}
	}
}
