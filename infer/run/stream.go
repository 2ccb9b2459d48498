package run

import (
	"fmt"
	"io"

	"github.com/fg-infer/fg/graph"
	"github.com/fg-infer/fg/infer"
	"github.com/fg-infer/fg/infer/ep"
	"github.com/fg-infer/fg/infer/stream"
)

// streamBlock runs infer/stream over a block whose sites are libsvm plates:
// ADF for passes = 1, EP with sites on disk otherwise (passes 0 means the
// infer line's max_iter), then scores every predict on libsvm data against
// its file's labels. The block's prior is iid normal (compile checks it).
func (j *job) streamBlock(b *graph.Block) (*blockOut, error) {
	pv := b.Prior.Var // compile: an iid normal prior, kept diagonal (O(d))
	if pv == nil {
		var err error
		if pv, err = diagonal(b.Prior.Cov); err != nil {
			return nil, fmt.Errorf("streaming EP %w", err)
		}
	}
	st := b.Streams[0]
	lik, err := j.streamLik(st)
	if err != nil {
		return nil, err
	}
	passes := j.spec.Passes
	if passes == 0 {
		passes = j.st.MaxIter
	}
	s := &stream.Settings{Passes: passes, Damping: j.st.Damping, FixedDamping: j.st.FixedDamping, Tol: j.st.Tol}
	if j.st.Progress != nil {
		s.Progress = func(p stream.Progress) {
			if p.EndOfPass {
				j.st.Progress(p.Pass, p.Residual)
			}
		}
	}
	p := &stream.Problem{PriorMean: b.Prior.Mean, PriorVar: pv, Lik: lik, Train: labelledSource{st}}
	if b.Prior.Shared {
		p.D = b.N // one prior for every weight (a compact latent)
	}
	res, err := stream.Run(j.ctx, p, s)
	if err != nil {
		return nil, err
	}
	o := &blockOut{status: res.Status, message: res.Message, stats: res.Stats, trace: res.Trace}
	o.v = infer.Variable{Mean: res.Mean, Var: res.Var, Streamed: true}
	j.res.Options = withOption(j.res.Options, "examples/s", fmt.Sprintf("%.3g", res.PerSecond))
	if res.Status.HasNumbers() {
		if o.predictions, err = j.streamPredictions(b, lik, res); err != nil {
			return nil, err
		}
	}
	return o, nil
}

// streamLik is the likelihood of streamed sites: the closed forms of probit
// and step, Gauss–Hermite on the projection for logistic.
func (j *job) streamLik(st graph.StreamSites) (ep.Likelihood, error) {
	if lik, ok := st.Lik.(ep.Likelihood); ok {
		return lik, nil
	}
	return j.numericLikelihood(graph.Site{Lik: st.Lik})
}

// streamPredictions scores each predict on libsvm data.
func (j *job) streamPredictions(b *graph.Block, lik ep.Likelihood, res *stream.Result) ([]infer.Prediction, error) {
	var out []infer.Prediction
	for _, p := range j.predictsOf(b) {
		if p.Sparse == nil {
			return nil, fmt.Errorf("predict %s: a block with libsvm sites predicts on libsvm data", p.Name)
		}
		sc, err := stream.Score(j.ctx, lik, res.Mean, res.Var, stream.LibSVMFile{FS: p.Sparse.FS, Path: p.Sparse.Path})
		if err != nil {
			return nil, fmt.Errorf("predict %s: %w", p.Name, err)
		}
		out = append(out, infer.Prediction{Name: p.Name, Shape: []int{sc.N},
			Test: &infer.TestScore{N: sc.N, ErrorRate: 1 - sc.Accuracy, MeanLogProb: -sc.LogLoss}})
	}
	return out, nil
}

// labelledSource streams a libsvm plate: the features of st.Data with the
// labels of st.Labels (one file read once per pass when they are the same).
type labelledSource struct{ st graph.StreamSites }

func (s labelledSource) Open() (stream.Rows, error) {
	x, err := stream.LibSVMFile{FS: s.st.FS, Path: s.st.Data}.Open()
	if err != nil || s.st.Labels == s.st.Data {
		return x, err
	}
	y, err := stream.LibSVMFile{FS: s.st.FS, Path: s.st.Labels}.Open()
	if err != nil {
		x.Close()
		return nil, err
	}
	return &zipRows{x: x, y: y}, nil
}

// zipRows pairs the features of one file with the labels of another.
type zipRows struct{ x, y stream.Rows }

func (z *zipRows) Next() (float64, []int32, []float64, error) {
	_, idx, val, err := z.x.Next()
	if err != nil {
		return 0, nil, nil, err
	}
	y, _, _, err := z.y.Next()
	if err == io.EOF {
		err = fmt.Errorf("the labels file has fewer examples than the features file")
	}
	return y, idx, val, err
}

func (z *zipRows) Close() error {
	z.y.Close()
	return z.x.Close()
}
