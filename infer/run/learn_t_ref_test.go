package run

import (
	"context"

	"github.com/fg-infer/fg/compile"
)

// tNegLogZ is the tests' independent evaluation of the t-EP evidence: it
// compiles m again with the params in set (fg literals, as --set) and
// returns −Σ_blocks log Z of t-EP.
func tNegLogZ(ctx context.Context, m *compile.Model, set map[string]string) (float64, bool) {
	mm, err := m.Recompile(set)
	if err != nil {
		return 0, false
	}
	return tNegLogZAt(ctx, mm)
}
