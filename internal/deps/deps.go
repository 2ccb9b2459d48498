// Package deps pins the project's third-party modules in go.mod while the
// packages that use them are being written. It is imported by nothing.
package deps

import (
	_ "github.com/alecthomas/participle/v2"
	_ "github.com/chzyer/readline"
	_ "github.com/creack/pty"
	_ "gonum.org/v1/gonum/integrate/quad"
	_ "gonum.org/v1/gonum/mat"
	_ "gonum.org/v1/gonum/optimize"
	_ "gonum.org/v1/gonum/stat/distuv"
	_ "gonum.org/v1/plot"
	_ "gonum.org/v1/plot/plotter"
	_ "gonum.org/v1/plot/vg"
)
