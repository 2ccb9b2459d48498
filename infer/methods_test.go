package infer

import (
	"slices"
	"strings"
	"testing"
)

// TestRegistryEngines: every method serves the structures it has engines
// for, and refuses the others with a reason naming what to use.
func TestRegistryEngines(t *testing.T) {
	want := map[Method]map[Structure]Engine{
		MethodEP:    {Blocks: BlockEP, FactorGraph: GraphEP, Gated: GatedEP, Discrete: BP, Net: NetEP},
		MethodBP:    {Discrete: BP},
		MethodExact: {Blocks: BlockQuadrature, FactorGraph: GraphExact, Gated: GatedExact, Discrete: JunctionTree, Net: NetExact},
		MethodMCMC:  {Blocks: BlockESS, FactorGraph: GraphESS, Gated: GatedMCMC, Discrete: Gibbs, Net: NetMCMC},
	}
	for _, m := range Methods {
		e, err := Lookup(m)
		if err != nil {
			t.Fatal(err)
		}
		for s := Blocks; s <= Net; s++ {
			got, err := e.Engine(s)
			w, ok := want[m][s]
			switch {
			case ok && (err != nil || got != w):
				t.Errorf("%s on structure %d: %d, %v; want %d", m, s, got, err, w)
			case !ok && (err == nil || got != NoEngine || !strings.Contains(err.Error(), "use") && s != Mixed):
				t.Errorf("%s on structure %d: %d, %v; want a refusal", m, s, got, err)
			}
		}
	}
	if _, err := Lookup("vmp"); err == nil || !strings.Contains(err.Error(), "methods are ep, bp, exact, mcmc") {
		t.Errorf("unknown method: %v", err)
	}
}

// TestRegistryOptions: the options schema — which method takes which
// option, the defaults (the engines that take fewer: compile's
// TestEngineOptions).
func TestRegistryOptions(t *testing.T) {
	bp, mcmc := Registry[MethodBP], Registry[MethodMCMC]
	for _, c := range []struct {
		key  string
		want []Method
	}{
		{"divergence", []Method{MethodEP, MethodBP}},
		{"shards", []Method{MethodEP}},
		{"samples", []Method{MethodMCMC}},
		{"seed", Methods},
		{"nonsense", nil},
	} {
		if got := MethodsAccepting(c.key); !slices.Equal(got, c.want) {
			t.Errorf("%s applies to %v, want %v", c.key, got, c.want)
		}
	}
	if ep := Registry[MethodEP]; ep.Settings.Tol != 1e-6 || ep.Settings.MaxIter != 200 || bp.Settings.Tol != 1e-9 || bp.Settings.MaxIter != 10000 {
		t.Errorf("ep/bp defaults: %+v, %+v", ep.Settings, bp.Settings)
	}
	if mcmc.MCMC != (MCMCSpec{Samples: 10000, Burnin: 1000, Chains: 4}) || mcmc.MCMC.Check() != nil {
		t.Errorf("mcmc defaults: %+v", mcmc.MCMC)
	}
	if len(OptionKeys) != 16 || OptionKeys[6] != "seed" || OptionKeys[15] != "method" {
		t.Errorf("OptionKeys: %v", OptionKeys)
	}
}

// TestNames: every name parses back to its value, and the divergence
// families of the divergence values.
func TestNames(t *testing.T) {
	for _, s := range []Schedule{Sequential, Parallel, Random, Residual} {
		if got, err := ParseSchedule(s.String()); err != nil || got != s {
			t.Errorf("schedule %v: %v, %v", s, got, err)
		}
	}
	for f := DivKL; f <= DivT; f++ {
		got, err := ParseDivFamily(f.String())
		d, derr := NewDivergence(f, 0.5)
		if err != nil || got != f || derr != nil || FamilyOf(d) != f {
			t.Errorf("divergence %v: %v, %v; %v, %v", f, got, err, d, derr)
		}
	}
	if FamilyOf(Alpha{A: 0}) != DivVMP || DivVMP.String() != "alpha(0)" {
		t.Errorf("alpha(0) is the VMP column, got %v", FamilyOf(Alpha{A: 0}))
	}
	if _, err := ParseDivFamily("alpha(0)"); err == nil {
		t.Error("alpha(0) parsed as a divergence name; it is alpha with a = 0")
	}
	if FamilyOf(nil) != DivNone || DivNone.String() != "" {
		t.Error("no divergence")
	}
	for _, name := range []string{"full", "factorized"} {
		if f, err := ParseFamily(name); err != nil || f.String() != name {
			t.Errorf("family %s: %v, %v", name, f, err)
		}
	}
}
