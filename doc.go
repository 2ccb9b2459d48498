// Package fg is the public Go API of the fg probabilistic programming
// language: load a model file (from a path, an fs.FS or bytes), override
// params and data, run its infer lines, read the results, and check its
// expect statements — the same operations as `fg run` and `fg test`.
//
//	m, err := fg.Load("examples/gpc_toy.fg")
//	m.Set("eps", "0.1")
//	res, err := m.Run(ctx)
//	ep := res.Get("ep")              // *infer.Result
//	for _, e := range res.Expects() { fmt.Println(e) }
//
// Go tests check a model's expects with the fgtest subpackage
// (fgtest.TestModel(t, path)).
package fg
