package infer

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// TestRegistryRefusals: a method refuses a structure none of its engines
// serves (the engines register by method and structure: compile's
// TestEnginesRegistered) with a reason naming what to use; mixed discrete
// and real latents are refused by every method.
func TestRegistryRefusals(t *testing.T) {
	bp := Registry[MethodBP]
	for s, want := range map[Structure]string{
		Blocks:      "bp needs discrete latents; use ep for the real latents of this model",
		FactorGraph: "bp does not run on real latents; use ep, exact or mcmc",
		Gated:       "bp does not run on gated likelihoods (discrete latents selecting the parameters of likelihoods on real latents): use ep, exact or mcmc",
		Net:         "bp does not run on a model with beta, gamma, inv_gamma or dirichlet latents, likelihoods with latent parameters or discrete chains: use ep (divergence kl, alpha(a), or alpha(0) for variational message passing), exact or mcmc",
	} {
		if err := bp.Refuse(s); err == nil || err.Error() != want {
			t.Errorf("bp on structure %d: %v, want %q", s, err, want)
		}
	}
	for _, m := range Methods {
		if err := Registry[m].Refuse(Mixed); err == nil || !strings.Contains(err.Error(), "mixes discrete and real latents") {
			t.Errorf("%s on mixed latents: %v", m, err)
		}
	}
	if err := Registry[MethodEP].Refuse(Blocks); err == nil || err.Error() != "ep does not run on this model" {
		t.Errorf("ep: %v", err)
	}
	if _, err := Lookup("vmp"); err == nil || !strings.Contains(err.Error(), "methods are ep, bp, exact, mcmc") {
		t.Errorf("unknown method: %v", err)
	}
}

// TestRegistryOptions: the options schema — which method takes which
// option, the defaults (the engines that take fewer: compile's
// TestEngineOptions).
func TestRegistryOptions(t *testing.T) {
	mcmc := Registry[MethodMCMC]
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
	exact := Settings{Damping: 1, Seed: DefaultSeed}
	for m, want := range map[Method]LineOptions{
		MethodEP:    {Settings: Settings{Divergence: KL{}, Tol: 1e-6, MaxIter: 200, Damping: 1, Seed: 1}},
		MethodBP:    {Settings: Settings{Divergence: KL{}, Tol: 1e-9, MaxIter: 10000, Damping: 1, Seed: 1}},
		MethodExact: {Settings: exact},
		MethodMCMC:  {Settings: exact, MCMCSpec: MCMCSpec{Samples: 10000, Burnin: 1000, Chains: 4}},
	} {
		want.Approx = Scheme{Kind: SchemeExact}
		if got := Registry[m].Defaults; !reflect.DeepEqual(got, want) {
			t.Errorf("%s defaults: %+v, want %+v", m, got, want)
		}
	}
	for _, c := range []struct {
		m       Method
		in      Settings
		tol     float64
		maxIter int
	}{
		{MethodEP, Settings{}, 1e-6, 200},
		{MethodBP, Settings{}, 1e-9, 10000},
		{MethodEP, Settings{Tol: 1e-3, MaxIter: 7}, 1e-3, 7},
		{MethodBP, Settings{MaxIter: 7}, 1e-9, 7},
	} {
		if got := c.in.WithDefaults(c.m); got.Tol != c.tol || got.MaxIter != c.maxIter {
			t.Errorf("%s %+v with defaults: tol %g, max_iter %d; want %g, %d", c.m, c.in, got.Tol, got.MaxIter, c.tol, c.maxIter)
		}
	}
	if mcmc.Defaults.MCMCSpec.Check() != nil {
		t.Errorf("mcmc defaults: %+v", mcmc.Defaults.MCMCSpec)
	}
	keys := InferOptions.Keys()
	if len(keys) != 16 || keys[6] != "seed" || keys[15] != "method" {
		t.Errorf("infer options: %v", keys)
	}
	for _, m := range Methods {
		for _, k := range Registry[m].Options.Keys() {
			if !InferOptions.Has(k) {
				t.Errorf("%s takes %s, which is not among InferOptions", m, k)
			}
		}
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

// TestTolDefaultsOnlyInRegistry: the default-tolerance policy is this
// package's (methods.go): no Go file of the engine packages below infer
// sets a tolerance field (Tol, GradTol, ...) to a number literal other
// than 0, by assignment or in a composite literal — a zero Tol is filled
// by Settings.WithDefaults or a constant of methods.go. infer/learn (the
// evidence optimiser) takes its defaults from methods.go too.
func TestTolDefaultsOnlyInRegistry(t *testing.T) {
	files, err := filepath.Glob("*/*.go")
	if err != nil || len(files) < 50 {
		t.Fatalf("%d files: %v", len(files), err)
	}
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		fset := token.NewFileSet()
		file, err := parser.ParseFile(fset, f, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(file, func(n ast.Node) bool {
			var field string
			var val ast.Expr
			switch n := n.(type) {
			case *ast.AssignStmt:
				for i, l := range n.Lhs {
					if s, ok := l.(*ast.SelectorExpr); ok && i < len(n.Rhs) && strings.HasSuffix(s.Sel.Name, "Tol") {
						field, val = s.Sel.Name, n.Rhs[i]
					}
				}
			case *ast.KeyValueExpr:
				if k, ok := n.Key.(*ast.Ident); ok && strings.HasSuffix(k.Name, "Tol") {
					field, val = k.Name, n.Value
				}
			}
			if lit, ok := val.(*ast.BasicLit); ok && lit.Value != "0" {
				t.Errorf("%s: %s set to the literal %s: take the default from infer/methods.go", fset.Position(lit.Pos()), field, lit.Value)
			}
			return true
		})
	}
}
