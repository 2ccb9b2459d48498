package compile

import (
	goast "go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/fg-infer/fg/infer"
)

// TestEnginesRegistered: every engine the method registry names for a
// method and structure is registered (infer/run, linked by
// engines_link_test.go); an engine that is not is refused by name.
func TestEnginesRegistered(t *testing.T) {
	for _, m := range infer.Methods {
		e, err := infer.Lookup(m)
		if err != nil {
			t.Fatal(err)
		}
		for s := infer.Blocks; s <= infer.Net; s++ {
			id, err := e.Engine(s)
			if err != nil {
				continue
			}
			if _, err := EngineOf(id); err != nil {
				t.Errorf("%s on structure %d: %v", m, s, err)
			}
		}
	}
	if _, err := EngineOf(infer.NoEngine); err == nil || !strings.Contains(err.Error(), "engine 0 is not linked") {
		t.Errorf("unregistered engine: %v", err)
	}
}

// TestEngineOptions: the engines that take fewer options than their
// method (Engine.Options), the others take the method's and seed.
func TestEngineOptions(t *testing.T) {
	ep, exact, mcmc := infer.Registry[infer.MethodEP], infer.Registry[infer.MethodExact], infer.Registry[infer.MethodMCMC]
	eng := func(id infer.Engine) Engine {
		e, err := EngineOf(id)
		if err != nil {
			t.Fatal(err)
		}
		return e
	}
	blockEP, graphEP, gatedEP := eng(infer.BlockEP), eng(infer.GraphEP), eng(infer.GatedEP)
	for _, k := range []string{"shards", "passes", "nonnegative_sites"} {
		if !engineAccepts(blockEP, ep, k) || engineAccepts(graphEP, ep, k) || engineAccepts(gatedEP, ep, k) {
			t.Errorf("%s: block EP takes it, message passing on a factor graph does not", k)
		}
	}
	for _, k := range []string{"approx", "family", "tol", "seed"} {
		if !engineAccepts(graphEP, ep, k) || !engineAccepts(gatedEP, ep, k) {
			t.Errorf("%s: message passing on a factor graph takes it", k)
		}
	}
	for _, c := range []struct {
		eng  infer.Engine
		m    *infer.Entry
		want []string
	}{
		{infer.NetEP, ep, []string{"divergence", "schedule", "damping", "adapt_damping", "tol", "max_iter"}},
		{infer.NetExact, exact, []string{}},
		{infer.NetMCMC, mcmc, []string{"samples", "burnin", "chains", "seed"}},
		{infer.BlockQuadrature, exact, []string{"method", "seed"}},
	} {
		if got := engineOptions(eng(c.eng), c.m); !slices.Equal(got, c.want) {
			t.Errorf("engine %d takes %v, want %v", c.eng, got, c.want)
		}
	}
	netExact, blockQuad := eng(infer.NetExact), eng(infer.BlockQuadrature)
	if engineAccepts(netExact, exact, "seed") || engineAccepts(netExact, exact, "method") || !engineAccepts(blockQuad, exact, "method") {
		t.Error("exact on a typed factor graph takes no option; on blocks it takes method and seed")
	}
}

// TestEngineValuesOnlyInRegistry: no Go file of compile or infer/run names
// an engine of the method registry (infer.BlockEP, infer.NetMCMC, ...)
// besides infer/run/engines.go, where each value is given its type: the
// checks and runners are reached through compile.Engine, not by switching
// on engine values.
func TestEngineValuesOnlyInRegistry(t *testing.T) {
	engines := engineConstants(t, "../infer/methods.go")
	if len(engines) < 15 {
		t.Fatalf("found %d engine constants in infer/methods.go: %v", len(engines), engines)
	}
	for _, dir := range []string{".", "../infer/run"} {
		files, err := filepath.Glob(filepath.Join(dir, "*.go"))
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range files {
			if strings.HasSuffix(f, "_test.go") || filepath.ToSlash(f) == "../infer/run/engines.go" {
				continue
			}
			file, err := parser.ParseFile(token.NewFileSet(), f, nil, 0)
			if err != nil {
				t.Fatal(err)
			}
			goast.Inspect(file, func(n goast.Node) bool {
				if sel, ok := n.(*goast.SelectorExpr); ok {
					if x, ok := sel.X.(*goast.Ident); ok && x.Name == "infer" && engines[sel.Sel.Name] {
						t.Errorf("%s names the engine infer.%s: reach it through compile.Engine (infer/run/engines.go)", f, sel.Sel.Name)
					}
				}
				return true
			})
		}
	}
}

// engineConstants returns the names of the constants of type Engine
// declared in the Go file at path (the first of a const block with type
// Engine and the names that follow it).
func engineConstants(t *testing.T, path string) map[string]bool {
	file, err := parser.ParseFile(token.NewFileSet(), path, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]bool{}
	for _, d := range file.Decls {
		g, ok := d.(*goast.GenDecl)
		if !ok || g.Tok != token.CONST || len(g.Specs) == 0 {
			continue
		}
		if v := g.Specs[0].(*goast.ValueSpec); v.Type == nil || !isIdent(v.Type, "Engine") {
			continue
		}
		for _, s := range g.Specs {
			for _, n := range s.(*goast.ValueSpec).Names {
				if n.Name != "NoEngine" {
					out[n.Name] = true
				}
			}
		}
	}
	return out
}

func isIdent(e goast.Expr, name string) bool {
	id, ok := e.(*goast.Ident)
	return ok && id.Name == name
}
