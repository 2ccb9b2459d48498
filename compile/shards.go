package compile

import (
	"github.com/fg-infer/fg/graph"
	"github.com/fg-infer/fg/infer"
	"github.com/fg-infer/fg/lang/ast"
)

// checkShards refuses a sharded infer line on a model it cannot handle:
// sharded EP needs divergence kl, the full Gaussian family, and blocks with a
// normal or mvnormal prior (no GP/TP or Student-t prior, no mini-batch
// factors) and at least one site per shard.
func (c *compiler) checkShards(s *ast.InferStmt, spec *InferSpec) {
	if spec.Shards == 0 {
		return
	}
	if _, ok := spec.Settings.Divergence.(infer.KL); !ok || spec.Family != infer.FamilyFull {
		c.fail(s, "shards needs divergence = kl and family = full, got %v and %s", spec.Settings.Divergence, spec.Family)
		return
	}
	for _, b := range c.m.Blocks() {
		if b.Prior.Kind.Family() != graph.Gaussian || b.Prior.Kind.Process() || len(b.Batches) > 0 {
			c.fail(s, "shards needs a normal or mvnormal prior and no mini-batch factors; `%s` has a %s prior and %d batch factors", b.Name, b.Prior.Kind.Name(), len(b.Batches))
			continue
		}
		if len(b.Sites) < spec.Shards {
			c.fail(s, "shards = %d but `%s` has only %d likelihood sites", spec.Shards, b.Name, len(b.Sites))
		}
	}
}
