package graph

import (
	"io/fs"

	"github.com/fg-infer/fg/lang/ast"
)

// StreamSites are the likelihood sites of one plate over libsvm data,
//
//	for i in 0..len(X) { y[i] ~ LIK(dot(X[i], w), ...) },
//
// kept as a reference to the files instead of one Site per example: the
// engine (infer/stream) reads the examples from disk on every pass, so the
// number of examples is bounded by the disk, not by memory. Data is the
// features file, Labels the labels file (often the same file), both read
// through FS (nil: the operating system's files).
type StreamSites struct {
	Lik          SiteKind // the likelihood with its parameters: a binary classifier (factor.ClassProb)
	Data, Labels string
	FS           fs.FS
	Rows, Cols   int
	Label        string // e.g. "probit(y[i]) over 1000 examples of data/train.svm"
	Pos          ast.Pos
}
