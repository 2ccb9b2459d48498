package compile

import (
	"fmt"
	goast "go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/fg-infer/fg/infer"
)

// TestEnginesRegistered: every method runs on discrete latents (infer/run,
// linked by engines_link_test.go); a structure no engine of a method serves is
// refused with the registry's reason (mixed latents for every method);
// with no engine linked, every line is refused as an internal error.
func TestEnginesRegistered(t *testing.T) {
	for _, m := range infer.Methods {
		for s := infer.Blocks; s <= infer.Net; s++ {
			e, err := EngineFor(m, s)
			switch {
			case err == nil:
			case e != nil || err.Error() != mustLookup(t, m).Refuse(s).Error():
				t.Errorf("%s on structure %d: %v, %v", m, s, e, err)
			}
		}
		if _, err := EngineFor(m, infer.Discrete); err != nil {
			t.Errorf("%s on discrete latents: %v", m, err)
		}
		if _, err := EngineFor(m, infer.Mixed); err == nil || !strings.Contains(err.Error(), "mixes discrete and real latents") {
			t.Errorf("%s on mixed latents: %v", m, err)
		}
	}
	saved := engines
	engines = map[engineKey]Engine{}
	defer func() { engines = saved }()
	if _, err := EngineFor(infer.MethodEP, infer.Blocks); err == nil || !strings.Contains(err.Error(), "no engine is linked") {
		t.Errorf("no engine linked: %v", err)
	}
}

// TestRegisterEngineTwice: a method and structure take one engine.
func TestRegisterEngineTwice(t *testing.T) {
	e, err := EngineFor(infer.MethodEP, infer.Blocks)
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if r := recover(); r == nil || !strings.Contains(fmt.Sprint(r), "both registered for ep") {
			t.Errorf("second engine for ep on blocks: %v", r)
		}
	}()
	RegisterEngine(infer.MethodEP, infer.Blocks, e)
}

func mustLookup(t *testing.T, m infer.Method) *infer.Entry {
	e, err := infer.Lookup(m)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// TestEngineOptions: the engines that take fewer options than their
// method (Engine.Options), the others take the method's and seed.
func TestEngineOptions(t *testing.T) {
	ep, exact, mcmc := infer.Registry[infer.MethodEP], infer.Registry[infer.MethodExact], infer.Registry[infer.MethodMCMC]
	eng := func(m infer.Method, s infer.Structure) Engine {
		e, err := EngineFor(m, s)
		if err != nil {
			t.Fatal(err)
		}
		return e
	}
	blockEP, graphEP, gatedEP := eng(infer.MethodEP, infer.Blocks), eng(infer.MethodEP, infer.FactorGraph), eng(infer.MethodEP, infer.Gated)
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
		eng  Engine
		m    *infer.Entry
		want []string
	}{
		{eng(infer.MethodEP, infer.Net), ep, []string{"divergence", "schedule", "damping", "adapt_damping", "tol", "max_iter"}},
		{eng(infer.MethodExact, infer.Net), exact, []string{}},
		{eng(infer.MethodMCMC, infer.Net), mcmc, []string{"samples", "burnin", "chains", "seed"}},
		{eng(infer.MethodExact, infer.Blocks), exact, []string{"method", "seed"}},
	} {
		if got := engineOptions(c.eng, c.m).Keys(); !slices.Equal(got, c.want) {
			t.Errorf("engine %T takes %v, want %v", c.eng, got, c.want)
		}
	}
	netExact, blockQuad := eng(infer.MethodExact, infer.Net), eng(infer.MethodExact, infer.Blocks)
	if engineAccepts(netExact, exact, "seed") || engineAccepts(netExact, exact, "method") || !engineAccepts(blockQuad, exact, "method") {
		t.Error("exact on a typed factor graph takes no option; on blocks it takes method and seed")
	}
}

// TestEnginesWiredOnlyInRegistry: an engine is wired in one place, its
// line in infer/run/engines.go's registry. No other Go file of the module
// calls compile.RegisterEngine; no other Go file of compile or infer/run
// names a model structure (infer.Blocks, infer.Net, ...: compile/engine.go
// decides the structure, EngineFor looks its engine up) or, in infer/run,
// an engine type: the checks and runners are reached through
// compile.Engine, not by switching on structures or engines.
func TestEnginesWiredOnlyInRegistry(t *testing.T) {
	const registry = "../infer/run/engines.go"
	structures := constantsOfType(t, "../infer/methods.go", "Structure")
	types := engineTypes(t, registry)
	if len(structures) < 6 || len(types) < 15 {
		t.Fatalf("found structures %v and engine types %v", structures, types)
	}
	files, err := filepath.Glob("../*/*.go")
	if err != nil {
		t.Fatal(err)
	}
	more, err := filepath.Glob("../*/*/*.go")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range append(files, more...) {
		f = filepath.ToSlash(f)
		if strings.HasSuffix(f, "_test.go") || f == registry {
			continue
		}
		file, err := parser.ParseFile(token.NewFileSet(), f, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		inCompile, inRun := filepath.Dir(f) == "../compile", filepath.Dir(f) == "../infer/run"
		goast.Inspect(file, func(n goast.Node) bool {
			switch n := n.(type) {
			case *goast.CallExpr:
				if isIdent(n.Fun, "RegisterEngine") || isSelector(n.Fun, "", "RegisterEngine") {
					t.Errorf("%s registers an engine: its line belongs in %s's registry", f, registry)
				}
			case *goast.SelectorExpr:
				if (inCompile && f != "../compile/engine.go" || inRun) && isSelector(n, "infer", "") && structures[n.Sel.Name] {
					t.Errorf("%s names the structure infer.%s: reach the engine through compile.EngineFor (registry: %s)", f, n.Sel.Name, registry)
				}
			case *goast.CompositeLit:
				if id, ok := n.Type.(*goast.Ident); ok && inRun && types[id.Name] {
					t.Errorf("%s makes the engine %s: reach it through compile.Engine (%s)", f, id.Name, registry)
				}
			}
			return true
		})
	}
}

// constantsOfType returns the names of the constants of type typ declared
// in the Go file at path (the first of a const block with type typ and
// the names that follow it).
func constantsOfType(t *testing.T, path, typ string) map[string]bool {
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
		if v := g.Specs[0].(*goast.ValueSpec); v.Type == nil || !isIdent(v.Type, typ) {
			continue
		}
		for _, s := range g.Specs {
			for _, n := range s.(*goast.ValueSpec).Names {
				out[n.Name] = true
			}
		}
	}
	return out
}

// engineTypes returns the types with a Supports method declared in the
// Go file at path.
func engineTypes(t *testing.T, path string) map[string]bool {
	file, err := parser.ParseFile(token.NewFileSet(), path, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]bool{}
	for _, d := range file.Decls {
		if f, ok := d.(*goast.FuncDecl); ok && f.Recv != nil && f.Name.Name == "Supports" {
			if id, ok := f.Recv.List[0].Type.(*goast.Ident); ok {
				out[id.Name] = true
			}
		}
	}
	return out
}

func isIdent(e goast.Expr, name string) bool {
	id, ok := e.(*goast.Ident)
	return ok && id.Name == name
}

// isSelector reports whether e is x.sel, either empty matching any name.
func isSelector(e goast.Expr, x, sel string) bool {
	s, ok := e.(*goast.SelectorExpr)
	if !ok || sel != "" && s.Sel.Name != sel {
		return false
	}
	id, ok := s.X.(*goast.Ident)
	return x == "" || ok && id.Name == x
}
