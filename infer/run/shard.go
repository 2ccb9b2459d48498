package run

import (
	"context"
	"fmt"

	"gonum.org/v1/gonum/mat"

	"github.com/fg-infer/fg/compile"
	"github.com/fg-infer/fg/graph"
	"github.com/fg-infer/fg/infer"
	"github.com/fg-infer/fg/infer/ep"
	"github.com/fg-infer/fg/infer/shard"
)

// epSites are the infer/ep sites of block b under the infer line's moment
// scheme.
func (j *job) epSites(b *graph.Block) ([]ep.Site, error) {
	sites := make([]ep.Site, 0, len(b.Sites))
	for _, s := range b.Sites {
		lik, err := j.epLikelihood(s)
		if err != nil {
			return nil, err
		}
		sites = append(sites, ep.Site{Lik: lik, Y: s.Y, Index: s.Index, Proj: s.Proj})
	}
	return sites, nil
}

// ShardBlock is what a distributed runner (fg-beam) needs of a compiled
// model for sharded EP: the prior of its one Gaussian block, the block's
// sites as infer/ep sites, and the infer line's outer and local settings.
type ShardBlock struct {
	Name     string
	Mean     []float64
	Cov      *mat.SymDense
	Sites    []ep.Site
	Settings shard.Settings
}

// ShardBlockOf returns the ShardBlock of a model with exactly one block for
// the infer line with the given label ("" for the first ep line).
func ShardBlockOf(m *compile.Model, label string) (*ShardBlock, error) {
	spec := findSpec(m.Infers, label)
	if label == "" {
		for _, s := range m.Infers {
			if s.Method == infer.MethodEP {
				spec = s
				break
			}
		}
	}
	if spec == nil || spec.Method != infer.MethodEP {
		return nil, fmt.Errorf("no ep infer line %q; the model's lines are %s", label, labelList(m.Infers))
	}
	if len(m.Blocks()) != 1 || m.Blocks()[0].Prior.Cov == nil {
		return nil, fmt.Errorf("sharded EP needs a model with one Gaussian block, this one has %d blocks", len(m.Blocks()))
	}
	j := &job{ctx: context.Background(), m: m, spec: spec, st: spec.Settings}
	b := m.Blocks()[0]
	sites, err := j.epSites(b)
	if err != nil {
		return nil, err
	}
	return &ShardBlock{Name: b.Name, Mean: b.Prior.Mean, Cov: b.Prior.Cov, Sites: sites, Settings: j.shardSettings()}, nil
}

// shardSettings are the infer line's settings for infer/shard: damping,
// tol and max_iter act on the outer iteration over shards; each shard's
// local EP runs undamped with the line's schedule, to tol/100.
func (j *job) shardSettings() shard.Settings {
	local := j.st
	local.Damping, local.Tol, local.Progress = 1, 0, nil
	return shard.Settings{Settings: j.st, Local: ep.Settings{Settings: local, NonNegativeSites: j.spec.NonNegativeSites}}
}

// shardBlock runs infer/shard on block b with its sites cut into
// spec.Shards contiguous shards (`infer ep { shards = K }`).
func (j *job) shardBlock(b *graph.Block) (*blockOut, error) {
	sites, err := j.epSites(b)
	if err != nil {
		return nil, err
	}
	p := &shard.Problem{Mean: b.Prior.Mean, Cov: b.Prior.Cov, Shards: shard.Split(sites, j.spec.Shards)}
	res, err := shard.Run(j.ctx, p, j.shardSettings())
	if res == nil {
		return nil, err
	}
	o := &blockOut{status: res.Status, message: res.Message, stats: res.Stats, logZ: res.LogZ,
		hasLogZ: res.HasLogZ, trace: res.Trace}
	if res.Mean != nil {
		o.v = infer.Variable{Mean: res.Mean, Var: diag(res.Cov)}
		o.predictions = j.shardPredictions(b, res)
	}
	return o, nil
}

func diag(c *mat.SymDense) []float64 {
	d := make([]float64, c.SymmetricDim())
	for i := range d {
		d[i] = c.At(i, i)
	}
	return d
}

// shardPredictions evaluates the block's predict statements on the global
// posterior N(μ, Σ): the latent x*ᵀw has mean x*ᵀμ and variance x*ᵀΣx*.
func (j *job) shardPredictions(b *graph.Block, res *shard.Result) []infer.Prediction {
	var out []infer.Prediction
	for _, p := range j.predictsOf(b) {
		t, _ := p.Xnew.Dims()
		var xs mat.Dense
		xs.Mul(p.Xnew, res.Cov)
		mean, vr := make([]float64, t), make([]float64, t)
		for i := range mean {
			x := p.Xnew.RawRowView(i)
			mean[i], vr[i] = mat.Dot(mat.NewVecDense(len(x), x), mat.NewVecDense(len(x), res.Mean)), mat.Dot(mat.NewVecDense(len(x), x), xs.RowView(i))
		}
		pr := infer.Prediction{Name: p.Name, Shape: []int{t}, Mean: mean, Var: vr}
		if lik := predictLik(p); lik != nil {
			pr.Prob, _ = ep.Prob(lik, mean, vr)
		}
		out = append(out, pr)
	}
	return out
}
