package compile

import (
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
