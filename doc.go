// Package fg is the public Go API of the fg probabilistic programming
// language: load a model file (from a path, an fs.FS or bytes), override
// params and data, run its infer lines, read the results, and check its
// expect statements — the same operations as `fg run` and `fg test`.
//
//	m, err := fg.Load("examples/toy5.fg")
//	err = m.Set("eps", "0.1")                 // fg run --set eps=0.1
//	res, err := m.Run(ctx)
//	ep := res.Get("ep")                       // one Result per infer label
//	mean, err := ep.Mean("w", 0)              // posterior mean of w[0]
//	v, err := ep.Variance("w", 0)
//	logZ, ok := ep.LogZ()
//	if ep.Status() != fg.StatusConverged { ... }
//	for _, e := range res.Expects() { fmt.Println(e) }
//
// Results are values of this package (Result, Status): latents are read by
// name and row-major element index, discrete ones by state label with
// Result.Prob. Labels follow docs/language.md ("Labels"): adding an infer
// line never renames an existing one.
//
// Go tests check a model's expects with the fgtest subpackage
// (fgtest.TestModel(t, path)). The expect language itself is evaluated by
// package expect; cmd/fg reaches the compiled model through an internal
// package, so the types of the compiler and the engines are not part of
// this API.
package fg
